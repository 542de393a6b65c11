"""The HTML report's parts, pure: chart geometry (views/page/svg_plot.py), the top-load tables
(top_load.py) and the page model's grouping of findings (page_model.py)."""

from __future__ import annotations

from mysqltop.core.incident_report import AdviceEpisode, LoadSummary, Report
from mysqltop.views.page import svg_plot as sp
from mysqltop.views.page.page_model import findings
from mysqltop.views.page.top_load import NOT_RECORDED, load_tables, tables

T0 = 1_800_000_000.0


def chart(times: list[float], *series: list[float | None], **kw: object) -> sp.Plot:
    return sp.draw(sp.Chart("k", "t", times, [sp.Series(f"s{i}", v, f"s{i}") for i, v in enumerate(series)],
                            times[0], times[-1], **kw))  # type: ignore[arg-type]


def test_value_and_time_ticks_are_round() -> None:
    assert sp.nice_ticks(0) == [0.0, 1.0]
    assert sp.nice_ticks(9) == [0, 2.5, 5.0, 7.5, 10.0]
    assert sp.nice_ticks(2100) == [0, 1000, 2000, 3000]
    short = sp.time_ticks(T0 + 5, T0 + 156)
    assert [label for _, label in short][:2] == ["08:00:30", "08:01:00"]
    assert all((t - T0) % 30 == 0 for t, _ in short) and 4 <= len(short) <= 6
    hour = sp.time_ticks(T0, T0 + 3600)
    assert all(len(label) == 5 for _, label in hour) and all(t % 600 == 0 for t, _ in hour)


def test_a_gap_in_time_breaks_the_line_and_is_shaded_as_not_recorded() -> None:
    times = [T0 + i for i in range(10)] + [T0 + 100 + i for i in range(10)]
    p = chart(times, [1.0] * 20)
    assert sp.gaps(times) == [(10, T0 + 9, T0 + 99)]
    assert p.lines[0].d.count("M") == 2
    (gap,) = [b for b in p.bands if b.kind == "gap"]
    assert gap.w > 0.8 * (p.right - p.left) * 90 / 109 and gap.h == p.bottom - p.top
    assert p.points == 20 and p.empty is None


def test_missing_values_break_the_line_and_nothing_known_says_why() -> None:
    times = [T0 + i for i in range(6)]
    p = chart(times, [1.0, 2.0, None, None, 3.0, 4.0])
    assert p.lines[0].d.count("M") == 2 and p.points == 4
    lone = chart(times, [None, None, 5.0, None, None, None])
    assert lone.lines[0].d.count("M") == 1 and "H" in lone.lines[0].d      # a lone point: a short dash
    none = chart(times, [None] * 6, empty="not recorded here")
    assert none.points == 0 and none.empty == "not recorded here" and none.lines == ()


def test_findings_get_a_lane_each_while_they_overlap_stalls_shade_the_plot() -> None:
    times = [T0 + i for i in range(100)]
    spans = [sp.Span(T0 + 0, T0 + 90, "finding", "a"), sp.Span(T0 + 10, T0 + 50, "finding", "b"),
             sp.Span(T0 + 60, T0 + 99, "finding", "c"), sp.Span(T0 + 20, T0 + 40, "stall", "s")]
    p = chart(times, [1.0] * 100, spans=spans)
    lanes = {b.title: b.y for b in p.bands if b.kind == "finding"}
    assert lanes["a"] != lanes["b"] and lanes["c"] == lanes["b"]          # c starts after b ended
    assert all(y + 4 <= p.top for y in lanes.values())                     # above the plot, not over it
    (stall,) = [b for b in p.bands if b.kind == "stall"]
    assert stall.y == p.top and stall.h == p.bottom - p.top


