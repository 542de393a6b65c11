"""Write a window of a recording as the files pt-stalk would have collected from the same server
at the same moments (TS-paged loop files, `mysqladmin ext` tables, the two status snapshots,
/proc/stat copies): the input of the import round trip and of bench/import.

    write_collection(samples, dest, utc_offset_s=3600) -> prefix
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterable, Sequence

from mysqltop.core.sample import RawSample

STAR = "*" * 27


def _local(t: float, offset: float) -> time.struct_time:
    return time.gmtime(t + offset)


def prefix_of(t: float, offset: float) -> str:
    return time.strftime("%Y_%m_%d_%H_%M_%S", _local(t, offset))


def ts_line(t: float, offset: float) -> str:
    return f"TS {t:.9f} {time.strftime('%Y-%m-%d %H:%M:%S', _local(t, offset))}\n"


def _stamp(t: float | None, offset: float) -> str:
    return "NULL" if t is None else time.strftime("%Y-%m-%d %H:%M:%S", _local(t, offset))


def vertical(rows: Sequence[dict[str, Any]]) -> str:
    out = []
    for i, row in enumerate(rows, 1):
        width = max(len(k) for k in row)
        out.append(f"{STAR} {i}. row {STAR}\n")
        for k, v in row.items():
            out.append(f"{k.rjust(width)}: {'NULL' if v is None else v}\n")
    return "".join(out)


def mysqladmin_table(status: dict[str, str]) -> str:
    w1 = max(len("Variable_name"), *(len(k) for k in status))
    w2 = max(len("Value"), *(len(v) for v in status.values()))
    border = f"+-{'-' * w1}-+-{'-' * w2}-+\n"
    rows = "".join(f"| {k.ljust(w1)} | {v.ljust(w2)} |\n" for k, v in status.items())
    return border + f"| {'Variable_name'.ljust(w1)} | {'Value'.ljust(w2)} |\n" + border + rows + border


def status_file(text: str) -> str:
    lines = text.split("\n")
    return f"{STAR} 1. row {STAR}\n  Type: InnoDB\n  Name: \nStatus: \n" + "\n".join(lines) + "\n"


def processlist_rows(raw: RawSample) -> list[dict[str, Any]]:
    rows: dict[Any, dict[str, Any]] = {}
    for s in raw.sessions or []:
        rows[s[0]] = {"Id": s[0], "User": s[1], "Host": s[2], "db": s[3], "Command": s[4], "Time": s[6],
                      "State": s[5], "Info": s[7], "Progress": "0.000"}
    for t in raw.transactions or []:      # idle sessions holding a transaction: in the processlist too
        if t[1] not in rows:
            rows[t[1]] = {"Id": t[1], "User": t[2], "Host": t[3], "db": None, "Command": t[10] or "Sleep",
                          "Time": 0, "State": "", "Info": None, "Progress": "0.000"}
    return list(rows.values())


def transaction_results(raw: RawSample, offset: float) -> str:
    trx_rows, lock_rows, wait_rows = [], [], []
    waiting = {w[0]: w for w in raw.lock_waits or []}
    for t in raw.transactions or []:
        trx_id, age, wait = t[0], t[5], t[12]
        lock_id = f"{trx_id}:0:3:2" if trx_id in waiting else None
        trx_rows.append({"trx_id": trx_id, "trx_state": t[4],
                         "trx_started": _stamp(raw.wall - age if age is not None else None, offset),
                         "trx_requested_lock_id": lock_id,
                         "trx_wait_started": _stamp(raw.wall - wait if wait is not None else None, offset),
                         "trx_weight": 2, "trx_mysql_thread_id": t[1], "trx_query": t[11],
                         "trx_lock_structs": t[8], "trx_rows_locked": t[6], "trx_rows_modified": t[7],
                         "trx_isolation_level": t[9]})
    for w in raw.lock_waits or []:
        req_lock, blk_lock = f"{w[0]}:0:3:2", f"{w[6]}:0:3:2"
        lock_rows += [{"lock_id": req_lock, "lock_trx_id": w[0], "lock_mode": w[16], "lock_type": w[17],
                       "lock_table": w[14], "lock_index": w[15]},
                      {"lock_id": blk_lock, "lock_trx_id": w[6], "lock_mode": w[16], "lock_type": w[17],
                       "lock_table": w[14], "lock_index": w[15]}]
        wait_rows.append({"requesting_trx_id": w[0], "requested_lock_id": req_lock, "blocking_trx_id": w[6],
                          "blocking_lock_id": blk_lock})
    return "".join(vertical(r) for r in (trx_rows, lock_rows, wait_rows) if r)


def procstat(raw: RawSample) -> str:
    h = raw.host
    assert h is not None
    fields = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
    cpu = " ".join(str(round(h.cpu_times.get(k, 0.0) * 100)) for k in fields)
    per_cpu = "".join(f"cpu{i} 0 0 0 0 0 0 0 0 0 0\n" for i in range(h.cpus))
    return (f"cpu  {cpu} 0 0\n{per_cpu}intr 0\nctxt {h.ctx_switches}\nbtime 0\nprocesses 0\n"
            f"procs_running {h.procs_running}\nprocs_blocked {h.procs_blocked}\n")


def write_collection(samples: Iterable[RawSample], dest: Path, utc_offset_s: float = 0.0,
                     with_ts: bool = True) -> str:
    """The samples as one pt-stalk collection in dest; returns its prefix. The first and last
    samples with an InnoDB status become -innodbstatus1/2."""
    dest.mkdir(parents=True, exist_ok=True)
    it = iter(samples)
    first = next(it)
    prefix = prefix_of(first.wall, utc_offset_s)
    files = {k: open(dest / f"{prefix}-{k}", "w") for k in ("mysqladmin", "processlist", "transactions", "procstat")}
    statuses: list[str] = []
    last_status: str | None = None
    try:
        for raw in _chain(first, it):
            ts = ts_line(raw.wall, utc_offset_s) if with_ts else ""
            if raw.global_status:
                files["mysqladmin"].write(mysqladmin_table(raw.global_status))
            if raw.sessions is not None:
                files["processlist"].write(ts + vertical(processlist_rows(raw)))
            if raw.transactions is not None:
                files["transactions"].write(ts + transaction_results(raw, utc_offset_s))
            if raw.host is not None:
                files["procstat"].write(ts_line(raw.wall, utc_offset_s) + procstat(raw))
            if raw.innodb_status:
                if not statuses:
                    statuses.append(raw.innodb_status)
                last_status = raw.innodb_status
    finally:
        for f in files.values():
            f.close()
    if statuses:
        (dest / f"{prefix}-innodbstatus1").write_text(status_file(statuses[0]))
    if last_status is not None:
        (dest / f"{prefix}-innodbstatus2").write_text(status_file(last_status))
    variables = first.variables
    if variables:
        (dest / f"{prefix}-variables").write_text(
            "\nSHOW GLOBAL VARIABLES\n\nVariable_name\tValue\n" + "".join(f"{k}\t{v}\n" for k, v in variables.items())
            + f"version\t{first.server.version or ''}\n")
    loop = ts_line(first.wall + 1, utc_offset_s).strip()
    (dest / f"{prefix}-output").write_text(f"{prefix} Loop start: {loop}\n")
    (dest / f"{prefix}-trigger").write_text(f"{prefix} Check results: status(Threads_running)=30, exceeded the threshold\n")
    return prefix


def _chain(first: RawSample, rest: Iterable[RawSample]) -> Iterable[RawSample]:
    yield first
    yield from rest
