"""PolledTimeline.push: parse once, derive against the previous good sample, hold the frames, judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.sample import RawSample


def held(p: PolledTimeline) -> list:  # type: ignore[type-arg]
    """The derived frames of the samples the timeline still holds, oldest first."""
    return [p.cursor.derived(i) for i in range(p.store.first, len(p.store))]


def raw(mono: float, commits: int, error: str | None = None) -> RawSample:
    return RawSample(wall=1_700_000_000.0 + mono, mono=mono, error=error, global_status={
        "Uptime": str(int(100 + mono)), "Com_commit": str(commits), "Com_rollback": "0",
        "Questions": str(commits * 4), "Threads_running": "3"})


def test_first_frame_has_null_rates_then_numbers() -> None:
    p = PolledTimeline()
    frames = [p.push(raw(t, 1000 + 250 * t)) for t in range(5)]
    assert frames[0].throughput.tps is None and frames[0].elapsed is None
    assert frames[0].throughput.threads_running == 3
    assert [f.throughput.tps for f in frames[1:]] == [250.0] * 4
    assert [f.throughput.qps for f in frames[1:]] == [1000.0] * 4
    assert [f.time for f in held(p)] == [f.time for f in frames]
    assert all(f.advice == [] for f in frames)


def test_stale_sample_keeps_the_previous_good_one_for_the_next_rate() -> None:
    p = PolledTimeline()
    p.push(raw(0, 1000))
    stale = p.push(raw(1, 0, error="timeout"))
    assert stale.stale and stale.throughput.tps is None and stale.errors["poll"] == "timeout"
    after = p.push(raw(3, 1600))                 # rate over the 3 s since the last good sample
    assert after.elapsed == 3 and after.throughput.tps == 200.0
    assert len(held(p)) == 3


def test_percona_series_through_the_pipeline() -> None:
    """Five pt-secure-collect captures (0, 30, 300, 330, 600 s): Δ trx id counter per Δt."""
    corpus = Path(__file__).parents[1] / "fixtures" / "corpus" / "innodb-status"
    names = ["13_24_55-innodbstatus1", "13_24_55-innodbstatus2", "13_29_55-innodbstatus1",
             "13_29_55-innodbstatus2", "13_34_55-innodbstatus1"]
    times = [0.0, 30.0, 300.0, 330.0, 600.0]
    trx = [0x55D015695, 0x55D016114, 0x55D01B7FF, 0x55D02054F, 0x55D025F9F]
    p = PolledTimeline()
    frames = [p.push(RawSample(wall=1_520_256_296.0 + t, mono=t, innodb_status=(
        corpus / f"percona-5.5__percona-toolkit__2018_03_05_{n}.txt").read_text())) for n, t in zip(names, times)]
    assert frames[0].throughput.write_trx_per_s is None
    for i in range(1, 5):
        assert frames[i].elapsed == times[i] - times[i - 1]
        expected = (trx[i] - trx[i - 1]) / 2 / (times[i] - times[i - 1])     # id + trx_no per write trx
        assert frames[i].throughput.write_trx_per_s == pytest.approx(expected)
        assert frames[i].flush.log_bytes_per_s is not None and frames[i].flush.log_bytes_per_s > 0
    assert all(not f.errors for f in frames)


def test_advice_every_judges_again_only_when_that_much_sample_time_passed(monkeypatch) -> None:
    from mysqltop.timeline import judge as judge_mod
    from mysqltop.core.frame import Advice

    judged: list[float] = []

    def fake_advise(window, variables, min_span_s=0.0):  # type: ignore[no-untyped-def]
        judged.append(window[-1].time)
        return [Advice(id=f"a{len(judged)}", severity="warning", message="m", evidence="e")]

    monkeypatch.setattr(judge_mod, "advise", fake_advise)
    p = PolledTimeline(advice_every_s=5.0)
    frames = [p.push(raw(t, 1000 + 10 * t)) for t in range(12)]
    t0 = frames[0].time
    assert [t - t0 for t in judged] == [0, 5, 10]                 # judged at 0 s, 5 s and 10 s only
    assert [f.advice[0].id for f in frames] == ["a1"] * 5 + ["a2"] * 5 + ["a3"] * 2   # carried in between
    every = PolledTimeline()                                       # the default: every frame
    for t in range(3):
        every.push(raw(t, 1000))
    assert len(judged) == 6


def test_the_frames_the_judge_reads_are_never_changed() -> None:
    """push hands out the frame with its findings as a new value: the derived frame stays bare."""
    from mysqltop.core.frame import Advice
    from mysqltop.timeline.judge import Judgement, compose

    p = PolledTimeline()
    shown = [p.push(raw(t, 1000 + 10 * t)) for t in range(3)]
    bare = held(p)
    assert all(h is not s for h, s in zip(bare, shown))
    finding = Advice(id="x", severity="warning", message="m", evidence="e")
    composed = compose(bare[-1], Judgement((finding,), "RuntimeError: boom"))
    assert composed.advice == [finding] and composed.errors["advice"] == "RuntimeError: boom"
    assert bare[-1].advice == [] and "advice" not in bare[-1].errors


def test_samples_older_than_the_longest_span_are_let_go() -> None:
    from mysqltop.core.advice import HORIZON_S

    p = PolledTimeline()
    for t in range(int(HORIZON_S) * 3):
        p.push(raw(t, 1000 + 10 * t))
    times = [f.time for f in held(p)]
    assert times[-1] - times[0] <= HORIZON_S + 1.0 and len(times) >= HORIZON_S
    assert p.store.first > 0 and min(p.cursor._derived) >= p.store.first     # their frames went with them
