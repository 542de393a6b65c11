"""The series a pt-stalk collection's files hold, and its loop pages turned into mysqltop's row shapes. Pure.

docs/import.md is the contract; file reading lives in sources/collection_reader.py, the `\\G` pages
in collection_pages.py. Nothing here raises on bad content: a line that is not what it should be
is skipped or ends the structure it was in.

Forms:
- `-mysqladmin` / saved `mysqladmin ext -i N`: bordered `| Variable_name | Value |` tables, one
  per sample, absolute or (`-r`) each after the first relative to the one before;
- `-innodbstatus1/2`: SHOW ENGINE INNODB STATUS in the `\\G` wrapper (textforms.extract);
- `-mutex-status1/2`: SHOW ENGINE INNODB MUTEX (or SHOW MUTEX STATUS) in `mysql -e` form;
- `-procstat` (TS + /proc/stat), `-vmstat` (`vmstat 1 N`), `-variables` (SHOW GLOBAL VARIABLES
  as its first tab-separated table), `-output` (`Loop start: TS …`), `-trigger`;
- `-processlist` / `-transactions` pages → the sessions and transactions rows of sources/lock_reads.py.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from mysqltop.core.collection_pages import MAX_VALUE_CHARS, Row, naive_epoch, parse_ts
from mysqltop.core.mutex import MutexRow, is_mutex_row, mutex_header_kind, parse_mutex_table
from mysqltop.core.textforms import extract

LOOP_START = re.compile(r"Loop start: (TS .*)$")
_BORDER_ROW = re.compile(r"^\|\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\|\s*(.*?)\s*\|\s*$")
# a variable's name: MySQL 8 components add dotted ones (validate_password.length), which sort
# before `version` — a table read up to the first of them lost the server's version
_VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*$")
_NUMBER = re.compile(r"^-?\d+$")
# processlist commands that are not work in progress (the live source's sessions pane skips them)
IDLE_COMMANDS = frozenset({"Sleep", "Daemon", "Binlog Dump", "Binlog Dump GTID", "Slave_IO", "Slave_SQL",
                           "Slave_worker"})
MAX_SESSIONS = 30


# --- mysqladmin ext ---------------------------------------------------------------------------

def mysqladmin_samples(lines: Iterable[str]) -> Iterator[dict[str, str]]:
    """One dict per `mysqladmin ext` table, streamed. Bordered (`| Name | Value |`) or
    tab-separated (`Variable_name<TAB>Value` header) tables; a header row starts a sample."""
    cur: dict[str, str] | None = None
    for raw in lines:
        text = raw.rstrip("\r\n")
        if text.startswith("|"):
            m = _BORDER_ROW.match(text)
            if m is None:
                continue
            name, value = m.group(1), m.group(2)
        elif "\t" in text:
            name, _, value = text.partition("\t")
            name = name.strip()
        else:
            continue
        if name == "Variable_name":
            if cur:
                yield cur
            cur = {}
            continue
        if cur is not None and name:
            cur[name] = value.strip()
    if cur:
        yield cur


def uptime(sample: dict[str, str]) -> int | None:
    v = sample.get("Uptime", "")
    return int(v) if _NUMBER.match(v) else None


class Absolutes:
    """Turns a stream of mysqladmin samples into absolute ones: the `-r` form (each sample after
    the first holds the change since the one before) is recognised by an Uptime that does not
    rise, and summed back exactly; an absolute series passes through."""

    def __init__(self) -> None:
        self.relative: bool | None = None    # None: not decided yet (fewer than two samples)
        self.prev: dict[str, str] | None = None
        self.held: list[dict[str, str]] = []

    def feed(self, sample: dict[str, str]) -> list[dict[str, str]]:
        if self.relative is None:
            self.held.append(sample)
            return self._release() if len(self.held) >= 4 else []
        return self._emit(sample)

    def finish(self) -> list[dict[str, str]]:
        return self._release() if self.relative is None else []

    def _release(self) -> list[dict[str, str]]:
        """Decide the form from the samples held, then emit them all."""
        self.relative = self._decide()
        out = []
        for s in self.held:
            out += self._emit(s)
        self.held = []
        return out

    def _decide(self) -> bool:
        ups = [uptime(s) for s in self.held]
        if len(ups) < 2 or any(u is None for u in ups):
            return False
        first, rest = ups[0], [u for u in ups[1:] if u is not None]
        assert first is not None
        # -r: after the first sample Uptime is the interval (below the first's) and stays about
        # that (3, 4, 3); a restart drops it once, then it rises every sample (2, 3, 4)
        if rest[0] >= first:
            return False
        return len(rest) < 2 or any(b <= a for a, b in zip(rest, rest[1:]))

    def _emit(self, sample: dict[str, str]) -> list[dict[str, str]]:
        if not self.relative or self.prev is None:
            self.prev = sample
            return [sample]
        out = dict(sample)
        for k, v in sample.items():
            p = self.prev.get(k)
            if p is not None and _NUMBER.match(v) and _NUMBER.match(p):
                out[k] = str(int(p) + int(v))
        self.prev = out
        return [out]


# --- mutex status ------------------------------------------------------------------------------

def mutex_rows(text: str) -> list[list[str]] | None:
    """[Type, Name, Status] rows of a saved SHOW ENGINE INNODB MUTEX (as the server returns
    them, for RawSample.innodb_mutex); None when the text holds no mutex table."""
    for table in extract(text).tables:
        h = [c.strip().lower() for c in table.header]
        if h[:3] == ["type", "name", "status"]:
            return [[c for c in r[:3]] for r in table.rows if len(r) >= 3]
    return None


def parse_mutex_text(text: str) -> list[MutexRow] | None:
    """Mutex rows (summed by name) from a saved output in any client form and any of the
    dialects core/mutex.py reads; None when the text holds no mutex table."""
    for table in extract(text).tables:
        if mutex_header_kind(table.header) or (table.header and is_mutex_row(table.header)):
            return parse_mutex_table(table)
    return None


@dataclass(frozen=True)
class LatchDelta:
    name: str
    site: str | None
    waits: int              # os_waits (5.5/5.6), waits (5.7+) — whichever the dialect counts


def latch_deltas(text1: str, text2: str) -> list[LatchDelta] | None:
    """Waits per latch between two mutex-status snapshots, most first: rows summed by name per
    snapshot (one name repeats per instance), then diffed; a latch absent from the first had not
    waited yet (rows appear only once a latch has waited). None: either text holds no table."""
    a, b = parse_mutex_text(text1), parse_mutex_text(text2)
    if a is None or b is None:
        return None

    def waits(r: MutexRow) -> int | None:
        return r.waits if r.waits is not None else r.os_waits

    before = {(r.name, r.site): waits(r) for r in a}
    out = []
    for r in b:
        w1 = waits(r)
        w0 = before.get((r.name, r.site)) or 0
        if w1 is not None and w1 - w0 > 0:
            out.append(LatchDelta(r.name, r.site, w1 - w0))
    out.sort(key=lambda d: -d.waits)
    return out


# --- host: /proc/stat pages, vmstat -------------------------------------------------------------

USER_HZ = 100
_CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


@dataclass
class ProcStat:
    ts: tuple[float, float] | None
    cpus: int
    cpu_times: dict[str, float]
    ctx_switches: int
    procs_running: int
    procs_blocked: int


def procstat_pages(lines: Iterable[str]) -> Iterator[ProcStat]:
    """/proc/stat copies, each after a TS line (pt-stalk's -procstat)."""
    ts: tuple[float, float] | None = None
    fields: dict[str, list[str]] = {}
    cpus = 0

    def page() -> ProcStat | None:
        total = fields.get("cpu")
        if ts is None or total is None or "ctxt" not in fields:
            return None
        try:
            times = {k: int(v) / USER_HZ for k, v in zip(_CPU_FIELDS, total)}
            return ProcStat(ts, cpus, times, int(fields["ctxt"][0]), int(fields.get("procs_running", ["0"])[0]),
                            int(fields.get("procs_blocked", ["0"])[0]))
        except (ValueError, IndexError):
            return None

    for raw in lines:
        text = raw.strip()
        if text.startswith("TS "):
            stamp = parse_ts(text)
            if stamp is not None:
                p = page()
                if p is not None:
                    yield p
                ts, fields, cpus = stamp, {}, 0
                continue
        parts = text.split()
        if not parts:
            continue
        if re.match(r"^cpu\d+$", parts[0]):
            cpus += 1
        elif parts[0] in ("cpu", "ctxt", "procs_running", "procs_blocked"):
            fields[parts[0]] = parts[1:]
    p = page()
    if p is not None:
        yield p


def vmstat_rows(lines: Iterable[str]) -> Iterator[dict[str, int]]:
    """Rows of `vmstat N M` by column name, the first (averages since boot) left out."""
    header: list[str] | None = None
    first = True
    for raw in lines:
        parts = raw.split()
        if not parts:
            continue
        if parts[0] == "r" and "us" in parts:
            header, first = parts, True
            continue
        if header is None or len(parts) != len(header) or not all(_NUMBER.match(p) for p in parts):
            continue
        if first:
            first = False
            continue
        yield {k: int(v) for k, v in zip(header, parts)}


def mpstat_cpus(lines: Iterable[str]) -> int | None:
    """The CPU count in mpstat's first line: 'Linux 6.1.0 (db1) \t11/27/2026 \t_x86_64_\t(2 CPU)'."""
    for i, raw in enumerate(lines):
        m = re.search(r"\((\d{1,5}) CPU\)", raw)
        if m is not None:
            return int(m.group(1)) or None
        if i > 5:
            return None
    return None


def variables(lines: Iterable[str]) -> dict[str, str]:
    """SHOW GLOBAL VARIABLES: the first `Variable_name<TAB>Value` table (pt-stalk's -variables
    appends more tables after a blank line), or a bordered one."""
    out: dict[str, str] = {}
    inside = False
    for raw in lines:
        text = raw.rstrip("\r\n")
        if not inside:
            if text.replace("|", " ").split()[:2] == ["Variable_name", "Value"]:
                inside = True
            continue
        if not text.strip():
            if out:
                break
            continue
        if text.startswith("+"):
            continue
        if text.startswith("|"):
            m = _BORDER_ROW.match(text)
            if m is not None:
                out[m.group(1)] = m.group(2)
            continue
        name, sep, value = text.partition("\t")
        if sep and _VARIABLE_NAME.match(name):
            out[name] = value[:MAX_VALUE_CHARS]
        elif out:
            break
    return out


def loop_start(lines: Iterable[str]) -> tuple[float, float] | None:
    """The first `Loop start: TS …` of a collection's -output."""
    for raw in lines:
        m = LOOP_START.search(raw)
        if m is not None:
            stamp = parse_ts(m.group(1))
            if stamp is not None:
                return stamp
    return None


# --- rows in mysqltop's shapes (sources/lock_reads.py) ---------------------------------------------

def _int(v: str | None) -> int | None:
    if v is None:
        return None
    if v.isdigit() and v.isascii():          # the common case, without a regex
        return int(v)
    return int(v) if _NUMBER.match(v.strip()) else None


def _null(v: str | None) -> str | None:
    return None if v is None or v == "NULL" else v


def busy_rows(rows: list[Row]) -> list[list[object]]:
    """Every non-idle session of SHOW FULL PROCESSLIST rows in the live source's sessions shape
    (the active session rows are built from all of them, not only the busiest kept)."""
    out: list[list[object]] = []
    for r in rows:
        command = r.get("Command", "")
        if command in IDLE_COMMANDS or (r.get("Info") or "").strip() == "SHOW FULL PROCESSLIST":
            continue
        state = r.get("State") or ""
        out.append([_int(r.get("Id")), r.get("User"), r.get("Host"), _null(r.get("db")), command,
                    "" if state == "NULL" else state, _int(r.get("Time")) or 0, _null(r.get("Info"))])
    return out


def sessions(rows: list[Row]) -> tuple[list[list[object]], list[list[object]]]:
    """SHOW FULL PROCESSLIST rows → (sessions, session_states) in the live source's shapes:
    the busiest MAX_SESSIONS non-idle sessions, and (command, state) groups of all."""
    busy: list[tuple[int, Row, str, str]] = []          # (time, row, command, state) of non-idle sessions
    groups: dict[tuple[str, str], list[int]] = {}
    idle = IDLE_COMMANDS
    for r in rows:
        command = r.get("Command", "")
        state = r.get("State") or ""
        if state == "NULL":
            state = ""
        tv = r.get("Time")
        t = int(tv) if tv and tv.isascii() and tv.isdigit() else _int(tv) or 0
        g = groups.get((command, state))
        if g is None:
            groups[(command, state)] = [1, t]
        else:
            g[0] += 1
            if t > g[1]:
                g[1] = t
        if command not in idle and (r.get("Info") or "").strip() != "SHOW FULL PROCESSLIST":
            busy.append((t, r, command, state))
    if len(busy) > MAX_SESSIONS:                        # the longest running; only those tied at the cut need ids
        cut = heapq.nlargest(MAX_SESSIONS, (b[0] for b in busy))[-1]
        busy = [b for b in busy if b[0] >= cut]
    ranked = sorted(busy, key=lambda b: (-b[0], _int(b[1].get("Id")) or 0))[:MAX_SESSIONS]
    shaped: list[list[object]] = [[_int(r.get("Id")), r.get("User"), r.get("Host"), _null(r.get("db")), command,
                                   state, t, _null(r.get("Info"))] for t, r, command, state in ranked]
    states: list[list[object]] = [[c, s, n, longest] for (c, s), (n, longest) in groups.items()]
    states.sort(key=lambda s: (-int(str(s[2])), -int(str(s[3])), str(s[0]), str(s[1])))
    return shaped, states


def _age(started: str | None, now_local: float | None) -> int | None:
    if not started or started == "NULL" or now_local is None:
        return None
    m = re.match(r"^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)", started)
    if m is None:
        return None
    t = naive_epoch(*(int(x) for x in m.groups()))
    return max(0, int(now_local - t)) if t is not None else None


def transactions(results: list[list[Row]], procs: dict[int, Row], now_local: float | None
                 ) -> tuple[list[list[object]], list[list[object]]]:
    """A -transactions page (INNODB_TRX, INNODB_LOCKS, INNODB_LOCK_WAITS — or MySQL 8's
    data_locks/data_lock_waits — as \\G result sets) and the processlist of the same loop →
    (transactions, lock_waits) rows in the live source's shapes. now_local: the page's time in
    the server's local time (ages from trx_started)."""
    trx: dict[str, Row] = {}
    locks: dict[str, Row] = {}
    waits: list[tuple[str, str, str | None]] = []     # (requesting trx, blocking trx, requested lock)
    for rs in results:
        for r in rs:
            if "trx_id" in r and "trx_state" in r:
                trx[r["trx_id"]] = r
            elif "lock_id" in r:
                locks[r["lock_id"]] = r
            elif "ENGINE_LOCK_ID" in r:
                locks[r["ENGINE_LOCK_ID"]] = {"lock_table": f"`{r.get('OBJECT_SCHEMA')}`.`{r.get('OBJECT_NAME')}`",
                                              "lock_index": r.get("INDEX_NAME", ""),
                                              "lock_mode": r.get("LOCK_MODE", ""), "lock_type": r.get("LOCK_TYPE", "")}
            elif "requesting_trx_id" in r:
                waits.append((r["requesting_trx_id"], r.get("blocking_trx_id", ""), r.get("requested_lock_id")))
            elif "REQUESTING_ENGINE_TRANSACTION_ID" in r:
                waits.append((r["REQUESTING_ENGINE_TRANSACTION_ID"], r.get("BLOCKING_ENGINE_TRANSACTION_ID", ""),
                              r.get("REQUESTING_ENGINE_LOCK_ID")))

    def proc(t: Row) -> Row:
        tid = _int(t.get("trx_mysql_thread_id"))
        return procs.get(tid, {}) if tid is not None else {}

    trx_rows: list[list[object]] = []
    for t in trx.values():
        p = proc(t)
        trx_rows.append([t.get("trx_id"), _int(t.get("trx_mysql_thread_id")), p.get("User"), p.get("Host"),
                         t.get("trx_state"), _age(t.get("trx_started"), now_local), _int(t.get("trx_rows_locked")),
                         _int(t.get("trx_rows_modified")), _int(t.get("trx_lock_structs")),
                         t.get("trx_isolation_level"), p.get("Command"), _null(t.get("trx_query")),
                         _age(t.get("trx_wait_started"), now_local)])
    wait_rows: list[list[object]] = []
    for req, blk, lock_id in waits:
        rq, bq = trx.get(req), trx.get(blk)
        if rq is None or bq is None:
            continue
        r, b = rq, bq
        rp, bp = proc(r), proc(b)
        lk = locks.get(lock_id or "", {})
        wait_rows.append([req, _int(r.get("trx_mysql_thread_id")), rp.get("User"), rp.get("Host"),
                          _age(r.get("trx_wait_started"), now_local), _null(r.get("trx_query")),
                          blk, _int(b.get("trx_mysql_thread_id")), bp.get("User"), bp.get("Host"),
                          _age(b.get("trx_started"), now_local), b.get("trx_state"), bp.get("Command"),
                          _null(b.get("trx_query")), lk.get("lock_table"), _null(lk.get("lock_index")),
                          lk.get("lock_mode"), lk.get("lock_type")])
    return trx_rows, wait_rows
