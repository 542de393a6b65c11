"""The monitoring host's clock stepped back and forward an hour mid-recording (the samples' wall
times stepped, their monotonic times did not): rates come from the monotonic clock, the timeline
stays in recorded order, and replay and report say where the clock jumped."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.timeline.range import Range
from tests.recording.synthetic import series

ROOT = Path(__file__).resolve().parents[2]
BACK, FORWARD = 60, 90


def _stepped() -> list:  # type: ignore[type-arg]
    """120 samples 1 s apart; the wall clock steps back an hour at 60 and forward again at 90."""
    out = []
    for i, s in enumerate(series(120)):
        shift = -3600.0 if BACK <= i < FORWARD else 0.0
        out.append(dataclasses.replace(s, wall=s.wall + shift))
    return out


def test_rates_from_the_monotonic_clock_and_steps_said_where_they_are(tmp_path) -> None:  # type: ignore[no-untyped-def]
    samples = _stepped()
    pipe = PolledTimeline()
    frames = [pipe.push(s, advise=False) for s in samples]
    for f in frames[1:]:
        assert f.elapsed is not None and 0.9 < f.elapsed < 1.1          # never -3599 or +3601
        assert f.throughput.qps is None or f.throughput.qps >= 0
    path = tmp_path / "steps.mtrec"
    with RecordingWriter(path, interval=1.0) as w:
        for s in samples:
            w.append(s)
    with RecordingReader(path) as r:
        steps = r.clock_steps()
        assert [s.index for s in steps] == [BACK, FORWARD]
        assert -3601 < steps[0].step < -3599 and 3599 < steps[1].step < 3601
        line = steps[0].describe(path.name)
        assert "clock stepped back 1h00m" in line and f"(sample {BACK})" in line and "\n" not in line
        assert r.clock_steps() == steps                    # found once
    notes: list[str] = []
    rng = Range(path, on_damage=notes.append)
    got = [raw for _, raw in rng.frames()]
    rng.close()
    assert [g.wall for g in got] == [s.wall for s in samples]        # recorded order, not sorted by time
    assert sum("clock stepped back" in n for n in notes) == 1 and sum("stepped forward" in n for n in notes) == 1
    out = subprocess.run([sys.executable, "-m", "mysqltop", "report", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "clock stepped back 1h00m" in out.stderr and "clock stepped forward 1h00m" in out.stderr


def test_appending_after_a_restart_is_a_new_segment_not_a_step(tmp_path) -> None:  # type: ignore[no-untyped-def]
    samples = series(40)
    path = tmp_path / "two.mtrec"
    for part in (samples[:20], [dataclasses.replace(s, mono=s.mono - 4000) for s in samples[20:]]):
        with RecordingWriter(path, interval=1.0) as w:            # another run: monotonic restarted
            for s in part:
                w.append(s)
    with RecordingReader(path) as r:
        assert r.clock_steps() == []


def test_g_to_a_time_the_clock_stepped_over_says_so(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from mysqltop.timeline.cursor import Cursor
    from mysqltop.views.tui.feeds import navigate
    from mysqltop.views.tui.feed_events import Notice
    from mysqltop.views.tui.position import ViewMode

    # back 30 s at 60 (times 30..59 s in come again), forward an hour at 90
    samples = [dataclasses.replace(s, wall=s.wall - (30.0 if 60 <= i < 90 else -3570.0 if i >= 90 else 0.0))
               for i, s in enumerate(series(120))]
    path = tmp_path / "g.mtrec"
    with RecordingWriter(path, interval=1.0) as w:
        for s in samples:
            w.append(s)
    posted: list[object] = []

    def notes() -> list[str]:
        out = [e.text for e in posted if isinstance(e, Notice)]
        posted.clear()
        return out

    with RecordingReader(path) as r:
        assert [round(s.step) for s in r.clock_steps()] == [-30, 3600]
        b = navigate(Cursor(r), posted.append, ViewMode.REPLAY, playing=False)
        b.seek_time(samples[45].wall)                      # held by sample 45 and again by 75
        assert any("clock stepped back 30s" in n for n in notes())
        b.seek_time(samples[100].wall - 1800)               # in the hour the step forward skipped
        assert any("clock stepped forward 1h00m" in n for n in notes())
        for i in (5, 20, 110):                             # ordinary times: nothing to say
            b.seek_time(samples[i].wall)
            assert notes() == [], i


def stepped_back_30s_at_60(tmp_path):  # type: ignore[no-untyped-def]
    """90 samples whose recorder's clock stepped back 30 s at sample 60, written; (samples, path)."""
    samples = [dataclasses.replace(s, wall=s.wall - (30.0 if i >= 60 else 0.0)) for i, s in enumerate(series(90))]
    path = tmp_path / "stepped.mtrec"
    with RecordingWriter(path, interval=1.0) as w:
        for s in samples:
            w.append(s)
    return samples, path


def test_a_report_window_by_a_time_the_clock_stepped_over_says_so(tmp_path) -> None:  # type: ignore[no-untyped-def]
    samples, path = stepped_back_30s_at_60(tmp_path)
    notes: list[str] = []
    rng = Range(path, start=samples[40].wall - 0.5, end=samples[50].wall + 0.5, on_damage=notes.append)
    rng.close()
    assert any("clock stepped back 30s" in n and "(sample 60)" in n for n in notes), notes
    notes.clear()
    Range(path, start=samples[5].wall, end=samples[20].wall, on_damage=notes.append).close()
    assert notes == []


def test_a_start_alone_runs_to_the_end_across_a_step(tmp_path) -> None:  # type: ignore[no-untyped-def]
    samples, path = stepped_back_30s_at_60(tmp_path)
    rng = Range(path, start=samples[50].wall - 0.5, on_damage=None)
    assert (rng.first, rng.last) == (50, 89)
    rng.close()
