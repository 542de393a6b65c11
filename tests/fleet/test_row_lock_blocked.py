"""serve's blocked session-seconds: the frames' row-lock wait account summed as time passes (a
stale frame adds nothing), exported beside the server's own counter."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families as parse_text

from mysqltop.core.frame import Counters, Frame, Locks, ServerInfo
from mysqltop.fleet import ServerState, _row_lock_blocked_s
from mysqltop.views.prometheus import Exposition


def _frame(ms_per_s: float | None, elapsed: float | None = 1.0, stale: bool = False) -> Frame:
    return Frame(time=1000.0, elapsed=elapsed, stale=stale, server=ServerInfo("10.11.6-MariaDB", "mariadb"),
                 locks=Locks(row_lock_wait_ms_per_s=ms_per_s), counters=Counters(row_lock_wait_ms=5_000))


def test_each_fresh_frame_adds_its_blocked_session_seconds() -> None:
    frames = [_frame(16_000.0), _frame(16_000.0, 2.5), _frame(None), _frame(9_000.0, stale=True),
              _frame(8_000.0, None), _frame(500.0)]
    assert [_row_lock_blocked_s(f) for f in frames] == [16.0, 40.0, 0.0, 0.0, 0.0, 0.5]
    total = sum(_row_lock_blocked_s(f) for f in frames)
    st = ServerState(name="db1:3306", frame=frames[-1], good=frames[-1], arrived=1.0, good_at=1.0,
                     row_lock_blocked_s=total)
    body = Exposition(lambda: [st], 1.0, clock=lambda: 1.0).render(None, openmetrics=False).decode()
    got = {s.name: s.value for fam in parse_text(body) for s in fam.samples}
    assert got["mysqltop_row_lock_blocked_seconds_total"] == 56.5
    assert got["mysqltop_row_lock_wait_seconds_total"] == 5.0          # the server's own, beside it
