"""Long windows: `report` derives over every k-th sample (keyframes) with exact averages, says its
resolution, and keeps its chart series bounded."""

from __future__ import annotations

import json

import pytest

from mysqltop.commands.demo import find_incident
from mysqltop.commands.report import MAX_POINTS, stride_for, window_report
from mysqltop.core.frame import Frame, Hotspot
from mysqltop.core.report_builder import CHART_POINTS, ReportBuilder
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.format import KEYFRAME_EVERY
from mysqltop.sources.replay_source import ReplaySource
from mysqltop.views.report_text import render


def _incident() -> str:
    path = find_incident()
    if path is None:
        pytest.skip("the demo recording is not in this checkout")
    return str(path)


def test_stride_is_one_up_to_an_hour_then_whole_keyframe_chains() -> None:
    assert stride_for(1) == 1 and stride_for(MAX_POINTS) == 1
    assert stride_for(MAX_POINTS + 1) == KEYFRAME_EVERY
    day = stride_for(86_400)
    assert day % KEYFRAME_EVERY == 0 and 86_400 / day <= MAX_POINTS and day == 40


def test_strided_points_are_keyframes_and_the_window_ends() -> None:
    src = ReplaySource(_incident())
    try:
        points = src.points(40)
        keyframes = set(src.reader.keyframes(0, len(src.reader) - 1))
    finally:
        src.close()
    assert points[0] == 0 and points[-1] == len(src) - 1
    assert all(p in keyframes for p in points[1:-1])
    assert all(b - a >= 40 for a, b in zip(points[1:-2], points[2:-1]))


def test_a_strided_report_has_the_exact_window_averages() -> None:
    """Counters are cumulative: derive over each span gives its average rate, so the window's
    time-weighted averages are those of the report sample by sample."""
    path = _incident()
    full = window_report(path, None, None)
    coarse = window_report(path, None, None, max_points=10)
    assert full.stride == 1 and full.resolution_s is None and full.frames == full.samples
    assert coarse.stride == 40 and coarse.samples == full.samples and coarse.frames < 12
    assert coarse.resolution_s == pytest.approx(full.duration_s / (coarse.live_frames), rel=0.2)
    for key in ("tps", "rows_read_per_s", "rows_changed_per_s"):
        assert coarse.throughput[key].avg == pytest.approx(full.throughput[key].avg, rel=1e-9)
    # Questions less the monitor's own statements, counted once per poll spanned
    assert coarse.throughput["qps"].avg == pytest.approx(full.throughput["qps"].avg, rel=1e-3)
    assert coarse.locks["row_lock_wait_ms_per_s"].avg == pytest.approx(full.locks["row_lock_wait_ms_per_s"].avg)
    top = full.hotspots[0]
    same = next(h for h in coarse.hotspots if h.name == top.name)
    assert same.wait_ms_per_s == pytest.approx(top.wait_ms_per_s, rel=1e-9)
    text = render(coarse, "text")
    assert "resolution: one point per 35s (every 40th sample" in text and f"{full.samples} samples" in text
    assert "resolution" not in render(full, "text")


def test_the_strided_path_decodes_only_the_points() -> None:
    path = _incident()
    src = ReplaySource(path)
    decoded: list[int] = []
    real = src.reader._decode

    def spy(i: int):  # type: ignore[no-untyped-def]
        if i not in src.reader._decoded:
            decoded.append(i)
        return real(i)

    src.reader._decode = spy  # type: ignore[method-assign]
    try:
        points = src.points(40)
        frames = list(src.strided_frames(40))
    finally:
        src.close()
    assert len(frames) == len(points) < 12
    # keyframes decode alone; only the last point (not a keyframe) walks its chain
    assert len(decoded) <= len(frames) + KEYFRAME_EVERY


