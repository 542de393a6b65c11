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


def _status_poll(plan: StatementPlan, mono: float, commits: int, took: float) -> RawSample:
    """One poll at `mono` of a server that has committed `commits` transactions so far, whose
    SHOW GLOBAL STATUS takes `took` seconds."""
    from mysqltop.sources.poll_statements import K_GSTATUS, Poll

    stmts = dict(plan.statements(mono))
    poll = Poll()
    if K_GSTATUS in stmts:
        poll.values[K_GSTATUS] = [("Uptime", str(100 + int(mono))), ("Com_commit", str(commits)),
                                  ("Questions", str(3 * commits))]
        plan._paced(K_GSTATUS, poll.values[K_GSTATUS], took)
    v = plan.values(poll)
    extra = plan.status_summary(poll)
    read_at = {**{k: [c[1], c[2]] for k, c in plan.carried.items()}, **extra.get("read_at", {})} or None
    return RawSample(wall=1_000.0 + mono, mono=mono, global_status={str(k): str(x) for k, x in v[K_GSTATUS]},
                     global_status_before=extra.get("global_status_before"), read_at=read_at,
                     timings_ms={k: 1.0 for k in stmts if k not in plan.carried})


def test_a_costly_global_status_is_paced_and_its_rates_stay_exact() -> None:
    """SHOW GLOBAL STATUS costing 200 ms a read (thousands of sessions) is read every 10 s; every
    frame between shows the exact average rate over the real span between its last two reads."""
    from mysqltop.sources.poll_statements import K_GSTATUS

    plan = StatementPlan(caps())
    samples = [_status_poll(plan, float(k), 40 * k, 0.2) for k in range(25)]
    read = [k for k, s in enumerate(samples) if "global_status" not in (s.read_at or {})]
    assert read[:2] == [0, 1] and len(read) < 6, read           # paced after two dear reads
    assert K_GSTATUS in {k for k, _ in plan.statements(100.0)}     # and read again when due
    for prev, cur in zip(samples[1:], samples[2:]):
        frame = derive(parse_sample(prev), parse_sample(cur))
        assert frame.throughput.commits_per_s == pytest.approx(40.0), (cur.mono, cur.read_at)
        assert any("SHOW GLOBAL STATUS is read every" in n for n in frame.notes)


def test_a_cheap_global_status_is_read_every_poll() -> None:
    plan = StatementPlan(caps())
    samples = [_status_poll(plan, float(k), 40 * k, 0.001) for k in range(5)]
    assert all(s.read_at is None and s.global_status_before is None for s in samples)
    frame = derive(parse_sample(samples[3]), parse_sample(samples[4]))
    assert frame.throughput.commits_per_s == pytest.approx(40.0)
    assert not any("GLOBAL STATUS" in n for n in frame.notes)
