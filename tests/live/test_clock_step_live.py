"""The monitoring host's clock steps back an hour, then forward again, while recording a real
server (the step injected into this process's wall clock only): no negative or giant rate, the
recording keeps its recorded order, and it says where the clock jumped."""

from __future__ import annotations

import time

import pytest

import mysqltop.sources.mysql as mysql_module
from mysqltop.engine import Engine
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter
from mysqltop.sources.live_source import LiveSource
from mysqltop.sources.mysql import MySQLSource
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.timeline.range import Range

pytestmark = pytest.mark.live
INTERVAL = 0.25


def test_a_clock_step_on_the_monitoring_host_changes_no_rate(mariadb, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    offset = [0.0]
    real = time.time
    monkeypatch.setattr(mysql_module.time, "time", lambda: real() + offset[0])
    path = tmp_path / "stepped.mtrec"
    src = MySQLSource(mariadb.options(), interval=INTERVAL)
    src.open()
    engine = Engine(LiveSource(src), PolledTimeline(), recorder=RecordingWriter(path, interval=INTERVAL))
    frames = []
    try:
        for shift in (0.0, -3600.0, 0.0):              # back an hour, then forward again
            offset[0] = shift
            engine.run(INTERVAL, count=8, on_frame=frames.append)
    finally:
        engine.close()
    monkeypatch.undo()
    assert len(frames) == 24
    for f in frames[1:]:
        if f.elapsed is not None:
            assert 0 < f.elapsed < 30, f.elapsed                  # never -3600 or +3600
        assert f.throughput.qps is None or 0 <= f.throughput.qps < 1e6
    with RecordingReader(path) as r:
        assert len(r) == 24
        steps = r.clock_steps()
        assert [s.index for s in steps] == [8, 16]
        assert steps[0].step < -3500 and steps[1].step > 3500
    notes: list[str] = []
    rng = Range(path, on_damage=notes.append)
    walls = [raw.wall for _, raw in rng.frames()]
    rng.close()
    assert len(walls) == 24 and walls[8] < walls[7] - 3500          # recorded order kept, as recorded
    assert sum("the recorder's clock stepped" in n for n in notes) == 2
