"""`mysqltop snapshot` end to end (a real process) against the throwaway MariaDB under light load."""

from __future__ import annotations

import csv
import io
import json
import re
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from mysqltop.cli import build_parser
from mysqltop.core.instrumentation import ENABLE_SQL
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.engine import Engine
from mysqltop.views.headless import json_frame
from tests.support.load import LoadGenerator, LoadSpec
from tests.test_headless import parse_om

pytestmark = pytest.mark.live

FRAME_KEYS = {
    "time", "elapsed", "stale", "server", "throughput", "hotspots", "semaphores", "io", "flush", "host", "advice"}
NESTED_KEYS = {
    "server": {"version", "flavor", "address"},
    "throughput": {"tps", "qps", "commits_per_s", "rollbacks_per_s", "write_trx_per_s", "rows_read_per_s",
                   "rows_changed_per_s", "threads_running"},
    "semaphores": {"os_waits_per_s", "spin_waits_per_s", "spin_rounds_per_s", "waiting_threads", "longest_wait_s"},
    "io": {"threads", "pending_reads", "pending_writes", "pending_fsyncs", "reads_per_s", "writes_per_s",
           "fsyncs_per_s"},
    "flush": {"pages_flushed_per_s", "dirty_pages", "dirty_pct", "checkpoint_age_bytes", "checkpoint_age_pct",
              "log_bytes_per_s", "history_list_length"},
}
HOTSPOT_KEYS = {"name", "kind", "source", "waits_per_s", "wait_ms_per_s", "share", "site"}
HOST_KEYS = {"cpus", "run_queue", "load1", "cpu_user_pct", "cpu_system_pct", "cpu_iowait_pct", "cpu_steal_pct",
             "ctx_switches_per_s", "mysqld_cpu_pct"}
RATE = 20          # per load thread; 2 threads → 40 tps


@pytest.fixture(scope="module")
def loaded(mariadb):
    gen = LoadGenerator(mariadb.root_kwargs(), LoadSpec(mode="oltp", threads=2, rate=RATE, duration=300,
                                                        rows=1000, table="c2_snapshot"))
    gen.prepare()
    gen.start()
    try:
        yield mariadb
    finally:
        gen.stop()


def snapshot(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mysqltop", "snapshot", *args],
                          capture_output=True, text=True, timeout=timeout)


def ok_lines(res: subprocess.CompletedProcess[str]) -> list[str]:
    assert res.returncode == 0 and res.stderr == "", (res.returncode, res.stderr)
    return res.stdout.splitlines()


def parse_iso(s: str) -> float:
    assert s.endswith("Z")
    return datetime.fromisoformat(s[:-1] + "+00:00").timestamp()


def check_frame_shape(d: dict) -> None:
    assert FRAME_KEYS <= d.keys(), FRAME_KEYS - d.keys()
    for group, keys in NESTED_KEYS.items():
        assert keys <= d[group].keys(), (group, keys - d[group].keys())
    for h in d["hotspots"]:
        assert HOTSPOT_KEYS <= h.keys()
    assert d["host"] is None or HOST_KEYS <= d["host"].keys()
    for a in d["advice"]:
        assert {"id", "severity", "message", "evidence"} <= a.keys()


def test_json_count_3_prints_three_frames_with_rates(loaded) -> None:
    t0 = time.monotonic()
    lines = ok_lines(snapshot(*loaded.cli_args(), "--format", "json", "--count", "3", "--interval", "0.5"))
    took = time.monotonic() - t0
    assert len(lines) == 3
    frames = [json.loads(line) for line in lines]
    for d in frames:
        check_frame_shape(d)
        assert d["stale"] is False and d["elapsed"] >= 0.4      # paced: never sooner (a busy box may be later)
        assert d["server"]["flavor"] == "mariadb" and d["server"]["address"].endswith(f":{loaded.port}")
        assert d["server"]["version"].startswith("10.")
        assert d["throughput"]["tps"] == pytest.approx(2 * RATE, rel=0.5)
        assert d["throughput"]["qps"] >= d["throughput"]["tps"]
        assert d["hotspots"] and d["hotspots"][0]["source"] == "performance_schema"
        shares = [h["share"] for h in d["hotspots"]]
        assert shares == sorted(shares, reverse=True)
    times = [parse_iso(d["time"]) for d in frames]
    assert all(b - a >= 0.4 for a, b in zip(times, times[1:]))
    # each frame's rates are over the time between its samples
    assert all(b - a == pytest.approx(d["elapsed"], abs=0.05) for a, b, d in zip(times, times[1:], frames[1:]))
    assert took >= 1.5                         # 4 polls, 0.5 s apart: the baseline is not printed


