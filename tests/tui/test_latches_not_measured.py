"""performance_schema off or unreadable: the latch pane says nothing was measured and why, instead
of 'no latch waits in this interval'."""

from __future__ import annotations

from mysqltop.core.derive import derive
from mysqltop.core.parsed import parse_sample
from mysqltop.core.sample import RawSample
from mysqltop.views.tui.widgets.hotspots_pane import HotspotsPane


def _frames(**kw: object) -> list:
    a = RawSample(wall=1.0, mono=1.0, global_status={"Uptime": "10"}, **kw)  # type: ignore[arg-type]
    b = RawSample(wall=2.0, mono=2.0, global_status={"Uptime": "11"}, **kw)  # type: ignore[arg-type]
    first = parse_sample(a)
    return [derive(None, first), derive(first, parse_sample(b))]


def test_unreadable_performance_schema_names_the_grant() -> None:
    why = ("skipped: performance_schema is ON but not readable by 'mon'@'%': "
           "run GRANT SELECT ON performance_schema.* TO 'mon'@'%';")
    frame = _frames(errors={"ps_waits": why}, variables={"performance_schema": "ON"})[1]
    body = HotspotsPane(1).body(frame, [], 200).plain
    assert "latch waits are not measured" in body and "no latch waits in this interval" not in body
    assert "GRANT SELECT ON performance_schema.* TO 'mon'@'%'" in body
    assert "set performance_schema=ON" not in body


def test_performance_schema_off_says_so() -> None:
    frame = _frames(variables={"performance_schema": "OFF"})[1]
    body = HotspotsPane(1).body(frame, [], 200).plain
    assert "latch waits are not measured" in body and "performance_schema is OFF" in body