def test_a_stacked_chart_adds_up_and_draws_the_cores() -> None:
    times = [T0 + i for i in range(4)]
    p = chart(times, [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 0.0], stacked=True, reference=(2.0, "2 cores"))
    assert len(p.areas) == 2 and p.yticks[-1].label == "3"                # 3 at most, on the grid
    assert p.reference is not None and p.reference.label == "2 cores"
    assert p.bottom > p.reference.at > p.top
    zero = chart(times, [1.0] * 4, [0.0] * 4, stacked=True)
    assert [x.name for x in zero.legend] == ["s0"]                         # a class that stayed at 0: no key


def test_what_fired_when_has_a_row_a_finding() -> None:
    rows = [sp.Row("stalls (1)", "stall", [(T0 + 10, T0 + 50, "s")]),
            sp.Row("x (warning)", "warning", [(T0, T0 + 5, "1"), (T0 + 30, T0 + 40, "2")])]
    p = sp.strip("f", "What fired when", rows, T0, T0 + 60)
    assert p.strip and [x.text for x in p.labels] == ["stalls (1)", "x (warning)"]
    assert [b.kind for b in p.bands] == ["bar-stall", "bar-warning", "bar-warning"] and p.points == 3
    assert len({b.y for b in p.bands}) == 2


def _report(top: list[dict[str, object]]) -> Report:
    r = Report(None, None, 0.0, 0, 0, 0, {}, {}, [], [], [], {}, {}, {}, {}, [], [])
    r.load = LoadSummary(active_avg=2.0, classes={"cpu": 1.0, "row_lock": 1.0}, top=top)
    return r


def test_top_load_sums_each_shape_over_its_classes_and_says_what_is_not_recorded() -> None:
    r = _report([{"wait_class": "cpu", "shape": "SELECT ?", "sessions": 0.5},
                 {"wait_class": "row_lock", "shape": "UPDATE t SET a=?\x1b[2J", "sessions": 1.0},
                 {"wait_class": "cpu", "shape": "UPDATE t SET a=?\x1b[2J", "sessions": 0.25}])
    by = {t.dimension: t for t in load_tables(r)}
    assert [row.label for row in by["sql"].rows] == ["UPDATE t SET a=?\\x1b[2J", "SELECT ?"]
    top = by["sql"].rows[0]
    assert top.sessions == "1.2" and [m.css for m in top.mix] == ["c-cpu", "c-row_lock"]
    assert abs(sum(m.w for m in top.mix) - 100.0) < 0.1
    for dim in ("user", "host", "schema", "object"):
        assert by[dim].rows == () and by[dim].note == NOT_RECORDED
    fed = {t.dimension: t for t in tables({"user": [("app", {"cpu": 3.0})]}, "by user")}
    assert fed["user"].rows[0].label == "app" and fed["sql"].note == NOT_RECORDED


def test_a_finding_that_came_back_is_one_entry_with_its_spans() -> None:
    eps = [AdviceEpisode("row_lock_waits", "warning", "m1", "e1", T0, T0 + 10, 11),
           AdviceEpisode("purge_lag", "info", "p", "pe", T0 + 5, T0 + 6, 2),
           AdviceEpisode("row_lock_waits", "critical", "m2", "e2", T0 + 100, T0 + 130, 31)]
    out = findings(eps)
    assert [f.id for f in out] == ["row_lock_waits", "purge_lag"]
    first = out[0]
    assert first.episodes == 2 and first.severity == "critical" and first.message == "m2" and first.samples == 42
    assert first.span == "08:00:00–08:00:10, 08:01:40–08:02:10"


def test_a_thousand_triggers_do_not_make_a_thousand_lines() -> None:
    times = [T0 + i for i in range(0, 3600, 10)]
    moments = [sp.Moment(T0 + 3.6 * i, str(i + 1), f"{i + 1}. trigger") for i in range(1000)]
    p = chart(times, [1.0] * len(times), moments=moments)
    assert 30 <= len(p.marks) <= (p.right - p.left) / sp.MARK_PX + 1
    assert p.marks[0].label == "1–2" or p.marks[0].label.startswith("1–")
    assert p.marks[0].title.count("\n") <= sp.MARK_TITLES