def test_chart_series_stay_bounded_and_carry_the_top_three_hotspots() -> None:
    b = ReportBuilder()
    for i in range(5000):
        f = Frame(time=1_800_000_000.0 + i, elapsed=1.0, hotspots=[
            Hotspot(name=f"latch{k}", kind="mutex", source="performance_schema", share=0.2, waits_per_s=10.0,
                    wait_ms_per_s=float(10 - k)) for k in range(5)])
        f.throughput.tps = 100.0 if i < 2500 else 300.0
        f.flush.history_list_length = float(i)
        f.io.pending_reads = 7.0 if i == 1234 else 0.0
        b.add(f)
    r = b.build()
    s = r.series
    assert 2 <= len(s.time) <= CHART_POINTS and s.time[-1] == 1_800_000_000.0 + 4999
    assert list(s.hotspot_wait_ms) == ["latch0", "latch1", "latch2"]
    assert s.hotspot_wait_ms["latch0"][0] == pytest.approx(10.0)
    assert max(v for v in s.pending_reads if v is not None) == 7.0     # a one-sample peak survives
    assert max(v for v in s.history_list_length if v is not None) == 4999.0
    assert s.tps[0] == pytest.approx(100.0) and s.tps[-1] == pytest.approx(300.0)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["series"]["time"][0].endswith("Z") and len(d["series"]["tps"]) == len(s.time)


def test_report_charts_hotspots_history_and_pending_io() -> None:
    out = render(window_report(_incident(), None, None), "text")
    for title in ("TPS (UTC)", "QPS (UTC)", "Top hotspots, wait ms/s (UTC)", "History list length (UTC)",
                  "Pending IO (UTC)"):
        assert title in out
    charts = out[out.index("CHARTS"):out.index("BOOKMARKS")]
    assert "buf_pool_mutex" in charts and "finding start/end" in charts


def test_keyframes_lists_the_samples_that_decode_alone() -> None:
    with RecordingReader(_incident()) as r:
        ks = r.keyframes(0, len(r) - 1)
        assert ks[0] == 0 and all(k % KEYFRAME_EVERY == 0 for k in ks)
        assert r.keyframes(1, 19) == []


def test_a_day_of_findings_is_drawn_as_spans_a_chart_can_show() -> None:
    from mysqltop.core.incident_report import AdviceEpisode
    from mysqltop.views.report_charts import MAX_SPANS, drawn_spans

    b = ReportBuilder()
    for i in range(0, 86_400, 40):
        f = Frame(time=1_800_000_000.0 + i, elapsed=40.0)
        f.throughput.tps = 100.0
        b.add(f)
    r = b.build()
    t0 = 1_800_000_000.0
    # every 4 minutes for the first 12 h (closer than a column: 864 s), then one at 18:00
    r.advice = [AdviceEpisode("row_lock_waits", "warning", "m", "e", t0 + k * 240, t0 + k * 240 + 60, 2)
                for k in range(180)] + [AdviceEpisode("purge_lag", "warning", "p", "e", t0 + 64_800, t0 + 65_000, 5)]
    drawn = drawn_spans(r)
    assert len(drawn) == 2 and drawn[0][:2] == (t0, t0 + 179 * 240 + 60) and drawn[1][:2] == (t0 + 64_800, t0 + 65_000)
    r.advice = r.advice[:MAX_SPANS]                    # few findings: each one drawn
    assert len(drawn_spans(r)) == MAX_SPANS
    out = render(r, "text")
    assert "lines mark the first and last sample of each of the 12 finding(s)" in out


def test_a_strided_report_over_segments_covers_each_one_whole(tmp_path) -> None:
    """Two recorder runs (the server restarted in between: counters start again): each segment's
    first and last samples are points, so the averages are those of the report sample by sample."""
    from mysqltop.core.sample import RawSample, ServerIdentity
    from mysqltop.recording.writer import RecordingWriter

    path = tmp_path / "two.mtrec"
    server = ServerIdentity("10.11.19-MariaDB", "mariadb", "db1:3306")
    t0 = 1_800_000_000.0
    for seg, (start, per_s) in enumerate(((0, 10), (150, 20))):
        with RecordingWriter(path, interval=1.0) as w:
            for i in range(100 + 7 * seg):
                w.append(RawSample(wall=t0 + start + i, mono=1000.0 * (seg + 1) + i, server=server,
                                   global_status={"Com_commit": str(per_s * i), "Com_rollback": "0",
                                                  "Uptime": str(i + 1)}))
    src = ReplaySource(path)
    try:
        points = src.points(20)
        assert {100, 99, len(src) - 1} <= set(points)
    finally:
        src.close()
    full = window_report(str(path), None, None)
    coarse = window_report(str(path), None, None, max_points=10)
    assert coarse.stride == 40 and coarse.frames < full.frames
    want = (99 * 10 + 106 * 20) / (99 + 106)
    assert full.throughput["tps"].avg == pytest.approx(want)
    assert coarse.throughput["tps"].avg == pytest.approx(want)
