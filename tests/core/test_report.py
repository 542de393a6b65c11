"""Incident report over frames: timeline and drops, hotspot shares, peaks, advice episodes, compare."""

from __future__ import annotations

from dataclasses import replace

import json

from mysqltop.core.frame import Advice, Flush, Frame, Host, Hotspot, Io, Locks, ServerInfo, Throughput
from mysqltop.core.incident_report import compare
from mysqltop.core.report_builder import build_report
from mysqltop.views.report_text import render, sparkline

T0 = 1_767_225_600.0            # 2026-01-01 00:00:00 UTC
AHI = Advice("ahi_latch", "warning", "raise innodb_adaptive_hash_index_parts", "btr_search_latch 40 % …")
AHI_CRIT = Advice("ahi_latch", "critical", "raise innodb_adaptive_hash_index_parts", "btr_search_latch 70 % …")


def incident(n: int = 60, hot_from: int = 30) -> list[Frame]:
    """Calm first, then the AHI latch takes over and TPS sags twice."""
    frames = []
    for k in range(n):
        hot = k >= hot_from
        tps = 150.0 if k in (40, 41, 50) else (1_800.0 if hot else 2_400.0)
        ahi_share = 0.7 if hot else 0.05
        f = Frame(time=T0 + k + 1, elapsed=1.0, server=ServerInfo("8.0.36", "mysql", "db1:3306"),
                  throughput=Throughput(tps=tps, qps=tps * 20, threads_running=40 if hot else 8),
                  hotspots=[Hotspot("btr_search_latch", "sxlock", "performance_schema",
                                    waits_per_s=9_000 if hot else 300, wait_ms_per_s=700 * ahi_share, share=ahi_share),
                            Hotspot("lock_mutex", "mutex", "performance_schema",
                                    waits_per_s=1_000, wait_ms_per_s=100, share=0.1 if hot else 0.3)],
                  io=Io(pending_reads=3 if k == 45 else 0, fsyncs_per_s=500.0),
                  flush=Flush(checkpoint_age_pct=40.0 + k / 2, history_list_length=1_000 + 100 * k),
                  host=Host(cpus=16, run_queue=30 if hot else 4, cpu_user_pct=70 if hot else 30, cpu_system_pct=10),
                  locks=Locks(row_lock_waits_per_s=50.0 if hot else 1.0, row_lock_current_waits=k % 4),
                  advice=[AHI_CRIT if k == 45 else AHI] if k >= hot_from + 5 and k != 52 else [])
        frames.append(f)
    return frames


def test_window_throughput_and_drops_are_marked() -> None:
    r = build_report(incident())
    assert r.start == T0 + 1 and r.end == T0 + 60 and r.duration_s == 59 and r.live_frames == 60
    assert r.throughput["tps"].min == 150 and r.throughput["tps"].max == 2_400
    # against the median of the 30 s before: 2,400 for the first drop, 1,800 for the second
    assert [(d.start - T0, d.end - T0, d.min_tps) for d in r.drops] == [(41, 42, 150), (51, 51, 150)]
    assert [p.time - T0 for p in r.timeline if p.drop] == [41, 42, 51]
    assert round(r.drops[0].depth_pct) == 94 and r.drops[1].baseline_tps == 1_800


def test_less_load_is_not_a_drop_but_a_stall_is() -> None:
    def frames(running_after: int) -> list[Frame]:
        return [Frame(time=T0 + k, elapsed=1.0, throughput=Throughput(
            tps=2_000.0 if k < 40 else 100.0, threads_running=30 if k < 40 else running_after)) for k in range(80)]
    # clients went away (Threads_running fell with TPS): not a drop, and never becomes one later
    assert build_report(frames(running_after=2)).drops == []
    # sessions still running but commits stopped: one drop, from the fall to the end
    drops = build_report(frames(running_after=30)).drops
    assert [(d.start - T0, d.end - T0, d.baseline_tps) for d in drops] == [(40, 79, 2_000)]