def test_default_is_one_frame_with_rates(loaded) -> None:
    lines = ok_lines(snapshot(*loaded.cli_args(), "--format", "json", "--interval", "0.3"))
    assert len(lines) == 1
    d = json.loads(lines[0])
    assert d["elapsed"] >= 0.2 and d["throughput"]["tps"] > 0


def test_csv_header_then_one_row_per_frame(loaded) -> None:
    lines = ok_lines(snapshot(*loaded.cli_args(), "--format", "csv", "--count", "2", "--interval", "0.4"))
    assert len(lines) == 3
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    assert len({len(r) for r in rows}) == 1
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        parse_iso(r["time"])
        assert float(r["throughput.tps"]) > 0 and float(r["elapsed"]) >= 0.3
        assert r["server.flavor"] == "mariadb" and r["stale"] == "false"
        assert r["hotspot.top.source"] == "performance_schema" and 0 < float(r["hotspot.top.share"]) <= 1
        assert int(r["hotspots"]) >= 1
        assert int(r["pressure.threads_connected"]) >= 1 and int(r["pressure.max_connections"]) > 0


def test_openmetrics_is_a_valid_exposition(loaded) -> None:
    res = snapshot(*loaded.cli_args(), "--format", "openmetrics", "--interval", "0.4")
    ok_lines(res)
    types, samples = parse_om(res.stdout)
    vals = {(n, labels): v for n, labels, v in samples}
    server = f'server="127.0.0.1:{loaded.port}"'
    assert vals[("mysqltop_transactions_total", "{" + server + "}")] > 0      # the server's own counter
    assert vals[("mysqltop_stale", "{" + server + "}")] == 0
    spots = [(labels, v) for (n, labels), v in vals.items() if n == "mysqltop_latch_waits_total"]
    assert spots and all('source="performance_schema"' in labels and server in labels for labels, _ in spots)
    assert 'flavor="mariadb"' in next(labels for (n, labels) in vals if n == "mysqltop_server_info")


def test_text_is_a_one_screen_report(loaded) -> None:
    lines = ok_lines(snapshot(*loaded.cli_args(), "--count", "1", "--interval", "0.4"))
    assert lines[0].startswith("== ") and f":{loaded.port}" in lines[0]
    heads = [next(i for i, l in enumerate(lines) if l.startswith(h))
             for h in ("HOTSPOTS", "THROUGHPUT", "ROW LOCKS", "SEMAPHORES", "IO", "FLUSH", "HOST")]
    assert heads == sorted(heads) and heads[0] == 1
    assert lines[2].split()[:3] == ["name", "src", "waits/s"] and lines[3].split()[1] == "P_S"
    tps = lines[heads[1]].split()[2]
    assert tps not in ("-", "0")
    assert len(lines) < 45                      # one screen


def test_ctrl_c_exits_130_quietly(loaded) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "mysqltop", "snapshot", *loaded.cli_args(), "--format", "json",
                             "--count", "100", "--interval", "0.3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()          # flushed per frame: arrives before the process ends
        assert json.loads(first)["throughput"]["tps"] is not None
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130 and err == ""


