"""The latch summary read at a slower cadence (its cost): the samples between reads carry the last
two reads, and every frame's latch rates come from those two, marked as a span and dated."""

from __future__ import annotations

from mysqltop.core.derive import derive
from mysqltop.core.parsed import parse_sample
from mysqltop.core.sample import RawSample

LATCH = "wait/synch/mutex/innodb/lock_mutex"


def _raw(mono: float, rows: list[list[object]] | None, before: list[list[object]] | None = None,
         read_at: dict[str, list[float]] | None = None) -> RawSample:
    return RawSample(wall=1_000.0 + mono, mono=mono, ps_waits=rows, ps_waits_before=before, read_at=read_at,
                     global_status={"Uptime": str(int(mono) + 100)})


def test_rates_over_the_last_two_reads_in_every_frame_between_reads() -> None:
    r0 = [[LATCH, 100, 10**9]]
    r1 = [[LATCH, 1100, 11 * 10**9]]                        # 1,000 waits and 10 ms over the 10 s between reads
    read_now = _raw(10.0, r1, before=r0, read_at={"ps_waits_before": [1_000.0, 0.0]})
    carried = _raw(11.0, r1, before=r0, read_at={"ps_waits": [1_010.0, 10.0], "ps_waits_before": [1_000.0, 0.0]})
    for prev, cur in ((None, read_now), (read_now, carried)):
        frame = derive(parse_sample(prev) if prev else None, parse_sample(cur))
        (hot,) = [h for h in frame.hotspots if h.source == "performance_schema"]
        assert hot.waits_per_s == 100.0 and hot.span_s == 10.0
        assert frame.read_at["ps_waits"] == 1_010.0
        assert any("read every 10 s" in n for n in frame.notes)


def test_carried_rows_are_never_diffed_as_if_read_again() -> None:
    """A sample carrying the read its predecessor holds: no zero rates, no rates at all without a
    second read."""
    r0 = [[LATCH, 100, 10**9]]
    first = _raw(0.0, r0)
    carried = _raw(1.0, r0, read_at={"ps_waits": [1_000.0, 0.0]})
    frame = derive(parse_sample(first), parse_sample(carried))
    assert [h for h in frame.hotspots if h.source == "performance_schema"] == []