def test_hotspots_ranked_by_mean_share_with_peaks() -> None:
    r = build_report(incident())
    top = r.hotspots[0]
    # share of all wait time in the window: (30·35 + 30·490) ms of btr_search_latch, 60·100 ms of lock_mutex
    assert top.name == "btr_search_latch" and round(top.share, 3) == round(15_750 / 21_750, 3)
    assert top.peak_waits_per_s == 9_000 and top.peak_time == T0 + 31 and top.seen_pct == 100
    assert round(top.waits_per_s) == 4_650


def test_io_flush_host_peaks() -> None:
    r = build_report(incident())
    assert r.io["pending_reads"].max == 3 and r.io["pending_reads"].max_time == T0 + 46
    assert r.flush["checkpoint_age_pct"].max == 69.5
    assert r.flush["history_list_length"].max == 6_900
    assert r.host["cpus"] == 16 and r.host["saturated_pct"] == 50.0
    assert r.host["run_queue"].max == 30 and r.host["cpu_busy_pct"].avg == 60.0
    assert r.locks["row_lock_waits_per_s"].avg == 25.5 and r.locks["row_lock_current_waits"].max == 3


def test_advice_episodes_merge_short_gaps_and_keep_the_worst() -> None:
    r = build_report(incident())
    assert len(r.advice) == 1
    e = r.advice[0]
    assert (e.id, e.severity, e.first - T0, e.last - T0) == ("ahi_latch", "critical", 36, 60)
    assert e.frames == 24 and "70 %" in e.evidence


def test_long_gap_splits_episodes() -> None:
    frames = incident()
    frames[40:50] = [replace(f, advice=[]) for f in frames[40:50]]
    assert [(e.first - T0, e.last - T0) for e in build_report(frames).advice] == [(36, 40), (51, 60)]


def test_window_advice_runs_the_rules_over_the_whole_window() -> None:
    frames = incident(n=40, hot_from=0)
    r = build_report(frames, {"innodb_adaptive_hash_index": "ON", "innodb_adaptive_hash_index_parts": "8"})
    # 0.5 thread-equivalents on the AHI latch of 39 sessions running: a detail, not an incident;
    # the host is 80 % busy with no mysqld CPU measured: no CPU verdict
    assert [(a.id, a.severity) for a in r.window_advice] == [("ahi_latch", "info")]
    assert "btr_search_latch 70 % of wait time" in r.window_advice[0].evidence
    assert build_report(incident(n=40, hot_from=99)).window_advice == []


def test_empty_and_stale_windows_do_not_crash() -> None:
    r = build_report([])
    assert r.live_frames == 0 and r.hotspots == [] and "nothing to summarise" in render(r, "text")
    stale = [Frame(time=T0 + k, stale=True) for k in range(5)]
    r = build_report(stale)
    assert r.stale_frames == 5 and json.loads(render(r, "json"))["stale_frames"] == 5


def test_compare_before_and_after() -> None:
    frames = incident()
    before, after = build_report(frames[:30]), build_report(frames[30:])
    c = compare(before, after)
    tps = next(d for d in c.deltas if d.metric == "tps avg")
    assert tps.a == 2_400 and round(tps.change_pct) == round(100 * (after.throughput["tps"].avg - 2_400) / 2_400)
    assert c.advice_only_b == ["ahi_latch"] and c.advice_only_a == []
    row = next(h for h in c.hotspots if h["name"] == "btr_search_latch")
    assert (round(row["a_share"], 2), round(row["b_share"], 2)) == (round(35 / 135, 2), round(490 / 590, 2))


def test_renderers_carry_the_numbers() -> None:
    r = build_report(incident(), {"innodb_adaptive_hash_index_parts": "8"})
    text = render(r, "text")
    assert "btr_search_latch  72%" in text and "[critical] ahi_latch  00:00:36–00:01:00" in text
    assert "2 drop(s) below 50 % of the TPS of the 30 s before" in text
    assert "00:00:41–00:00:42  min 150 TPS vs 2.4k before (−94 %)" in text
    md = render(r, "md")
    assert "| 1 | btr_search_latch | 72% |" in md and md.count("```") % 2 == 0   # fences balanced
    data = json.loads(render(r, "json"))
    assert data["start"] == "2026-01-01T00:00:01.000Z" and data["hotspots"][0]["name"] == "btr_search_latch"
    assert data["advice"][0]["first"] == "2026-01-01T00:00:36.000Z"
    cmp_text = render(compare(build_report(incident()[:30]), build_report(incident()[30:])), "text")
    assert "only in B (new): ahi_latch" in cmp_text and "tps avg" in cmp_text


