"""Replay equals live, and `mysqltop record` end to end, against the throwaway MariaDB under load."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mysqltop.cli import build_parser
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.engine import Engine
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter
from mysqltop.arguments import open_live
from mysqltop.sources.replay_source import ReplaySource
from mysqltop.views.headless import json_frame
from tests.support.load import LoadGenerator, LoadSpec
from tests.support.recorded import samples_in
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]

# Fields that by nature differ between live and replay: none. A frame is derived only from the
# RawSamples (time, counters, texts, host counters are all recorded), so every key must match.
DIFFERING_FIELDS: set[str] = set()


@pytest.fixture(scope="module")
def loaded(mariadb):  # type: ignore[no-untyped-def]
    gens = [LoadGenerator(mariadb.root_kwargs(), LoadSpec(mode="oltp", threads=3, rate=40, duration=300,
                                                          rows=2000, table="e_record", plain_queries=1)),
            LoadGenerator(mariadb.root_kwargs(), LoadSpec(mode="hot", threads=3, hold_ms=5, duration=300,
                                                          table="e_record"))]
    gens[0].prepare()
    for g in gens:
        g.start()
    try:
        yield mariadb
    finally:
        for g in gens:
            g.stop()


def _mysqltop(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mysqltop", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def test_replay_equals_live(loaded, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "live.mtrec"
    args = build_parser().parse_args(["record", str(path), *loaded.cli_args(), "--interval", "0.5"])
    source, _ = open_live(args)
    writer = RecordingWriter(path, interval=0.5)
    live: list[str] = []
    engine = Engine(source, PolledTimeline(), recorder=writer)
    try:
        engine.run(0.5, count=14, on_frame=lambda f: live.append(json_frame(f)))
    finally:
        engine.close()
    assert len(live) == 14
    assert json.loads(live[-1])["throughput"]["tps"] > 10           # really under load
    replayed: list[str] = []
    pipeline = PolledTimeline()
    src = ReplaySource(path)
    while (raw := src.read()) is not None:
        replayed.append(json_frame(pipeline.push(raw)))
    src.close()
    assert len(replayed) == len(live)
    for i, (a, b) in enumerate(zip(live, replayed)):
        da, db = json.loads(a), json.loads(b)
        for key in DIFFERING_FIELDS:
            da.pop(key, None), db.pop(key, None)
        assert da == db, f"frame {i} differs"
    assert live == replayed                                          # byte for byte, in fact


def test_record_command_writes_a_replayable_file(loaded, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "cli.mtrec"
    out = _mysqltop("record", str(path), *loaded.cli_args(), "--interval", "0.3", "--count", "6", "--redact")
    assert out.returncode == 0, out.stderr
    assert "6 samples" in out.stderr
    with RecordingReader(path) as r:
        assert len(r) == 6 and r.meta.redacted and r.meta.interval == 0.3
        assert r.meta.server.flavor == "mariadb"
        status = "\n".join(r.sample(i).innodb_status or "" for i in range(6))
        assert "UPDATE e_record" not in status and "SELECT c FROM e_record" not in status
    assert (os.stat(path).st_mode & 0o777) == 0o600
    snap = _mysqltop("snapshot", "--replay", str(path), "--format", "json")
    assert snap.returncode == 0, snap.stderr
    frames = [json.loads(line) for line in snap.stdout.splitlines()]
    # snapshot prints only frames with rates: the first sample is the baseline. On a loaded box a
    # poll may run past 0.3 s: its sample holds host counters only (failure "waiting"), no tps.
    assert len(frames) == 5
    answered = [f for f in frames if f.get("failure") != "waiting"]
    assert answered and all(f["throughput"]["tps"] is not None for f in answered), frames


def test_record_trigger_mode_writes_only_windows(loaded, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "trig.mtrec"
    # always true once rates exist (tps > 0 under load); 1 s before, 1 s after
    out = _mysqltop("record", str(path), *loaded.cli_args(), "--interval", "0.25", "--count", "8",
                    "--trigger", "throughput.tps>0", "--before", "1s", "--after", "60s")
    assert out.returncode == 0, out.stderr
    assert "recording the incident" in out.stderr
    with RecordingReader(path) as r:
        # the first sample has no rates (trigger false); it is in the ring and written as history
        assert len(r) == 8 and len(r.bookmarks) == 1 and r.bookmarks[0].index == 1
        assert r.meta.trigger == "throughput.tps>0"


def test_kill_9_of_the_recorder_process(loaded, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "k.mtrec"
    proc = subprocess.Popen([sys.executable, "-m", "mysqltop", "record", str(path), *loaded.cli_args(),
                             "--interval", "0.2"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    n = 0
    while time.monotonic() < deadline and n < 8:
        time.sleep(0.3)
        if path.exists() and path.stat().st_size:
            try:
                with RecordingReader(path) as r:
                    n = len(r)
            except Exception:  # noqa: BLE001 - the file may be created but not initialised yet
                n = 0
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert n >= 8
    with RecordingReader(path) as r:
        assert len(r) >= n
        src = ReplaySource(path)
        got = sum(1 for _ in iter(src.read, None))
        src.close()
        assert got == len(r) and not src.damaged


@pytest.mark.parametrize("argv, code, words", [
    (["--trigger", "throughput.tps>>3"], 2, "at position 16"),
    (["--trigger", "thruput.tps>3"], 2, "unknown field 'thruput'"),
    (["--duration", "ten minutes"], 2, "--duration"),
    (["--max-size", "lots"], 2, "--max-size"),
    # 64K was accepted and rotated at every sample (40 samples → 40 files of one sample each)
    (["--max-size", "64K"], 2, "--max-size must be at least 1M"),
])
def test_record_usage_errors_exit_2_before_connecting(tmp_path, argv, code, words) -> None:  # type: ignore[no-untyped-def]
    out = _mysqltop("record", str(tmp_path / "x.mtrec"), "-h", "127.0.0.1", "-P", "1", *argv)
    assert out.returncode == code and words in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert not (tmp_path / "x.mtrec").exists()


def test_record_file_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    notrec = tmp_path / "notes.txt"
    notrec.write_text("my notes\n" * 100)
    for target, words in ((notrec, "not a mysqltop recording"), (tmp_path / "nodir" / "x.mtrec", "does not exist")):
        out = _mysqltop("record", str(target), "-h", "127.0.0.1", "-P", "1", "--count", "1")
        assert out.returncode == 2 and words in out.stderr and out.stderr.count("\n") == 1
    assert notrec.read_text() == "my notes\n" * 100                # never clobbered


def _at_least(path: Path, n: int) -> int:
    """Samples in a recording being written, once it holds `n`."""
    wait_until(lambda: samples_in(path) >= n, timeout=30)
    return samples_in(path)


def _recorder_in_a_terminal(path: Path, db):  # type: ignore[no-untyped-def]
    """`mysqltop record` at 0.2 s in a pseudo-terminal, as a DBA on ssh runs it."""
    from tests.tui.pty_app import PtyApp

    return PtyApp([sys.executable, "-m", "mysqltop", "record", str(path), *db.cli_args(), "--interval", "0.2"],
                  (100, 30))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_ctrl_c_sigterm_and_hangup_stop_cleanly(loaded, tmp_path, sig) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "stop.mtrec"
    proc = subprocess.Popen([sys.executable, "-m", "mysqltop", "record", str(path), *loaded.cli_args(),
                             "--interval", "0.2"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    n = _at_least(path, 3)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "samples" in err and "Traceback" not in err
    assert not os.path.exists(f"{path}-wal")       # closed properly: one self-contained file
    with RecordingReader(path) as r:
        assert len(r) >= n


def test_a_recorder_whose_terminal_hangs_up_closes_the_file_and_exits_0(loaded, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "hup.mtrec"
    app = _recorder_in_a_terminal(path, loaded)
    try:
        n = _at_least(path, 3)
        app.hang_up()                     # the ssh session drops: SIGHUP, then EIO on every write
        status = app.exit_status(30)
    finally:
        app.quit()
    assert status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert not os.path.exists(f"{path}-wal")
    with RecordingReader(path) as r:
        assert len(r) >= n


def test_kill_hup_with_the_terminal_still_there_says_the_summary_on_it(loaded, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Only a terminal that is gone has its output sent to /dev/null: `kill -HUP` from another
    shell leaves the closing summary where the DBA is looking."""
    path = tmp_path / "kill-hup.mtrec"
    app = _recorder_in_a_terminal(path, loaded)
    try:
        _at_least(path, 3)
        os.kill(app.pid, signal.SIGHUP)
        status = app.exit_status(30)
    finally:
        app.quit()
    assert status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert re.search(rb"\d+ samples \(\d+ KiB\) in .*kill-hup\.mtrec", app.raw), app.raw[-400:]


