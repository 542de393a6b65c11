"""A series of plausible RawSamples built from the corpus captures (no server): counters grow,
the transaction list churns, one poll fails. For format/codec/reader tests; replay-equals-live
and the bundled incident use real samples."""

from __future__ import annotations

import random
import re
from pathlib import Path

from mysqltop.core.sample import HostSample, RawSample, ServerIdentity

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
STATUS = (CORPUS / "innodb-status" / "mariadb-10.11__mysqltop-lab__oltp-rw-32thr.txt").read_text()
GLOBAL = [line.split("\t", 1) for line in
          (CORPUS / "global-status" / "mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv").read_text().splitlines()[1:]]
WAITS = [line.split("\t") for line in
         (CORPUS / "ps-waits" / "mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv").read_text().splitlines()[1:]]
SERVER = ServerIdentity(version="10.11.19-MariaDB", flavor="mariadb", address="127.0.0.1:3306",
                        hostname="lab", local=True)


def _bump(text: str, rng: random.Random, step: int) -> str:
    """Grow every number a little, as successive polls do."""
    return re.sub(r"\d+", lambda m: str(int(m.group()) + (rng.randrange(0, 50) * step if len(m.group()) > 3 else 0)), text)


def series(n: int, *, start: float = 1_763_776_800.0, interval: float = 1.0, seed: int = 7,
           fail_at: int | None = None) -> list[RawSample]:
    rng = random.Random(seed)
    out: list[RawSample] = []
    status_blocks = STATUS.split("---TRANSACTION")
    for i in range(n):
        blocks = status_blocks[:1] + rng.sample(status_blocks[1:], len(status_blocks) - 1)
        text = _bump("---TRANSACTION".join(blocks), rng, i)
        glob = {k: (str(int(v) + rng.randrange(0, 1000) * i) if v.isdigit() and int(v) > 100 else v)
                for k, v in GLOBAL}
        waits = [[r[0], *(int(x) + rng.randrange(0, 10**6) * i for x in r[1:])] for r in WAITS]
        host = HostSample(cpus=2, cpu_times={"user": 100.5 + i * 0.7, "system": 50.25 + i * 0.2, "idle": 900.0 + i},
                          ctx_switches=10_000 + 1234 * i, procs_running=3 + i % 4, procs_blocked=0,
                          loadavg=(1.5, 1.25, 1.0), disk_reads=500 + i, disk_writes=700 + 2 * i,
                          mysqld_cpu_s=12.5 + 0.6 * i, mysqld_threads=40)
        err = "poll timed out after 2.0 s" if i == fail_at else None
        out.append(RawSample(
            wall=start + i * interval + rng.random() * 0.01, mono=5000.0 + i * interval + rng.random() * 0.01,
            server=SERVER, innodb_status=None if err else text, innodb_mutex=None,
            ps_waits=None if err else waits, global_status={} if err else glob,
            innodb_metrics=None if err else {"buffer_flush_batch_total_pages": 1000 + 17 * i, "log_writes": 5 * i},
            variables={"innodb_buffer_pool_size": "67108864", "innodb_read_io_threads": "4",
                       "max_connections": "200" if i < n // 2 else "300"},
            host=host, timings_ms={"status": 1.234 + i * 0.001, "waits": 0.5}, errors={}, error=err))
    return out