def test_sparkline_buckets_and_marks_drops() -> None:
    bars, marks = sparkline([10, 10, 0, 10] * 30, [False, False, True, False] * 30, width=60)
    assert len(bars) == 60 and marks.count("^") == 30
    bars, marks = sparkline([8.0, 4.0, None, 0.0], [False, True, False, False])
    assert bars == "█▅ ▁" and marks == " ^"


def test_long_windows_keep_a_bounded_uniform_sample_for_window_advice() -> None:
    from mysqltop.core.report_builder import ReportBuilder

    v = {"innodb_adaptive_hash_index_parts": "8"}
    b = ReportBuilder(advice_sample_max=16)
    for f in incident(n=200, hot_from=0):
        b.add(f)
    assert len(b._sample) <= 16 and b._stride == 16
    assert [t - T0 for t in (f.time for f in b._sample)][:3] == [1, 17, 33]     # every 16th, from the first
    r = b.build(v)
    assert r.live_frames == 200 and "ahi_latch" in [a.id for a in r.window_advice]
    assert r.throughput["tps"].avg == build_report(incident(n=200, hot_from=0), v).throughput["tps"].avg


def test_compare_names_the_settings_changed_between_windows() -> None:
    frames = incident()
    before = build_report(frames[:30], {"innodb_adaptive_hash_index": "ON", "innodb_adaptive_hash_index_parts": "8",
                                        "innodb_doublewrite": "ON"})
    after = build_report(frames[30:], {"innodb_adaptive_hash_index": "OFF", "innodb_adaptive_hash_index_parts": "8",
                                       "innodb_doublewrite": "OFF"})
    assert before.variables == {"innodb_adaptive_hash_index": "ON", "innodb_adaptive_hash_index_parts": "8"}
    c = compare(before, after)
    assert c.variables_changed == [{"name": "innodb_adaptive_hash_index", "a": "ON", "b": "OFF"}]
    assert "settings changed between A and B: innodb_adaptive_hash_index ON → OFF" in render(c, "text")
    assert "innodb_adaptive_hash_index = ON, innodb_adaptive_hash_index_parts = 8" in render(before, "text")


def test_every_window_average_is_time_weighted() -> None:
    """TPS avg was a plain mean of per-sample rates (218 where the true figure was 175): a late
    poll covering 5 s counts five times one covering 1 s, for tps, qps, rows, waits alike."""
    frames = []
    for k, (dt, rate) in enumerate([(1.0, 300.0), (1.0, 300.0), (5.0, 60.0), (1.0, 300.0)]):
        frames.append(Frame(time=T0 + k, elapsed=dt, server=ServerInfo("8.0.36", "mysql", "db1:3306"),
                            throughput=Throughput(tps=rate, qps=10 * rate, rows_read_per_s=rate,
                                                  threads_running=4),
                            locks=Locks(row_lock_wait_ms_per_s=rate),
                            hotspots=[Hotspot("LOCK_log", "mutex", "performance_schema",
                                              waits_per_s=rate, wait_ms_per_s=rate / 10)]))
    r = build_report(frames)
    want = (300 * 3 + 60 * 5) / 8                  # Σ rate × Δt / Σ Δt = 150, not the plain mean 240
    assert r.throughput["tps"].avg == want
    assert r.throughput["qps"].avg == 10 * want
    assert r.throughput["rows_read_per_s"].avg == want
    assert r.locks["row_lock_wait_ms_per_s"].avg == want
    assert r.hotspots[0].waits_per_s == want and r.hotspots[0].wait_ms_per_s == want / 10
    assert r.throughput["tps"].max == 300 and r.throughput["tps"].min == 60
