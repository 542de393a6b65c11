"""The live session's sample ring: a store the timeline cursor reads exactly as a recording."""

from __future__ import annotations

from pathlib import Path

import pytest

from mysqltop.timeline.cursor import Cursor
from mysqltop.recording.format import KEYFRAME_EVERY
from mysqltop.timeline.ring import SampleRing
from mysqltop.recording.reader import RecordingReader

ROOT = Path(__file__).resolve().parents[2]
INCIDENT = ROOT / "mysqltop" / "data" / "incident.mtrec"


@pytest.fixture(scope="module")
def recorded() -> list:  # type: ignore[type-arg]
    with RecordingReader(INCIDENT) as r:
        return [r.sample(i) for i in range(len(r))]


def test_samples_come_back_as_held(recorded) -> None:  # type: ignore[no-untyped-def]
    ring = SampleRing(capacity=1000)
    for raw in recorded:
        ring.append(raw)
    assert (ring.first, len(ring)) == (0, len(recorded))
    for i in (0, 1, 19, 20, 21, 137, len(recorded) - 1, 5):      # any order: chains decode from a keyframe
        assert ring.sample(i) == recorded[i]
    t = recorded[100].wall
    assert ring.index_at(t) == 100 and ring.index_at(t + 0.001) == 100 and ring.index_at(0) == 0
    assert ring.time_or_none(100) == t and ring.time_or_none(len(recorded)) is None


def test_old_samples_drop_out_in_whole_keyframe_groups(recorded) -> None:  # type: ignore[no-untyped-def]
    ring = SampleRing(capacity=2 * KEYFRAME_EVERY)
    for raw in recorded[:100]:
        ring.append(raw)
    assert len(ring) == 100 and ring.held <= 2 * KEYFRAME_EVERY and ring.first % KEYFRAME_EVERY == 0 and ring.first > 0
    assert ring.sample(ring.first) == recorded[ring.first]      # the oldest held still decodes
    assert ring.sample(99) == recorded[99]
    with pytest.raises(IndexError):
        ring.sample(ring.first - 1)
    c = Cursor(ring)
    assert c.go(0) == ring.first                                 # a dropped index is clamped to the oldest
    assert c.step(-5) == ring.first and c.sample(ring.first - 1) is None


def test_the_cursor_gives_the_same_frames_from_the_ring_as_from_the_recording(recorded) -> None:  # type: ignore[no-untyped-def]
    ring = SampleRing(capacity=1000)
    for raw in recorded:
        ring.append(raw)
    with RecordingReader(INCIDENT) as r:
        from_file, from_ring = Cursor(r), Cursor(ring)
        for i in (200, 150, 151, 30, len(recorded) - 1):
            assert from_ring.frame_at(i).to_dict() == from_file.frame_at(i).to_dict()
        assert from_ring.seek(recorded[120].wall + 0.2) == from_file.seek(recorded[120].wall + 0.2) == 120


def test_the_ring_keeps_its_seconds_whatever_the_interval(recorded) -> None:  # type: ignore[no-untyped-def]
    """Time, not a count of samples: a faster interval holds more samples, the same seconds."""
    import dataclasses

    ring = SampleRing(seconds=100.0)
    t = 0.0
    for k in range(300):
        t += 1.0 if k < 150 else 0.25                  # `-` half way through
        ring.append(dataclasses.replace(recorded[k % len(recorded)], mono=t, wall=1e9 + t))
    kept = ring.time_or_none(len(ring) - 1) - ring.time_or_none(ring.first)   # type: ignore[operator]
    assert 100.0 <= kept < 100.0 + KEYFRAME_EVERY * 1.0     # dropped in whole keyframe groups
    assert ring.first > 0 and ring.first % KEYFRAME_EVERY == 0
