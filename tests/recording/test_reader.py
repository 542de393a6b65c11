"""Reader API: seek by time, pair, bookmarks, refresh while a writer appends, ReplaySource ranges."""

from __future__ import annotations

import pytest

from mysqltop.errors import UserError
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter
from mysqltop.sources.replay_source import ReplaySource
from tests.recording.synthetic import series

START = 1_763_776_800.0


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("rec") / "r.mtrec"
    samples = series(130, start=START)
    with RecordingWriter(path, interval=1.0, keyframe_every=30) as w:
        for i, s in enumerate(samples):
            w.append(s)
            if i == 70:
                w.bookmark(s.wall, "throughput.threads_running>32", 40.0)
    return path, samples


def test_seek_by_time_and_index(recorded) -> None:  # type: ignore[no-untyped-def]
    path, samples = recorded
    with RecordingReader(path) as r:
        assert len(r) == 130
        assert r.time_at(64) == samples[64].wall
        assert r.index_at(samples[64].wall) == 64
        assert r.index_at(samples[64].wall + 0.5) == 64          # last sample at or before t
        assert r.index_at(START - 100) == 0
        assert r.index_at(START + 10_000) == 129
        assert r.first_at_or_after(samples[64].wall + 0.5) == 65
        # random access in any order decodes through keyframes and the cache
        for i in (129, 3, 64, 63, 31, 30, 29, 100, 0):
            assert r.sample(i) == samples[i], i
        with pytest.raises(IndexError):
            r.sample(130)


def test_pair_gives_the_previous_sample(recorded) -> None:  # type: ignore[no-untyped-def]
    path, samples = recorded
    with RecordingReader(path) as r:
        assert r.pair(0) == (None, samples[0])
        assert r.pair(90) == (samples[89], samples[90])
        assert r.pair(60) == (samples[59], samples[60])        # across a keyframe


def test_bookmarks(recorded) -> None:  # type: ignore[no-untyped-def]
    path, samples = recorded
    with RecordingReader(path) as r:
        (b,) = r.bookmarks
        assert (b.index, b.time, b.trigger, b.value) == (70, samples[70].wall, "throughput.threads_running>32", 40.0)


def test_reader_sees_samples_of_a_live_writer(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "live.mtrec"
    samples = series(12)
    w = RecordingWriter(path, interval=1.0)
    try:
        for s in samples[:5]:
            w.append(s)
        r = RecordingReader(path)
        assert len(r) == 5 and r.sample(4) == samples[4]
        for s in samples[5:]:
            w.append(s)
        assert len(r) == 5                     # until refresh()
        assert r.refresh() == 12
        assert r.sample(11) == samples[11] and r.meta.end == samples[11].wall
        r.close()
    finally:
        w.close()


def test_replay_source_range_and_primer(recorded) -> None:  # type: ignore[no-untyped-def]
    path, samples = recorded
    src = ReplaySource(path, start=samples[100].wall - 0.2, end="end")
    assert src.primer == samples[99]
    got = []
    while (raw := src.read()) is not None:
        got.append(raw)
    src.close()
    assert got == samples[100:]
    src = ReplaySource(path, start="+10s", end="+20s")
    n = 0
    first = src.read()
    while src.read() is not None:
        n += 1
    t0 = samples[0].wall
    assert first is not None and t0 + 10 <= first.wall < t0 + 11 and 9 <= n <= 10
    src.close()


@pytest.mark.parametrize("start, end, words", [
    ("+300s", None, "no samples"),
    ("-1s", "+1s", "no samples"),
    ("yesterday", None, "--start: bad time"),
    (None, "12:99", "--end: bad clock time"),
])
def test_replay_source_bad_ranges(recorded, start, end, words) -> None:  # type: ignore[no-untyped-def]
    path, _ = recorded
    with pytest.raises(UserError) as exc:
        ReplaySource(path, start=start, end=end)
    assert words in exc.value.message and exc.value.code == 2
