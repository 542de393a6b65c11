"""`record`'s stderr lines about an outage (commands/record.py OutageNotes), on made-up frames."""

from __future__ import annotations

import time

from mysqltop.views.outage import OutageNotes, _clock
from mysqltop.core.frame import Frame
from tests.support.outage_frames import T0, fresh as _fresh, stale as _stale


def _told(*frames: Frame) -> list[str]:
    """The lines OutageNotes says over these frames, in order."""
    said: list[str] = []
    notes = OutageNotes(said.append)
    for frame in frames:
        notes.frame(frame)
    return said


def test_a_freeze_is_one_line_down_and_one_line_back_without_restart() -> None:
    said: list[str] = []
    notes = OutageNotes(said.append)
    notes.frame(_fresh(0, 100))
    notes.frame(_stale(1, "waiting", "waiting for the server's answer for 1.0 s"))   # late, not down
    assert said == []
    for t in (5, 6, 7):
        notes.frame(_stale(t, "timeout", "no answer for 5.0 s"))
    notes.frame(_fresh(9, 109))
    assert said == [
        f"{_clock(T0 + 5)} no data from the server: no answer for 5.0 s — still recording (host counters only), "
        "still waiting for its answer",
        f"{_clock(T0 + 9)} the server answers again after 9.0s (3 samples without its data)",
    ]


def test_a_restart_is_named_and_hostile_error_text_is_made_visible() -> None:
    said = _told(_fresh(0, 5000), _stale(1, "lost", "poll failed: \x1b[2Jgone"), _fresh(3, 0),
                 _fresh(4, 1))                       # no second "back" line
    assert said == [
        f"{_clock(T0 + 1)} no data from the server: poll failed: \\x1b[2Jgone — still recording (host counters "
        "only), reconnecting",
        f"{_clock(T0 + 3)} the server answers again after 3.0s (1 sample without its data); it restarted (up <1s)",
    ]
    assert _clock(T0) == time.strftime("%H:%M:%S", time.localtime(T0))


def test_a_server_down_longer_than_it_had_been_up_is_seen_to_restart() -> None:
    """Up 2 s, killed, back 6 s later with Uptime 3: its Uptime did not go back, its start did."""
    said = _told(_fresh(0, 2), *(_stale(t, "unreachable", "poll failed: cannot connect") for t in range(1, 6)),
                 _fresh(6, 3))
    assert said[-1].endswith("; it restarted (up 3.0s)"), said


def test_a_steady_uptime_is_no_restart_whatever_the_outage() -> None:
    """A frozen server (SIGSTOP) keeps counting: Uptime grows by the outage, no restart."""
    said = _told(_fresh(0, 100), *(_stale(t, "timeout", "no answer") for t in range(1, 9)), _fresh(9, 109),
                 _fresh(10, 109))                    # whole seconds: the same Uptime a second later
    assert "restarted" not in " ".join(said), said
