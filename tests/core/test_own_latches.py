"""mysqltop's own footprint is not the server's problem: the latches only its reads take
(trx_i_s_cache_lock from INNODB_TRX, srv_innodb_monitor_mutex from SHOW ENGINE INNODB STATUS) are
marked as its own, have no share, rank last, and stay out of the report's ranking and findings."""

from __future__ import annotations

import pytest

from mysqltop.core.advice import advise
from mysqltop.core.frame import Frame, ServerInfo
from mysqltop.core.hotspots import ps_hotspots, rank, semaphore_hotspots
from mysqltop.core.innodb.model import SemaphoreWait
from mysqltop.core.report_builder import build_report
from mysqltop.core.waits import WaitRow
from mysqltop.views.headless import writer_for

MS = 1_000_000_000
TRX_I_S = "wait/synch/rwlock/innodb/trx_i_s_cache_lock"
MONITOR = "wait/synch/mutex/innodb/srv_innodb_monitor_mutex"
LOCK_SYS = "wait/synch/mutex/innodb/lock_mutex"


def _hot(dt: float = 1.0):
    prev = {n: WaitRow(n, 0, 0) for n in (TRX_I_S, MONITOR, LOCK_SYS)}
    cur = {TRX_I_S: WaitRow(TRX_I_S, 900, 800 * MS), MONITOR: WaitRow(MONITOR, 50, 200 * MS),
           LOCK_SYS: WaitRow(LOCK_SYS, 100, 40 * MS)}
    out = ps_hotspots(prev, cur, dt)
    assert out is not None
    return rank(out)


def test_own_latches_are_marked_ranked_last_and_have_no_share() -> None:
    hs = _hot()
    assert [(h.name, h.own) for h in hs] == [("lock_mutex", False), ("trx_i_s_cache_lock", True),
                                             ("srv_innodb_monitor_mutex", True)]
    assert hs[0].share == pytest.approx(1.0)                 # the server's own waiting, all of it
    assert hs[1].share is None and hs[2].share is None
    sem = semaphore_hotspots([SemaphoreWait(name="trx_i_s_cache_lock", lock="RW-latch", seconds=3.0),
                              SemaphoreWait(name="lock_sys", lock="Mutex", seconds=1.0)])
    assert {h.name: (h.own, h.share) for h in sem} == {"trx_i_s_cache_lock": (True, None), "lock_sys": (False, 1.0)}


def _frames(n: int = 40) -> list[Frame]:
    out = []
    for k in range(n):
        f = Frame(time=1_700_000_000.0 + k, elapsed=1.0, server=ServerInfo("10.11.19-MariaDB", "mariadb", "lab"),
                  sources=["performance_schema"], hotspots=_hot())
        out.append(f)
    return out


def test_the_report_and_the_findings_leave_them_out_and_the_text_labels_them() -> None:
    frames = _frames()
    rep = build_report(frames, {})
    assert [h.name for h in rep.hotspots] == ["lock_mutex"]
    found = advise(frames, {})
    assert all("trx_i_s" not in a.message + a.evidence and "monitor_mutex" not in a.message + a.evidence
               for a in found), found
    text = writer_for("text", width=120).frame(frames[-1])
    assert "trx_i_s_cache_lock (mysqltop's own reads)" in text
    assert text.index("lock_mutex") < text.index("trx_i_s_cache_lock")
