"""Incident capture (ring + windows + bookmarks, merging) and rotation (--max-size/--keep)."""

from __future__ import annotations

import dataclasses

from mysqltop.core.frame import Frame, Throughput
from mysqltop.core.trigger import parse_trigger
from mysqltop.recording.capture import IncidentRecorder
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.rotate import RotatingWriter
from mysqltop.recording.writer import RecordingWriter
from tests.recording.synthetic import series

START = 1_763_776_800.0


def _run(tmp_path, running: list[int], before: float = 5, after: float = 3):  # type: ignore[no-untyped-def]
    """Feed samples whose threads_running is `running[i]`; trigger `>10`."""
    samples = [dataclasses.replace(s, wall=START + i, mono=1000.0 + i)
               for i, s in enumerate(series(len(running), start=START))]
    by_wall = {s.wall: r for s, r in zip(samples, running)}
    path = tmp_path / "inc.mtrec"
    rec = IncidentRecorder(RecordingWriter(path, interval=1.0, trigger="t"), parse_trigger("throughput.threads_running>10"),
                           before=before, after=after)
    for s in samples:
        rec.append(s, Frame(time=s.wall, throughput=Throughput(threads_running=by_wall[s.wall])))
    rec.close()
    return path, samples


def test_window_holds_before_and_after_with_a_bookmark(tmp_path) -> None:  # type: ignore[no-untyped-def]
    running = [1] * 20 + [20, 20] + [1] * 20
    path, samples = _run(tmp_path, running)
    with RecordingReader(path) as r:
        walls = [r.time_at(i) for i in range(len(r))]
        # before: 5 s of history (15..19), the two firing samples (20, 21), after: 3 s past 21
        assert walls == [START + i for i in range(15, 25)]
        (b,) = r.bookmarks
        assert (b.time, b.value, b.trigger, r.time_at(b.index)) == (START + 20, 20.0, "throughput.threads_running>10", START + 20)
        assert r.sample(5) == samples[20]


def test_overlapping_windows_merge_and_separate_ones_split(tmp_path) -> None:  # type: ignore[no-untyped-def]
    running = [1] * 10 + [20] + [1] * 5 + [20] + [1] * 30 + [20] + [1] * 10
    #           0-9      10     11-15     16     17-46      47     48-57
    path, _ = _run(tmp_path, running)
    with RecordingReader(path) as r:
        secs = [round(r.time_at(i) - START) for i in range(len(r))]
        # 5..19 (window 10 + window 16 merged: no gap), then 42..50 for the trigger at 47
        assert secs == list(range(5, 20)) + list(range(42, 51))
        assert r.segment_starts == [0, 15]
        assert r.pair(15)[0] is None                # no rates across the gap
        assert [round(b.time - START) for b in r.bookmarks] == [10, 16, 47]


def test_sustained_trigger_extends_the_window_with_one_bookmark(tmp_path) -> None:  # type: ignore[no-untyped-def]
    running = [1] * 8 + [20] * 10 + [1] * 10
    path, _ = _run(tmp_path, running, before=2, after=2)
    with RecordingReader(path) as r:
        secs = [round(r.time_at(i) - START) for i in range(len(r))]
        assert secs == list(range(6, 20))
        assert len(r.bookmarks) == 1


