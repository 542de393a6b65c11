"""The replay cursor: one frame per moment however it is reached; damaged samples stepped over;
recording fields checked on read."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from mysqltop.timeline.cursor import Cursor
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter
from mysqltop.sources.replay_source import ReplaySource
from tests.recording.synthetic import series
from tests.recording.test_faults import _corrupt_blob

ROOT = Path(__file__).resolve().parents[2]
INCIDENT = ROOT / "mysqltop" / "data" / "incident.mtrec"


def test_a_seek_shows_the_frame_and_advice_report_shows_for_that_moment() -> None:
    """`demo`, `p`, `g 02:16:21` said 'no findings' while `report` listed findings there: the
    advice window after a seek held only the samples since the jump."""
    t = datetime(2026, 11, 22, 2, 16, 21, tzinfo=timezone.utc).timestamp()
    with RecordingReader(INCIDENT) as r:
        jumped = Cursor(r)
        i = jumped.seek(t)
        frame = jumped.frame_at(i)
    assert frame.advice, "no findings after the seek"
    src = ReplaySource(INCIDENT)
    try:
        reported = next(f for f, raw in src.frames() if raw.wall == frame.time)
    finally:
        src.close()
    assert [a.id for a in frame.advice] == [a.id for a in reported.advice]
    assert frame.to_dict() == reported.to_dict()
    # and from a bookmark-style jump backwards, then stepping: still the same frames
    with RecordingReader(INCIDENT) as r:
        c = Cursor(r)
        c.go(200)
        c.frame_at(200)
        c.go(i - 3)
        c.step(3)
        assert c.index == i and c.frame_at(i).to_dict() == frame.to_dict()


def _damaged_150(tmp_path: Path) -> tuple[Path, list]:
    path = tmp_path / "damaged.mtrec"
    samples = series(150)
    with RecordingWriter(path, interval=1.0) as w:
        for s in samples:
            w.append(s)
    _corrupt_blob(path, 42)
    return path, samples


def test_seek_and_step_cross_a_damaged_sample(tmp_path: Path) -> None:
    path, samples = _damaged_150(tmp_path)
    with RecordingReader(path) as r:
        c = Cursor(r)
        bad = [i for i in range(150) if not c.readable(i)]
        assert bad and bad[0] == 42 and bad == list(range(42, bad[-1] + 1)) and bad[-1] < 149
        after = list(range(bad[-1] + 1, 150))
        # → from just before the damage reaches every readable sample after it
        c.go(41)
        seen = []
        while not c.at_end():
            seen.append(c.step(1))
        assert seen == after
        assert all(not c.frame_at(j).stale for j in seen)
        assert c.frame_at(bad[-1] + 2).throughput.qps is not None       # rates resume
        # ← back across it
        c.go(bad[-1] + 1)
        assert c.step(-1) == 41
        # +30 s from 40 lands past the damage; a seek into the damage lands after it
        c.go(40)
        assert c.nearest(samples[40].wall + 30) == 70
        assert c.seek(samples[45].wall) == 41
        assert c.go(45) == bad[-1] + 1
        # the damaged index itself is a stale moment for charts
        f = c.frame_at(45)
        assert f.stale and "damaged" in f.errors["recording"]


def test_snapshot_and_report_step_over_the_damage_too(tmp_path: Path) -> None:
    path, _ = _damaged_150(tmp_path)
    for args in (["snapshot", "--replay", str(path), "--format", "csv"], ["report", str(path)]):
        out = subprocess.run([sys.executable, "-m", "mysqltop", *args], cwd=ROOT, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert "Traceback" not in out.stderr and "damaged samples 42–" in out.stderr
    out = subprocess.run([sys.executable, "-m", "mysqltop", "snapshot", "--replay", str(path), "--format", "csv"],
                         cwd=ROOT, capture_output=True, text=True)
    assert len(out.stdout.strip().splitlines()) > 100


def test_a_bad_time_size_or_reference_is_a_damaged_sample_not_a_crash(tmp_path: Path) -> None:
    """A sample time of 1e12: `snapshot --replay` said 'year 33658 is out of range'."""
    path = tmp_path / "edited.mtrec"
    with RecordingWriter(path, interval=1.0) as w:
        for s in series(60):
            w.append(s)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE samples SET t = 1e12 WHERE seq = 10")
    conn.execute("UPDATE samples SET mono = 'inf' WHERE seq = 11")
    conn.execute("UPDATE samples SET ref = 99 WHERE seq = 30")
    conn.execute("UPDATE samples SET t = -5 WHERE seq = 50")
    conn.commit()
    conn.close()
    with RecordingReader(path) as r:
        meta = r.meta
        assert meta.end is not None and meta.end < 2e9 and meta.start is not None and meta.start > 1e9
        c = Cursor(r)
        assert not c.readable(10) and not c.readable(11) and not c.readable(50)
        assert c.readable(9) and c.readable(12)
        c.go(9)
        assert c.step(1) == 12
    out = subprocess.run([sys.executable, "-m", "mysqltop", "snapshot", "--replay", str(path), "--format", "json"],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert "damaged sample" in out.stderr
    out = subprocess.run([sys.executable, "-m", "mysqltop", "report", str(path)], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
