"""RawSamples for TUI tests: the corpus MariaDB 10.11 capture with counters advancing per sample.

Sample i has Questions += 1000·(i+1) etc., so the derived rates are known in advance:
qps = 1000·(i+1) per 1 s interval, tps = 100·(i+1).
"""

from __future__ import annotations

import csv
from pathlib import Path

from mysqltop.core.sample import HostSample, RawSample, ServerIdentity

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
STATUS_TEXT = (CORPUS / "innodb-status" / "mariadb-10.11__mysqltop-lab__oltp-rw-32thr.txt").read_text()
T0 = 1_790_000_000.0          # 2026-09-21T…Z, a fixed epoch
SERVER = ServerIdentity(version="10.11.6-MariaDB", flavor="mariadb", address="db1:3306", local=True)


def _tsv(name: str) -> list[list[str]]:
    with open(CORPUS / name, newline="") as fh:
        return list(csv.reader(fh, delimiter="\t"))


GLOBAL = {k: v for k, v in _tsv("global-status/mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv")[1:]}
PS = _tsv("ps-waits/mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv")[1:]


def qps_at(i: int) -> float:
    return 1000.0 * (i + 1)


def tps_at(i: int) -> float:
    return 100.0 * (i + 1)


def sample(i: int, *, start: float = T0, interval: float = 1.0, error: str | None = None) -> RawSample:
    """Sample i of a steady series; counters are cumulative so rates come out as qps_at/tps_at."""
    q = sum(qps_at(j) for j in range(1, i + 1)) * interval
    c = sum(tps_at(j) for j in range(1, i + 1)) * interval
    status = dict(GLOBAL)
    status["Questions"] = str(int(float(GLOBAL.get("Questions", 0)) + q))
    status["Com_commit"] = str(int(float(GLOBAL.get("Com_commit", 0)) + c))
    status["Com_rollback"] = GLOBAL.get("Com_rollback", "0")
    status["Handler_commit"] = str(int(float(GLOBAL.get("Handler_commit", 0)) + 3 * c))   # + autocommit ones
    status["Threads_running"] = str(5 + i % 3)
    ps = [[r[0], int(r[1]) + 50 * i * (n + 1), int(r[2]) + 10**9 * i * (n + 1), *r[3:]] for n, r in enumerate(PS)]
    host = HostSample(cpus=8, cpu_times={"user": 100.0 + 4 * i, "system": 50.0 + 2 * i, "idle": 800.0 + i,
                                         "iowait": 5.0 + 0.5 * i, "steal": 0.0, "nice": 0, "irq": 0, "softirq": 0},
                      ctx_switches=10_000 + 12_000 * i, procs_running=12, procs_blocked=1,
                      loadavg=(7.5, 6.0, 5.0), mysqld_cpu_s=10.0 + 3.0 * i)
    return RawSample(wall=start + i * interval, mono=1000.0 + i * interval, server=SERVER,
                     innodb_status=STATUS_TEXT, ps_waits=ps, global_status=status,
                     variables={"innodb_buffer_pool_instances": "1"}, host=host, error=error)


def samples(n: int, **kw: object) -> list[RawSample]:
    return [sample(i, **kw) for i in range(n)]  # type: ignore[arg-type]
