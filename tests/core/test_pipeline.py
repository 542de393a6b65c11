"""FramePipeline.push: parse once, derive against the previous good sample, keep a window, advise."""

from __future__ import annotations

from mysqltop.core.pipeline import FramePipeline
from mysqltop.core.sample import RawSample


def raw(mono: float, commits: int, error: str | None = None) -> RawSample:
    return RawSample(wall=1_700_000_000.0 + mono, mono=mono, error=error, global_status={
        "Uptime": str(int(100 + mono)), "Com_commit": str(commits), "Com_rollback": "0",
        "Questions": str(commits * 4), "Threads_running": "3"})


def test_first_frame_has_null_rates_then_numbers() -> None:
    p = FramePipeline(window=3)
    frames = [p.push(raw(t, 1000 + 250 * t)) for t in range(5)]
    assert frames[0].throughput.tps is None and frames[0].elapsed is None
    assert frames[0].throughput.threads_running == 3
    assert [f.throughput.tps for f in frames[1:]] == [250.0] * 4
    assert [f.throughput.qps for f in frames[1:]] == [1000.0] * 4
    assert p.window == frames[-3:]
    assert all(f.advice == [] or isinstance(f.advice, list) for f in frames)


def test_stale_sample_keeps_the_previous_good_one_for_the_next_rate() -> None:
    p = FramePipeline()
    p.push(raw(0, 1000))
    stale = p.push(raw(1, 0, error="timeout"))
    assert stale.stale and stale.throughput.tps is None and stale.errors["poll"] == "timeout"
    after = p.push(raw(3, 1600))                 # rate over the 3 s since the last good sample
    assert after.elapsed == 3 and after.throughput.tps == 200.0
    assert len(p.window) == 3


def test_reset_forgets_the_previous_sample() -> None:
    p = FramePipeline()
    p.push(raw(0, 1000))
    p.reset()
    assert p.window == [] and p.push(raw(1, 1100)).throughput.tps is None
