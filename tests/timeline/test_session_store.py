"""The live session's whole timeline: the ring for the newest samples, the recordings made during
the session for older ones, under the session's own indexes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from mysqltop.core.sample import RawSample
from mysqltop.errors import UserError
from mysqltop.timeline.cursor import Cursor
from mysqltop.recording.format import KEYFRAME_EVERY
from mysqltop.timeline.ring import SampleRing
from mysqltop.recording.reader import RecordingReader
from mysqltop.timeline.session_store import SessionStore
from mysqltop.recording.writer import RecordingWriter

ROOT = Path(__file__).resolve().parents[2]
INCIDENT = ROOT / "mysqltop" / "data" / "incident.mtrec"
RING = 2 * KEYFRAME_EVERY          # the smallest ring: holds 21..40 samples


@pytest.fixture(scope="module")
def polls() -> list[RawSample]:
    """400 real samples (the incident's, over and over), 1 s apart, as a session polls them."""
    with RecordingReader(INCIDENT) as r:
        real = [r.sample(i) for i in range(len(r))]
    return [dataclasses.replace(real[i % len(real)], wall=1_800_000_000.0 + i, mono=5_000.0 + i) for i in range(400)]


class Session:
    """What the engine and the live feed do: each poll goes to the recorder (when recording),
    then to the ring; the store is told when recording starts and stops."""

    def __init__(self, polls: list[RawSample]) -> None:
        self.polls = polls
        self.ring = SampleRing(capacity=RING)
        self.store = SessionStore(self.ring)
        self.writer: RecordingWriter | None = None

    def poll(self, n: int, *, recorder_fails: bool = False) -> None:
        for _ in range(n):
            raw = self.polls[len(self.ring)]
            if self.writer is not None and not recorder_fails:
                self.writer.append(raw)
            self.ring.append(raw)

    def record(self, path: Path) -> None:
        self.writer = RecordingWriter(path, interval=1.0)
        self.store.recording_started(path)

    def stop(self, *, failed: bool = False) -> None:
        assert self.writer is not None
        self.store.recording_ended(len(self.ring) - 1 if failed else len(self.ring))
        self.writer.close()
        self.writer = None


def same(store: SessionStore, polls: list[RawSample], i: int) -> bool:
    return store.sample(i) == polls[i] and store.time_or_none(i) == polls[i].wall


def test_recorded_from_the_first_poll_every_sample_reads_back(polls, tmp_path) -> None:  # type: ignore[no-untyped-def]
    s = Session(polls)
    s.record(tmp_path / "live.mtrec")
    s.poll(200)
    store, ring = s.store, s.ring
    assert ring.first > 150 and (store.first, len(store)) == (0, 200) and store.recorded
    for i in (0, 1, 19, 20, ring.first - 1, ring.first, 199, 57):         # either side of the seam
        assert same(store, polls, i), i
    # by time, across the seam and at the ends
    assert [store.index_at(polls[i].wall + 0.5) for i in (0, 42, ring.first - 1, ring.first, 199)] == \
        [0, 42, ring.first - 1, ring.first, 199]
    assert store.index_at(polls[0].wall - 60) == 0
    # the cursor over it gives the frames a cursor over the recording gives, at the same indexes
    with RecordingReader(tmp_path / "live.mtrec") as r:
        from_file, live = Cursor(r), Cursor(store)
        for i in (199, ring.first, ring.first - 1, ring.first - 3, 30):
            assert live.frame_at(i).to_dict() == from_file.frame_at(i).to_dict(), i
        assert live.seek(polls[100].wall + 0.2) == 100 and live.step(-100) == 0 and live.step(-1) == 0
    s.stop()


def test_appended_file_and_recording_started_mid_session(polls, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "appended.mtrec"
    with RecordingWriter(path, interval=1.0) as w:          # a file that already held samples
        for raw in polls[300:330]:
            w.append(dataclasses.replace(raw, wall=raw.wall - 86_400))
    s = Session(polls)
    s.poll(100)                                             # not recorded: gone once out of the ring
    s.record(path)
    s.poll(150)
    store, ring = s.store, s.ring
    assert ring.first > 100 and store.first == 100 and len(store) == 250
    for i in (100, 101, 139, ring.first - 1, ring.first, 249):
        assert same(store, polls, i), i
    with pytest.raises(UserError, match="not recorded"):
        store.sample(99)
    assert store.time_or_none(99) is None and Cursor(store).go(0) == 100
    # the file's segments are made continuous on read; the session's own Δt is kept at the seam
    assert store.sample(ring.first).mono - store.sample(ring.first - 1).mono == 1.0
    assert store.index_at(polls[0].wall) == 100 and store.index_at(polls[120].wall) == 120
    s.stop()


def test_what_was_recorded_stays_readable_after_recording_stopped(polls, tmp_path) -> None:  # type: ignore[no-untyped-def]
    s = Session(polls)
    s.record(tmp_path / "a.mtrec")
    s.poll(60)
    s.stop()                                                # `r` off: 0..59 recorded
    s.poll(100)                                             # 60..159 in memory only, then gone
    s.record(tmp_path / "b.mtrec")
    s.poll(50)                                              # 160..209 recorded
    s.poll(1, recorder_fails=True)
    s.stop(failed=True)                                     # the disk filled at 210: 160..209 kept
    s.poll(102)
    store, ring = s.store, s.ring
    assert ring.first > 260 and store.first == 0 and len(store) == 313
    for i in (0, 59, 160, 209, ring.first, 312):
        assert same(store, polls, i), i
    for i in (60, 159, 210, 211):                           # polled while nothing recorded
        assert store.time_or_none(i) is None
        with pytest.raises(UserError):
            store.sample(i)
    c = Cursor(store)
    c.go(209)
    assert c.step(1) == ring.first and c.step(-1) == 209 and c.step(-1) == 208
    c.go(160)
    assert c.step(-1) == 59                                 # the cursor steps over what nothing holds
    assert store.index_at(polls[100].wall) == 59 and store.index_at(polls[185].wall) == 185
    assert store.index_at(polls[230].wall) == 209


def test_an_unreadable_or_replaced_recording_costs_the_old_samples_only(polls, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "gone.mtrec"
    s = Session(polls)
    s.record(path)
    s.poll(100)
    s.stop()
    s.poll(20)
    store, ring = s.store, s.ring
    assert store.first == 0
    path.write_bytes(b"not a recording, whatever it was" * 100)
    with pytest.raises(UserError, match="cannot be read"):
        store.sample(5)
    assert store.first == ring.first and not store.recorded          # falls back to the ring
    assert same(store, polls, ring.first) and Cursor(store).go(0) == ring.first
    # replaced by another recording: its times are not the session's, so none of it is shown
    s2 = Session(polls)
    s2.record(tmp_path / "replaced.mtrec")
    s2.poll(100)
    s2.stop()
    s2.poll(20)
    (tmp_path / "replaced.mtrec").unlink()
    with RecordingWriter(tmp_path / "replaced.mtrec", interval=1.0) as w:
        for raw in polls[200:300]:
            w.append(raw)
    with pytest.raises(UserError, match="no longer holds"):
        s2.store.sample(5)
    assert s2.store.first == s2.ring.first and s2.store.time_or_none(5) is None


def test_readers_are_closed_before_the_recording_is(polls, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A reader still open when the recorder closes leaves FILE-wal beside FILE."""
    path = tmp_path / "clean.mtrec"
    s = Session(polls)
    s.record(path)
    s.poll(80)
    assert same(s.store, polls, 3)                          # a reader is open now
    s.stop()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clean.mtrec"]
    assert same(s.store, polls, 3)                          # opened again when asked
    s.store.release()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clean.mtrec"]