def test_a_recorder_started_under_nohup_outlives_the_hangup(loaded, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "nohup.mtrec"
    proc = subprocess.Popen([sys.executable, "-m", "mysqltop", "record", str(path), *loaded.cli_args(),
                             "--interval", "0.2"], cwd=ROOT, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    try:
        n = _at_least(path, 3)
        proc.send_signal(signal.SIGHUP)
        assert _at_least(path, n + 5) >= n + 5           # still recording after the hangup
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err


def test_record_trigger_prints_readable_values_and_says_when_it_never_held(loaded, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "t.mtrec"
    out = _mysqltop("record", str(path), *loaded.cli_args(), "--interval", "0.25", "--count", "4",
                    "--trigger", "throughput.qps>0", "--before", "1s", "--after", "1s")
    assert out.returncode == 0, out.stderr
    fired = next(line for line in out.stderr.splitlines() if "recording the incident" in line)
    value = fired.split("(value ")[1].split(")")[0]
    assert len(value.replace(".", "")) <= 6 and float(value) > 0, fired     # was 239.89633119939776
    never = _mysqltop("record", str(tmp_path / "n.mtrec"), *loaded.cli_args(), "--interval", "0.25",
                      "--count", "3", "--trigger", "throughput.qps<0")
    assert never.returncode == 0, never.stderr
    assert "0 samples" in never.stderr and "`throughput.qps<0` never held, so nothing was recorded" in never.stderr


def test_record_onto_a_file_another_recorder_writes_fails_before_connecting(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.recording.synthetic import series

    path = tmp_path / "busy.mtrec"
    with RecordingWriter(path, interval=1.0) as w:
        w.append(series(1)[0])
        out = _mysqltop("record", str(path), "-h", "127.0.0.1", "-P", "1", "--count", "1")   # port 1: never reached
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "is being written by another recorder" in out.stderr
