"""`mysqltop report` over a recording written with the real RecordingWriter.

The recording replays the MariaDB lab capture (P_S waits and global status, per-second rates =
capture / 18 s uptime): for the first minute the table cache lock is quiet (its counter flat),
then LOCK_table_cache contention starts, as in the capture.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.core.sample import HostSample, RawSample, ServerIdentity
from mysqltop.recording.writer import RecordingWriter

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"
T0 = 1_767_225_600.0            # 2026-01-01 00:00:00 UTC
UPTIME = 18
VARS = {"table_open_cache_instances": "1", "table_open_cache": "2000", "performance_schema": "ON"}


def _tsv(path: Path) -> list[list[str]]:
    with path.open() as fh:
        return list(csv.reader(fh, delimiter="\t"))[1:]


def _grow(value: str, seconds: int) -> str:
    return str(int(value) * seconds // UPTIME) if value.isdigit() else value


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ps = _tsv(CORPUS / "ps-waits/mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv")
    status = dict(r for r in _tsv(CORPUS / "global-status/mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv") if len(r) == 2)
    path = tmp_path_factory.mktemp("rec") / "incident.mtrec"
    server = ServerIdentity("10.11.19-MariaDB-0+deb12u1", "mariadb", "lab:3306", "lab", local=True)
    with RecordingWriter(path, interval=1.0) as w:
        for k in range(121):
            hot_s = max(0, k - 60)             # seconds of table cache contention so far
            rows = [[r[0], _grow(r[1], hot_s if "LOCK_table_cache" in r[0] else k),
                     _grow(r[2], hot_s if "LOCK_table_cache" in r[0] else k), *r[3:]] for r in ps]
            st = {n: _grow(v, k) for n, v in status.items() if n != "Threads_running"}   # a gauge
            # sysbench's 32 threads connected once, at its start: no connection churn afterwards
            st.update(Connections=status["Connections"], Threads_created=status["Threads_created"])
            st["Threads_running"] = "14"
            st["Uptime"] = str(100 + k)
            host = HostSample(cpus=4, cpu_times={"user": 2.0 * k, "system": 0.8 * k, "idle": 1.2 * k, "iowait": 0.0},
                              ctx_switches=50_000 * k, procs_running=3 if k < 60 else 9, procs_blocked=0,
                              loadavg=(2.0, 2.0, 2.0), mysqld_cpu_s=2.5 * k)
            w.append(RawSample(wall=T0 + k, mono=float(k), server=server, ps_waits=rows, global_status=st,
                               variables=VARS, host=host))
            if k == 61:
                w.bookmark(T0 + k, "host.run_queue>=6", 8.0)
    return path


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["report", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_report_names_the_hot_spot_and_the_advice_with_when(recording: Path, capsys) -> None:
    code, out, _ = run([str(recording)], capsys)
    assert code == 0
    assert "window: 2026-01-01 00:00:00 – 2026-01-01 00:02:00 UTC (2m00s, 121 samples, 0 stale)" in out
    assert "LOCK_table_cache" in out
    # 36 s into the contention, it held in 60 % of the last minute
    # 0.2 thread-equivalents of 13 sessions running: worth knowing, not an incident
    assert "[info] table_cache  00:01:36–00:02:00 (25 samples)" in out
    assert "table_open_cache_instances = 1" in out and "(178 ms/s, 14,076 waits/s)" in out
    # 14 threads running and a run queue of 8 on 4 CPUs in the second minute
    assert "BOOKMARKS\n  00:01:01  host.run_queue>=6 (value 8)" in out
    # the host's CPUs are 70 % busy: not saturated, whatever the run queue says
    assert "4 CPUs; run queue avg 5.0, max 8" in out and "cpu_saturation" not in out


def test_report_window_and_json(recording: Path, capsys) -> None:
    code, out, _ = run([str(recording), "--start", "+1m", "--format", "json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["start"] == "2026-01-01T00:01:00.000Z" and data["frames"] == 61
    assert data["hotspots"][0]["name"] == "LOCK_table_cache" and round(data["hotspots"][0]["share"], 2) == 0.68   # of all wait time; absent in its first second
    assert [a["id"] for a in data["window_advice"]] == ["table_cache"]
    assert data["throughput"]["tps"]["avg"] == pytest.approx(394, abs=1)
    assert data["bookmarks"] == [{"time": "2026-01-01T00:01:01.000Z", "trigger": "host.run_queue>=6",
                                  "value": 8.0, "note": None}]


def test_report_compare_before_and_after(recording: Path, capsys) -> None:
    code, out, _ = run([str(recording), "--compare", "start..+1m", "+1m..end", "--format", "md"], capsys)
    assert code == 0
    assert out.startswith("# mysqltop report: two windows compared")
    assert "- only in B (new): table_cache" in out
    assert "| LOCK_table_cache | 0% | 68% | - | 14k | performance_schema |" in out


@pytest.mark.parametrize("args, message", [
    (["/nonexistent/x.mtrec"], "no such recording"),
    (["{rec}", "--start", "yesterday-ish"], "--start: bad time"),
    (["{rec}", "--start", "+5m"], "no samples in"),
    (["{rec}", "--compare", "02:00", "+1m..end"], "--compare: bad window '02:00'"),
    (["{rec}", "--compare", "a..b", "c..d", "--start", "+1m"], "--compare names its own windows"),
    # a bad time inside a window was reported as "--start: bad time 'a'", a flag not given
    (["{rec}", "--compare", "a..+1m", "+1m..end"], "--compare a..+1m: bad time 'a'"),
    (["{rec}", "--compare", "start..+1m", "+1m..zz"], "--compare +1m..zz: bad time 'zz'"),
])
def test_user_errors_are_one_line(recording: Path, capsys, args: list[str], message: str) -> None:
    code, out, err = run([a.format(rec=recording) for a in args], capsys)
    assert code == 2 and out == ""
    assert err.startswith("mysqltop: ") and message in err and err.count("\n") == 1


INCIDENT = Path(__file__).resolve().parents[1] / "mysqltop" / "data" / "incident.mtrec"
needs_incident = pytest.mark.skipif(not INCIDENT.exists(), reason="mysqltop/data/incident.mtrec not built")


@needs_incident
def test_bundled_incident_names_the_injected_hot_spots_and_their_advice(capsys) -> None:
    # scripts/make_incident.py: an 8 MB buffer pool under full scans, and writers queueing on a hot row.
    code, out, _ = run([str(INCIDENT), "--format", "json"], capsys)
    assert code == 0
    data = json.loads(out)
    top = data["hotspots"][0]
    assert top["name"] == "buf_pool_mutex" and top["share"] > 0.4
    episodes = {e["id"]: e for e in data["advice"]}
    # the storm also ran ~20 sessions on 2 CPUs, but ~5 of them always asleep on the hot row and
    # mysqld using at most 1.4 cores: no CPU verdict (a thread pool would not help)
    assert {"buffer_pool_mutex", "row_lock_waits"} <= set(episodes) and "cpu_saturation" not in episodes
    bp = episodes["buffer_pool_mutex"]
    # 0.7 thread-equivalents on the pool latch of 13 sessions running
    assert bp["severity"] == "info" and "innodb_buffer_pool_size = 8388608 (8 MiB)" in bp["message"]
    assert "buf_pool_mutex" in bp["evidence"] and "of wait time" in bp["evidence"]
    storm = data["bookmarks"][0]["time"]
    assert storm <= bp["first"] <= data["end"]                       # after the storm began
    assert "ms/s waited on row locks" in episodes["row_lock_waits"]["evidence"]
    assert data["drops"] and all(storm <= d["start"] for d in data["drops"])   # drops only in the storm


@needs_incident
def test_bundled_incident_calm_against_storm(capsys) -> None:
    code, out, _ = run([str(INCIDENT), "--compare", "start..+1m", "+100s..+170s"], capsys)
    assert code == 0
    assert "only in A (gone in B): none" in out
    new = next(line for line in out.splitlines() if line.startswith("  only in B (new): "))
    assert "buffer_pool_mutex" in new and "row_lock_waits" in new


@needs_incident
def test_bundled_incident_calm_and_relief_phases_are_silent(capsys) -> None:
    for window in (["--end", "+90s"], ["--start", "+180s"]):      # calm + build-up; relief
        code, out, _ = run([str(INCIDENT), *window, "--format", "json"], capsys)
        data = json.loads(out)
        assert code == 0 and data["advice"] == [] and data["window_advice"] == [] and data["drops"] == []
