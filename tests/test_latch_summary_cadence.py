"""The latch summary (the dearest read of a poll) is read at the first two polls, then every
PS_SUMMARY_EVERY_S; the polls between carry its last two reads, and the frames' latch rates are the
exact averages over the real span between those reads."""

from __future__ import annotations

import pytest

from mysqltop.core.derive import derive
from mysqltop.core.hotspots import PS_SUMMARY_EVERY_S
from mysqltop.core.parsed import parse_sample
from mysqltop.core.sample import RawSample
from mysqltop.sources.poll_statements import K_PS, StatementPlan
from tests.test_poll_rows import caps

LATCH = "wait/synch/mutex/innodb/lock_mutex"


def _poll(plan: StatementPlan, mono: float, waits: int) -> RawSample:
    """One poll at `mono` of a server whose latch has waited `waits` times (10 µs each) so far."""
    asked = K_PS in dict(plan.statements(mono))
    rows = [[LATCH, waits, waits * 10**7]] if asked else None
    f = plan.latch_summary(rows, 0.001 if asked else None, 1_000.0 + mono)
    return RawSample(wall=1_000.0 + mono, mono=mono, ps_waits=f.get("ps_waits"), ps_waits_before=f.get("ps_waits_before"),
                     read_at=f.get("read_at"), global_status={"Uptime": str(100 + int(mono))})


def test_read_twice_then_every_few_seconds_with_exact_rates_between() -> None:
    plan = StatementPlan(caps())
    rate = 500                                 # waits a second, steadily
    samples, asked = [], []
    for k in range(10):
        raw = _poll(plan, float(k), rate * k)
        samples.append(raw)
        asked.append(raw.read_at is None or "ps_waits" not in raw.read_at)
    assert asked[:2] == [True, True]
    reads = [k for k, a in enumerate(asked) if a]
    assert all(b - a == PS_SUMMARY_EVERY_S for a, b in zip(reads[1:], reads[2:])), reads
    assert sum(asked) <= 2 + 10 / PS_SUMMARY_EVERY_S
    for prev, cur in zip(samples, samples[1:]):
        frame = derive(parse_sample(prev), parse_sample(cur))
        (hot,) = [h for h in frame.hotspots if h.source == "performance_schema"]
        assert hot.waits_per_s == pytest.approx(rate)           # never 0 between reads, never a jump
        assert hot.wait_ms_per_s == pytest.approx(rate * 0.01)
        assert not any("costly" in n for n in frame.notes)      # the routine cadence is no news


def test_a_dear_read_still_slows_further() -> None:
    plan = StatementPlan(caps())
    plan.statements(0.0)
    plan.latch_summary([[LATCH, 1, 1]], 0.4, 1_000.0)
    plan.statements(1.0)
    plan.latch_summary([[LATCH, 2, 2]], 0.4, 1_001.0)           # 400 ms a read, twice: every 20 s
    assert K_PS not in dict(plan.statements(10.0))
    assert K_PS in dict(plan.statements(21.0))
