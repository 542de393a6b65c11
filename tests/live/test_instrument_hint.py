"""The instrumentation the hint asks for, on a server started with exactly its lines: the latch
view works (InnoDB latches ranked from performance_schema) and nothing mysqltop does not read is
instrumented or consumed (the metadata-lock instrument is the one non-latch line: it names a
metadata-lock stall's holder)."""

from __future__ import annotations

import time

import pytest

from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.instrumentation import HINT, LATCH_INSTRUMENTS, MDL_INSTRUMENT
from mysqltop.sources.mysql import MySQLSource
from tests.support.load import LoadGenerator, LoadSpec
from tests.support.mariadb import ThrowawayMariaDB

pytestmark = pytest.mark.live


def test_a_server_with_exactly_the_hints_lines_ranks_innodb_latches() -> None:
    with ThrowawayMariaDB(extra_args=list(HINT.server_args), name="hint", ps_base=False) as db:
        enabled = [str(r[0]) for r in db.query(
            "SELECT NAME FROM performance_schema.setup_instruments WHERE ENABLED = 'YES' "
            "AND NAME NOT LIKE 'memory/performance_schema/%'")]         # P_S's own memory: always on, free
        assert MDL_INSTRUMENT in enabled                   # names a metadata-lock stall's holder
        latches = [n for n in enabled if n != MDL_INSTRUMENT]
        assert latches and all(n.startswith("wait/synch/") and "/cond/" not in n for n in latches), \
            [n for n in latches if not n.startswith("wait/synch/") or "/cond/" in n][:5]
        assert any(n.startswith("wait/synch/rwlock/innodb/") for n in enabled)
        assert not any(n.startswith(("statement/", "stage/", "wait/io/")) for n in enabled)
        consumers = {str(n): str(e) for n, e in db.query("SELECT NAME, ENABLED FROM performance_schema.setup_consumers")}
        assert [n for n, e in consumers.items() if e == "YES"] == ["global_instrumentation"]
        assert len(LATCH_INSTRUMENTS) >= 3

        gen = LoadGenerator(db.root_kwargs(), LoadSpec(mode="oltp", threads=8, rows=5_000, duration=30,
                                                       transactions=10**9, table="hint_oltp"))
        gen.prepare()
        src = MySQLSource(db.options(), interval=1.0)
        caps = src.open()
        pipe = PolledTimeline()
        try:
            with gen:
                time.sleep(1.0)
                frames = []
                for _ in range(6):
                    frames.append(pipe.push(src.read()))
                    time.sleep(1.0)
        finally:
            src.close()
        assert caps.performance_schema and caps.synch_instruments_enabled == len(latches)
        ranked = [f for f in frames[1:] if "performance_schema" in f.sources and f.hotspots]
        assert len(ranked) >= 3, [f.notes for f in frames]
        innodb = [h for f in ranked for h in f.hotspots if h.source == "performance_schema" and h.share]
        assert innodb and any(h.waits_per_s and h.waits_per_s > 10 for h in innodb)
        assert not any(a.id == "synch_instruments_off" for f in frames for a in f.advice)
