"""The report's compare shows each finding's own metric before → after a setting changed."""

from __future__ import annotations

from mysqltop.core.frame import Frame, ServerInfo, TableCache, Throughput
from mysqltop.core.incident_report import compare
from mysqltop.core.report_builder import build_report
from mysqltop.core.rules import finding_metrics
from mysqltop.views.report_text import render

T0 = 1_767_225_600.0


def _frames(misses: float, n: int = 30, start: int = 0) -> list[Frame]:
    return [Frame(time=T0 + start + k + 1, elapsed=1.0, server=ServerInfo("10.11.19-MariaDB", "mariadb", "lab"),
                  throughput=Throughput(tps=10, threads_running=9),
                  table_cache=TableCache(hits_per_s=1_700, misses_per_s=misses, overflows_per_s=misses))
            for k in range(n)]


def test_compare_shows_the_findings_own_metric_before_and_after_table_open_cache_changed() -> None:
    a = build_report(_frames(3_700), {"table_open_cache": "64"})
    b = build_report(_frames(8, start=30), {"table_open_cache": "2000"})
    assert [x.id for x in a.window_advice] == ["table_cache_misses"] and b.window_advice == []
    assert a.finding_metrics["table_cache_misses"] == 3_700.0
    c = compare(a, b)
    assert [(d.metric, d.a, d.b) for d in c.finding_metrics] == [
        ("table_cache_misses: table cache misses/s", 3_700.0, 8.0)]
    text = render(c, "text")
    assert "table_open_cache 64 → 2000" in text and "table_cache_misses: table cache misses/s 3.7k → 8 (-100 %)" in text


def test_metric_is_time_weighted_and_the_history_metric_is_a_trend() -> None:
    frames = _frames(100, n=2) + [Frame(time=T0 + 4, elapsed=2.0, table_cache=TableCache(misses_per_s=400))]
    assert finding_metrics.value("table_cache_misses", frames) == (100 + 100 + 800) / 4
    assert finding_metrics.label("purge_lag") == "history list growth/s"