def test_no_trigger_no_samples(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path, _ = _run(tmp_path, [1] * 30)
    with RecordingReader(path) as r:
        assert len(r) == 0 and r.bookmarks == []


def test_rotation_bounds_the_disk(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "rot.mtrec"
    w = RotatingWriter(path, max_size=64 * 1024, keep=2, interval=1.0)
    samples = series(150)
    for s in samples:
        w.append(s)
    w.close()
    assert w.rotations >= 3
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["rot.mtrec", "rot.mtrec.1", "rot.mtrec.2"]
    total = 0
    for name in files:
        with RecordingReader(tmp_path / name) as r:
            total += len(r)
            assert r.sample(len(r) - 1) in samples
    # the newest samples are in FILE, the older ones in FILE.1, FILE.2; the oldest were dropped
    with RecordingReader(path) as r:
        assert r.sample(len(r) - 1) == samples[-1]
    with RecordingReader(tmp_path / "rot.mtrec.1") as r1, RecordingReader(path) as r0:
        assert r1.sample(len(r1) - 1).wall < r0.sample(0).wall
    assert total < 150
    # 64 KB is less than a recording's fixed pages (a page per table and index): a file ends at
    # most one sample past them
    with RecordingWriter(tmp_path / "one.mtrec", interval=1.0) as one:
        one.append(samples[0])
    fixed = (tmp_path / "one.mtrec").stat().st_size
    for name in files:
        assert (tmp_path / name).stat().st_size < max(64 * 1024, fixed) + 40 * 1024


ROTATING_WRITER = """
import sys, time
from mysqltop.recording.rotate import RotatingWriter
from tests.recording.synthetic import series
w = RotatingWriter(sys.argv[1], max_size=192 * 1024, keep=3, interval=0.05)
for s in series(int(sys.argv[2])):
    w.append(s)
    time.sleep(0.005)
w.close()
print(w.rotations, flush=True)
"""


def test_max_size_bounds_the_disk_and_a_follower_never_sees_damage_or_time_going_back(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """--max-size 1M --keep 3 kept 223 of 400 samples in closed files of 90 KB (the -wal was
    counted); a reader following the live file saw 'damaged sample (trailing data)' and time
    going backwards."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    from mysqltop.errors import UserError

    root = Path(__file__).resolve().parents[2]
    path = tmp_path / "live.mtrec"
    n = 700
    proc = subprocess.Popen([sys.executable, "-c", ROTATING_WRITER, str(path), str(n)], cwd=root,
                            stdout=subprocess.PIPE, text=True)
    seen: list[float] = []
    reader = None
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if reader is None:
            try:
                reader = RecordingReader(path)
            except UserError:          # between the rename and the new file's first sample
                if proc.poll() is not None:
                    break
                time.sleep(0.01)
                continue
            got = 0
        got_len = reader.refresh()
        while got < got_len:
            seen.append(reader.sample(got).wall)       # never DamagedSample
            got += 1
        if reader.rotated:                             # finished file: follow the new one
            reader.close()
            reader = None
            continue
        if proc.poll() is not None and reader.refresh() == got:
            break
        time.sleep(0.01)
    if reader is not None:
        reader.close()
    assert proc.wait(timeout=60) == 0
    rotations = int(proc.stdout.read())  # type: ignore[union-attr]
    assert rotations >= 3
    assert all(b > a for a, b in zip(seen, seen[1:])), "time went backwards"
    assert len(seen) > n / 2
    every = list(tmp_path.iterdir())
    files = sorted(p for p in every if not p.name.endswith(("-wal", "-shm")))
    assert [p.name for p in files] == ["live.mtrec", "live.mtrec.1", "live.mtrec.2", "live.mtrec.3"]
    # -wal/-shm left by the follower's read-only connections moved with their files: the new
    # FILE started clean; together they stay near the bound
    assert sum(p.stat().st_size for p in every) <= 4 * 192 * 1024 + 4 * (256 + 64) * 1024, \
        sorted((p.name, p.stat().st_size) for p in every)
    for p in files[1:]:                                    # closed files hold what was promised
        assert 0.85 * 192 * 1024 <= p.stat().st_size <= 192 * 1024 + 16 * 1024
    kept = 0
    for p in files:
        with RecordingReader(p) as r:
            kept += len(r)
    per = sum(p.stat().st_size for p in files[1:]) / sum(len(RecordingReader(p)) for p in files[1:])
    assert kept >= 3.4 * 192 * 1024 / per                  # ~ (keep + a partial FILE) × max_size of samples


def test_rotation_never_deletes_the_only_copy_of_a_triggered_window(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """--keep 1 with windows coming faster than the files rotate: every window's samples and
    bookmark are still on disk, the oldest files moved aside as incidents, not deleted."""
    running = ([1] * 12 + [20, 20, 20] + [1] * 12) * 8
    samples = [dataclasses.replace(s, wall=START + i, mono=1000.0 + i)
               for i, s in enumerate(series(len(running), start=START))]
    path = tmp_path / "inc.mtrec"
    writer = RotatingWriter(path, max_size=64 * 1024, keep=1, interval=1.0, trigger="t", before=4, after=2)
    rec = IncidentRecorder(writer, parse_trigger("throughput.threads_running>10"), before=4, after=2)
    for s, r in zip(samples, running):
        rec.append(s, Frame(time=s.wall, throughput=Throughput(threads_running=r)))
    rec.close()
    assert writer.rotations >= 3 and writer.kept
    assert all(p.name.startswith("inc.incident-2025") and p.suffix == ".mtrec" for p in writer.kept)
    walls: list[float] = []
    marks: list[float] = []
    for f in tmp_path.iterdir():
        if f.suffix in (".mtrec", ".1") and not f.name.endswith(("-wal", "-shm")):
            with RecordingReader(f) as r:
                walls += [r.sample(i).wall for i in range(len(r))]
                marks += [b.time for b in r.bookmarks]
    fired = [START + i for i in range(len(running)) if running[i] > 10 and (i == 0 or running[i - 1] <= 10)]
    assert sorted(marks) == fired                                  # every incident's bookmark
    window = {START + i for i in range(len(running))
              if any(f - 4 <= START + i <= f + 2 + 2 for f in fired)}
    assert window <= set(walls) and len(walls) == len(set(walls))   # every window sample, once


def test_plain_rotation_keeps_a_file_a_trigger_marked_and_deletes_the_rest(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "rot.mtrec"
    w = RotatingWriter(path, max_size=64 * 1024, keep=1, interval=1.0)
    samples = series(150)
    w.append(samples[0])
    w.bookmark(samples[0].wall, "throughput.threads_running>10", 20.0)
    for s in samples[1:]:
        w.append(s)
    w.close()
    assert w.rotations >= 3 and len(w.kept) == 1
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(["rot.mtrec", "rot.mtrec.1", w.kept[0].name])
    with RecordingReader(w.kept[0]) as r:
        assert r.sample(0) == samples[0] and len(r.bookmarks) == 1
