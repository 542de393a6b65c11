"""The report lists when the server gave no data and when it restarted (text, Markdown, JSON):
before, it only counted stale frames and noted "server restarted" without a time."""

from __future__ import annotations

from mysqltop.core.report_builder import ReportBuilder
from mysqltop.views.report_text import render
from tests.support.outage_frames import T0, fresh as _fresh, stale as _stale


def _report():  # type: ignore[no-untyped-def]
    b = ReportBuilder()
    frames = [_fresh(0, 100), _fresh(1, 101),
              _stale(2, "waiting", "waiting for the server's answer for 1.0 s"),     # late: not an outage
              _fresh(3, 103),
              _stale(4, "lost", "poll failed: Lost connection"), _stale(5, "unreachable", "refused"),
              _stale(6, "unreachable", "refused"),
              _fresh(7, 2), _fresh(8, 3),
              _stale(9, "timeout", "no answer for 5.0 s"), _fresh(10, 5)]
    for f in frames:
        b.add(f)
    return b.build()


def test_outages_and_restarts_are_listed_with_their_times() -> None:
    r = _report()
    assert [(o.start - T0, o.end - T0, o.frames, o.why, o.failure) for o in r.outages] == [
        (4.0, 6.0, 3, "poll failed: Lost connection", "lost"),
        (9.0, 9.0, 1, "no answer for 5.0 s", "timeout"),
    ]
    assert [t - T0 for t in r.restarts] == [5.0]
    d = r.to_dict()
    assert d["outages"][0] == {"start": "2027-01-15T08:00:04.000Z", "end": "2027-01-15T08:00:06.000Z",
                               "frames": 3, "why": "poll failed: Lost connection", "failure": "lost"}
    assert d["restarts"] == ["2027-01-15T08:00:05.000Z"]


def test_text_report_has_an_outages_block() -> None:
    out = render(_report(), "text")
    block = out.split("SERVER OUTAGES (NO DATA FROM THE SERVER) AND RESTARTS\n", 1)[1].split("\n\n", 1)[0]
    assert block.splitlines() == [
        "  08:00:04–08:00:06 UTC: no data in 3 sample(s): poll failed: Lost connection",
        "  08:00:09 UTC: no data in 1 sample(s): no answer for 5.0 s",
        "  restarted at about 08:00:05 UTC (the start its Uptime gives)",
    ]