@pytest.mark.parametrize("args,says", [
    (["--count", "0"], "--count"),
    (["--interval", "0"], "--interval"),
    (["--start=-5m"], "--replay"),
    (["--replay", "/nonexistent/x.mtrec"], "no such recording"),
    (["--replay", "/nonexistent/x.mtrec", "-h", "127.0.0.1"], "drop --host"),
])
def test_usage_errors_are_one_line_exit_2(args, says) -> None:
    res = snapshot(*args)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("mysqltop: ") and res.stderr.count("\n") == 1 and says in res.stderr


def test_wrong_password_is_one_line_exit_2(mariadb) -> None:
    res = snapshot(*mariadb.cli_args(password="wrong"), "--format", "json")
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("mysqltop: ") and res.stderr.count("\n") == 1
    assert "Traceback" not in res.stderr


def test_replay_derives_exactly_what_live_showed(loaded, tmp_path: Path) -> None:
    from mysqltop.recording.writer import RecordingWriter
    from mysqltop.arguments import open_live

    path = tmp_path / "live.mtrec"
    args = build_parser().parse_args(["snapshot", *loaded.cli_args(), "--interval", "0.3"])
    source, _caps = open_live(args)
    live: list[str] = []
    engine = Engine(source, PolledTimeline(), RecordingWriter(path, interval=0.3))
    try:
        assert engine.run(0.3, count=6, on_frame=lambda f: live.append(json_frame(f))) == 6
    finally:
        engine.close()
    assert engine.recording_error is None

    # the whole recording: the first sample is the baseline, every other frame is identical
    replayed = ok_lines(snapshot("--replay", str(path), "--format", "json"))   # unpaced: tests/test_engine.py
    assert replayed == [line.rstrip("\n") for line in live[1:]]
    assert ok_lines(snapshot("--replay", str(path), "--format", "json", "--count", "2")) == replayed[:2]

    # from the 3rd sample on: the sample before it primes the rates, so the first frame has them
    third = json.loads(live[2])["time"]
    part = [json.loads(x) for x in ok_lines(snapshot("--replay", str(path), "--format", "json", "--start", third))]
    assert [d["time"] for d in part] == [json.loads(x)["time"] for x in live[2:]]
    want = json.loads(live[2])
    for key in ("elapsed", "throughput", "hotspots", "flush", "io", "semaphores"):
        assert part[0][key] == want[key], key


def test_disabled_instruments_are_noted_and_enable_instruments_turns_them_on(mariadb_factory) -> None:
    db = mariadb_factory(name="instr")
    db.query("UPDATE performance_schema.setup_instruments SET ENABLED='NO', TIMED='NO' "
             "WHERE NAME LIKE 'wait/synch/%'")
    off = snapshot(*db.cli_args(), "--format", "json", "--interval", "0.3")
    assert off.returncode == 0 and off.stderr.startswith("mysqltop: note: ")
    assert "UPDATE performance_schema.setup_instruments SET ENABLED='YES'" in off.stderr
    assert json.loads(off.stdout)["hotspots"] == []          # frozen counters: nothing moves

    denied = snapshot(*db.cli_args(), "--enable-instruments", "--interval", "0.3")
    assert denied.returncode == 2 and denied.stdout == "" and "GRANT UPDATE" in denied.stderr

    on = snapshot(*db.cli_args(user="root", password=""), "--enable-instruments", "--format", "json",
                  "--interval", "0.3")
    assert on.returncode == 0 and re.search(r"mysqltop: note: enabled (\d+) of the \1 latch instruments", on.stderr)
    assert "instruments are disabled" not in on.stderr
    d = json.loads(on.stdout)
    assert d["hotspots"] and d["hotspots"][0]["source"] == "performance_schema"
    # the latches mysqltop ranks, and no other instrument (conditions, Aria, MyISAM stay off)
    where = ENABLE_SQL.split(" WHERE ", 1)[1]
    assert db.query(f"SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE ({where}) AND ENABLED='NO'") == [(0,)]
    assert db.query("SELECT COUNT(*) FROM performance_schema.setup_instruments "
                    "WHERE NAME LIKE 'wait/synch/cond/%' AND ENABLED='YES'") == [(0,)]
