"""Headless formatters over hand-built Frames: text, JSON lines, CSV, OpenMetrics."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import re

import pytest

from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics

from mysqltop.core import metrics
from mysqltop.core.frame import (Advice, Counters, Flush, Frame, Host, Hotspot, HotspotTotal, Io, IoThread, Locks,
                                 LatchCounter, Pressure, Semaphores, ServerInfo, Throughput)
from mysqltop.views import headless

DESIGN_KEYS = {"time", "elapsed", "stale", "server", "throughput", "hotspots", "semaphores", "io", "flush",
               "host", "advice"}


def make_frame(**over) -> Frame:
    f = Frame(
        time=1_790_000_000.25, elapsed=1.002, stale=False,
        server=ServerInfo(version="10.11.19-MariaDB", flavor="mariadb", address="127.0.0.1:3307"),
        throughput=Throughput(tps=1234.5, qps=5678.25, commits_per_s=1200.0, rollbacks_per_s=34.5,
                              write_trx_per_s=900.0, rows_read_per_s=2.5e6, rows_changed_per_s=3000.0,
                              threads_running=17),
        hotspots=[
            Hotspot("buf_pool_mutex", "mutex", "performance_schema", 48215.0, 156.6, 0.6, "buf0buf.cc:1234"),
            Hotspot("index_tree_rw_lock", "sxlock", "performance_schema", 21708.0, 79.9, 0.3, None),
            Hotspot('odd"name\\x', "rwlock", "semaphores", 3.0, None, 0.1, "a.cc:1"),
        ],
        semaphores=Semaphores(os_waits_per_s=12.0, spin_waits_per_s=None, spin_rounds_per_s=None,
                              waiting_threads=2, longest_wait_s=1.5),
        io=Io(threads=[IoThread(0, "insert buffer", "waiting for i/o request"),
                       IoThread(1, "read", "complete io for buf page")],
              pending_reads=3, pending_writes=0, pending_fsyncs=1, reads_per_s=120.0, writes_per_s=80.5,
              fsyncs_per_s=10.0),
        flush=Flush(pages_flushed_per_s=250.0, dirty_pages=1500, dirty_pct=12.5,
                    checkpoint_age_bytes=25 * 2**20, checkpoint_age_pct=40.0, log_bytes_per_s=3.2e6,
                    history_list_length=4321),
        host=Host(cpus=2, run_queue=5, load1=3.25, cpu_user_pct=60.0, cpu_system_pct=20.0, cpu_iowait_pct=1.0,
                  cpu_steal_pct=0.0, ctx_switches_per_s=45000.0, mysqld_cpu_pct=150.0),
        locks=Locks(row_lock_waits_per_s=180.0, row_lock_wait_ms_per_s=900.0, row_lock_current_waits=5,
                    longest_lock_wait_s=0.02, deadlocks_per_s=0.0),
        pressure=Pressure(connections_refused_per_s=3.5, threads_connected=151, max_connections=151),
        advice=[Advice("bp-instances", "warning", "buffer pool mutex is the top wait",
                       "buf_pool_mutex 60% of wait time over 1.0 s")],
    )
    return dataclasses.replace(f, **over)


def first_frame() -> Frame:
    """A first sample: no elapsed, rates None, no host."""
    return Frame(time=1_790_000_000.0, server=ServerInfo(version="10.11.19-MariaDB", flavor="mariadb"),
                 throughput=Throughput(threads_running=3), host=None)


# ---- text -----------------------------------------------------------------------------------
def test_text_lists_hotspots_first_then_sections() -> None:
    out = headless.text_frame(make_frame())
    lines = out.splitlines()
    assert lines[0].startswith("== 2026-") and "Δ1.00s" in lines[0] and "127.0.0.1:3307" in lines[0]
    order = [next(i for i, l in enumerate(lines) if l.startswith(h))
             for h in ("HOTSPOTS", "THROUGHPUT", "ROW LOCKS", "SEMAPHORES", "IO", "FLUSH", "HOST", "ADVICE")]
    assert order == sorted(order)
    hot = lines[order[0] + 2]  # after the column header
    assert hot.split()[:5] == ["buf_pool_mutex", "P_S", "48k", "157", "60%"]
    assert hot.endswith("buf0buf.cc:1234")
    assert "tps 1.2k " in out and "qps 5.7k " in out and "rows read/s 2.5M" in out and "threads running 17" in out
    assert "ROW LOCKS   waits/s 180  wait ms/s 900  waiting now 5  longest wait 20ms" in out
    assert "checkpoint age 25 MB (40%)" in out and "log 3.1 MB/s" in out
    assert "evidence: buf_pool_mutex 60% of wait time over 1.0 s" in out


def test_text_first_and_stale_frames_say_so() -> None:
    out = headless.text_frame(first_frame())
    assert "first sample: no rates yet" in out and "tps -" in out and "(rates from the next sample)" in out
    assert "HOST        (not measured)" in out
    counted = dataclasses.replace(first_frame(), hotspot_totals=[
        HotspotTotal("buf_pool_mutex", "mutex", "performance_schema", waits=48215, wait_ms=156.6, share=0.6)])
    lines = headless.text_frame(counted).splitlines()
    assert lines[1] == "HOTSPOTS (totals since the counters started)"
    assert lines[3].split() == ["buf_pool_mutex", "P_S", "48k", "157", "60%"]
    assert "STALE" in headless.text_frame(make_frame(stale=True, errors={"poll": "timeout"}))


# ---- JSON -----------------------------------------------------------------------------------
def test_json_line_has_design_keys_and_values() -> None:
    line = headless.json_frame(make_frame())
    assert line.endswith("\n") and line.count("\n") == 1
    d = json.loads(line)
    assert DESIGN_KEYS <= d.keys()
    assert d["time"] == "2026-09-21T14:13:20.250Z"
    assert d["throughput"]["tps"] == 1234.5 and d["hotspots"][0]["name"] == "buf_pool_mutex"
    assert d["io"]["threads"][1] == {"id": 1, "role": "read", "state": "complete io for buf page", "pool_slot": False}


def test_json_nulls_for_first_frame_and_no_nan() -> None:
    f = first_frame()
    f.throughput.qps = float("nan")
    d = json.loads(headless.json_frame(f))
    assert d["elapsed"] is None and d["throughput"]["tps"] is None and d["throughput"]["qps"] is None
    assert d["host"] is None and d["hotspots"] == []


# ---- CSV ------------------------------------------------------------------------------------
def test_csv_header_and_rows_line_up() -> None:
    w = headless.writer_for("csv")
    text = w.header() + w.frame(make_frame()) + w.frame(first_frame())
    rows = list(csv.reader(io.StringIO(text)))
    head, full, first = rows
    assert len(head) == len(full) == len(first)
    r = dict(zip(head, full))
    assert r["throughput.tps"] == "1234.5" and r["host.cpus"] == "2" and r["stale"] == "false"
    assert r["hotspot.top.name"] == "buf_pool_mutex" and r["hotspot.top.share"] == "0.6"
    assert r["flush.checkpoint_age_bytes"] == str(25 * 2**20) and r["hotspots"] == "3"
    assert r["locks.row_lock_waits_per_s"] == "180" and r["locks.deadlocks_per_s"] == "0"
    assert "io.threads" not in head
    assert r["pressure.connections_refused_per_s"] == "3.5" and r["pressure.max_connections"] == "151"
    assert [c for c in head if c.startswith("pressure.")][:2] == ["pressure.log_waits_per_s",
                                                                   "pressure.log_write_requests_per_s"]
    e = dict(zip(head, first))
    assert e["throughput.tps"] == "" and e["host.cpu_user_pct"] == "" and e["hotspot.top.name"] == ""


# ---- OpenMetrics ----------------------------------------------------------------------------
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (\S+)$')


def parse_om(text: str) -> tuple[dict[str, str], list[tuple[str, str, float]]]:
    """A strict-enough OpenMetrics reader: types, samples; asserts the structure rules we rely on."""
    lines = text.splitlines()
    assert lines[-1] == "# EOF" and lines.count("# EOF") == 1
    types: dict[str, str] = {}
    samples: list[tuple[str, str, float]] = []
    current = None
    for line in lines[:-1]:
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ")
            assert name not in types, f"family {name} declared twice"
            types[name], current = typ, name
        elif line.startswith(("# HELP ", "# UNIT ")):
            current = line.split(" ")[2]
        else:
            m = SAMPLE.match(line)
            assert m, line
            assert m.group(1) in (current, f"{current}_total"), f"sample {m.group(1)} outside its family"
            value = float(m.group(3))
            assert math.isfinite(value)
            samples.append((m.group(1), m.group(2) or "", value))
    assert len({(n, l) for n, l, _ in samples}) == len(samples), "duplicate series"
    return types, samples


def test_openmetrics_speaks_the_registry_vocabulary() -> None:
    f = make_frame(counters=Counters(transactions=1000, commits=990, rollbacks=10, row_lock_wait_ms=2500),
                   latch_counters=[LatchCounter("buf_pool_mutex", "performance_schema", 48215, 1566.0),
                                   LatchCounter('odd"name\\x', "innodb_mutex", 3, None)])
    text = headless.openmetrics_frame(f)
    types, samples = parse_om(text)
    list(parse_openmetrics(text))                     # prometheus_client's strict parser takes it too
    vals = {(n, l): v for n, l, v in samples}
    srv = 'server="127.0.0.1:3307"'
    assert types["mysqltop_transactions"] == "counter" and vals[("mysqltop_transactions_total", f"{{{srv}}}")] == 1000
    assert vals[("mysqltop_row_lock_wait_seconds_total", f"{{{srv}}}")] == 2.5
    assert types["mysqltop_threads_running"] == "gauge" and vals[("mysqltop_threads_running", f"{{{srv}}}")] == 17
    assert vals[("mysqltop_checkpoint_age_ratio", f"{{{srv}}}")] == 0.4
    assert vals[("mysqltop_host_cpus", f"{{{srv}}}")] == 2
    assert vals[("mysqltop_stale", f"{{{srv}}}")] == 0
    assert vals[("mysqltop_latch_waits_total", f'{{{srv},latch="buf_pool_mutex",source="performance_schema"}}')] == 48215
    assert vals[("mysqltop_latch_wait_seconds_total",
                 f'{{{srv},latch="buf_pool_mutex",source="performance_schema"}}')] == 1.566
    odd = f'{{{srv},latch="odd\\"name\\\\x",source="innodb_mutex"}}'
    assert vals[("mysqltop_latch_waits_total", odd)] == 3
    assert ("mysqltop_latch_wait_seconds_total", odd) not in vals      # None is left out, not NaN
    assert vals[("mysqltop_finding", f'{{{srv},id="bp-instances"}}')] == 2      # severity in the value
    # one vocabulary: nothing outside the registry, and no per-interval rate as a gauge
    assert {n.removesuffix("_total") for n in types} <= {m.full for m in metrics.ALL}
    assert not any(n.endswith("_per_second") or "_per_s" in n for n in types)


def test_openmetrics_first_frame_leaves_out_missing_values() -> None:
    types, samples = parse_om(headless.openmetrics_frame(first_frame()))
    names = {n for n, _, _ in samples}
    assert "mysqltop_transactions_total" not in names and "mysqltop_threads_running" in names
    assert not any(n.startswith("mysqltop_host_") for n in names)


def test_writer_for_unknown_format() -> None:
    with pytest.raises(ValueError):
        headless.writer_for("xml")


def test_text_on_an_80_column_terminal_folds_between_pairs() -> None:
    """THROUGHPUT/HOST lines ran to ~130 columns: an 80-column terminal cut 'rows read/s' as 'ro|ws'."""
    frame = make_frame()
    wide = headless.text_frame(frame)
    folded = headless.writer_for("text", width=80).frame(frame)
    assert max(len(line) for line in folded.splitlines() if not line.startswith("==")) <= 80
    assert any(len(line) > 80 for line in wide.splitlines())          # pipes keep one line per group
    # the same pairs, only re-flowed: undo the folding and compare (advice prose folds at words)
    unfold = re.sub(r"\n {12}(?=\S)", "  ", folded.split("ADVICE")[0])
    assert unfold == wide.split("ADVICE")[0]
    through = folded[folded.index("THROUGHPUT"):].splitlines()
    assert through[1].startswith(" " * 12) and through[1][12] != " "
    for pair in ("rows read/s 2.5M", "threads running 17", "qps 5.7k"):
        assert any(pair in line for line in through[:3]), pair
