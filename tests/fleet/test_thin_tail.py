"""A fleet member's timeline over ThinTail (raw samples let go once derived) gives the very same
frames and findings as over SampleTail (every raw sample of the judge's five minutes), through
outages; and the overview's frames without latch counters differ only by those."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from mysqltop.core.advice import HORIZON_S
from mysqltop.core.frame import Frame
from mysqltop.core.sample import Failure, RawSample
from mysqltop.fleet import ADVICE_EVERY_S
from mysqltop.recording.reader import RecordingReader
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.timeline.sample_tail import SampleTail
from mysqltop.timeline.thin_tail import ThinTail

ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = [ROOT / "mysqltop" / "data" / "incident.mtrec", ROOT / "recordings" / "row-lock-idle-trx.mtrec"]


def samples(path: Path) -> list[RawSample]:
    reader = RecordingReader(path)
    try:
        return [reader.sample(i) for i in range(reader.first, len(reader))]
    finally:
        reader.close()


def with_outages(raws: list[RawSample]) -> list[RawSample]:
    """Every 37th sample a timeout, and a run of 12 in the middle (the next good frame's rates
    reach back past the raw samples kept whole)."""
    mid = len(raws) // 2
    return [dataclasses.replace(r, error="timed out", failure=Failure.TIMEOUT)
            if i % 37 == 5 or mid <= i < mid + 12 else r for i, r in enumerate(raws)]


def frames(raws: list[RawSample], timeline: PolledTimeline) -> list[Frame]:
    timeline.set_interval(1.0)
    return [timeline.push(r) for r in raws]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_thin_tail_gives_the_same_frames_and_findings(path: Path) -> None:
    raws = with_outages(samples(path))
    full = frames(raws, PolledTimeline(SampleTail(HORIZON_S + 1.0), advice_every_s=ADVICE_EVERY_S))
    thin_timeline = PolledTimeline(ThinTail(HORIZON_S + 1.0), advice_every_s=ADVICE_EVERY_S)
    thin = frames(raws, thin_timeline)
    assert any(f.advice for f in full) and any(f.stale for f in full)
    assert thin == full
    store = thin_timeline.store
    held = sum(1 for i in range(store.first, len(store)) if thin_timeline.cursor.sample(i) is not None)
    assert held <= 8 < len(store) - store.first          # the window's times, a few raw samples


def test_frames_without_latch_counters_differ_only_by_them() -> None:
    raws = samples(RECORDINGS[0])[:120]
    full = frames(raws, PolledTimeline(ThinTail(HORIZON_S + 1.0), advice_every_s=ADVICE_EVERY_S))
    bare = frames(raws, PolledTimeline(ThinTail(HORIZON_S + 1.0), advice_every_s=ADVICE_EVERY_S, counters=False))
    assert any(f.latch_counters for f in full) and not any(f.latch_counters for f in bare)
    assert bare == [dataclasses.replace(f, latch_counters=[]) for f in full]
