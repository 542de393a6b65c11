"""`mysqltop record`: a duration is wall time, a file holds one server, a stop is loud."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mysqltop.recording.reader import RecordingReader
from tests.support.tmpfs import small_tmpfs, unmount
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]


def _mysqltop(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mysqltop", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def test_duration_is_wall_time(mariadb, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "d.mtrec"
    t0 = time.monotonic()
    out = _mysqltop("record", str(path), *mariadb.cli_args(), "--interval", "0.5", "--duration", "3s")
    took = time.monotonic() - t0
    assert out.returncode == 0, out.stderr
    assert "until " in out.stderr and "(3s)" in out.stderr and "samples" not in out.stderr.splitlines()[0]
    with RecordingReader(path) as r:
        span = r.time_at(len(r) - 1) - r.time_at(0)
        assert len(r) >= 2
    # the samples cover (at most) the 3 s asked for, whatever the polls cost; the process adds
    # only its start (interpreter, connect) on top
    assert span <= 3.0 + 0.2, span
    assert took < 3.0 + 30, took


def test_appending_another_servers_samples_is_refused(mariadb, mariadb_factory, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "one.mtrec"
    first = _mysqltop("record", str(path), *mariadb.cli_args(), "--interval", "0.2", "--count", "2")
    assert first.returncode == 0, first.stderr
    again = _mysqltop("record", str(path), *mariadb.cli_args(), "--interval", "0.2", "--count", "2")
    assert again.returncode == 0, again.stderr                   # the same server: appended
    other = mariadb_factory(name="other")
    refused = _mysqltop("record", str(path), *other.cli_args(), "--interval", "0.2", "--count", "2")
    assert refused.returncode == 2
    line = refused.stderr.strip().splitlines()[-1]
    assert f"127.0.0.1:{mariadb.port}" in line and f"127.0.0.1:{other.port}" in line and "another file" in line
    with RecordingReader(path) as r:
        assert len(r) == 4 and {r.sample(i).server.address for i in range(4)} == {f"127.0.0.1:{mariadb.port}"}


def test_a_full_disk_stops_record_with_exit_1_and_the_reason(mariadb) -> None:  # type: ignore[no-untyped-def]
    # room for the file's start (the first chunk's dictionary, kept twice) and a few samples:
    # the disk fills while recording, not at open (that case is a plain one-line error)
    d = small_tmpfs("1m")
    if d is None:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        out = _mysqltop("record", f"{d}/full.mtrec", *mariadb.cli_args(), "--interval", "0.05",
                        "--max-size", "0", timeout=300)
        assert out.returncode == 1, out.stderr
        last = out.stderr.strip().splitlines()[-1]
        assert "recording stopped (disk full)" in last and "all readable" in last, out.stderr
        assert "Traceback" not in out.stderr
        # every sample it acknowledged reads back, on the full disk itself
        written = int(re.search(r"after (\d+) samples?", last).group(1))       # type: ignore[union-attr]
        with RecordingReader(f"{d}/full.mtrec") as r:
            assert len(r) == written >= 2, r.notice
            for i in range(written):
                r.sample(i)
    finally:
        unmount(d)


def test_record_says_when_the_server_goes_away_and_comes_back_restarted(mariadb_factory, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """record printed nothing while a killed server was down nor when it came back restarted: an
    operator watching the recorder's terminal could not tell its file had a hole."""
    import signal

    from tests.support.server_outage import StderrLines, kill_and_restart

    db = mariadb_factory(name="recout")
    out = tmp_path / "r.mtrec"
    record = StderrLines([sys.executable, "-m", "mysqltop", "record", str(out), *db.cli_args()], ROOT)
    try:
        wait_until(lambda: _has_samples(out, 2))
        kill_and_restart(db, record)
    finally:
        code = record.stop(signal.SIGINT)
    lines = record.lines
    assert "recording every sample" in lines[0], lines
    assert re.fullmatch(r"mysqltop: \d\d:\d\d:\d\d no data from the server: .+ — still recording \(host "
                        r"counters only\), reconnecting\n", lines[1]), lines
    assert re.fullmatch(r"mysqltop: \d\d:\d\d:\d\d the server answers again after \S+ \(\d+ samples? "
                        r"without its data\); it restarted \(up \S+\)\n", lines[2]), lines
    assert code == 0, lines


def _has_samples(path: Path, n: int) -> bool:
    if not path.exists():
        return False
    try:
        with RecordingReader(path) as r:
            return len(r) >= n
    except Exception:  # noqa: BLE001 — not yet a complete file
        return False


def test_keep_going_pauses_on_a_full_disk_and_resumes_in_a_new_segment(mariadb) -> None:  # type: ignore[no-untyped-def]
    import os
    import signal
    import threading

    from tests.support.tmpfs import fill

    d = small_tmpfs("2m")
    if d is None:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    proc = subprocess.Popen([sys.executable, "-m", "mysqltop", "record", f"{d}/kg.mtrec", *mariadb.cli_args(),
                             "--interval", "0.1", "--max-size", "0", "--keep-going"],
                            cwd=ROOT, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    assert proc.stderr is not None
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        wait_until(lambda: os.path.exists(f"{d}/kg.mtrec") and _count(f"{d}/kg.mtrec") >= 5, timeout=60)
        fill(d)
        wait_until(lambda: any("recording paused (disk full)" in ln for ln in lines), timeout=60)
        os.unlink(f"{d}/filler")
        wait_until(lambda: any("recording resumed in a new segment" in ln for ln in lines), timeout=60)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0, lines
        reader.join(timeout=10)
        assert "Traceback" not in "".join(lines)
        assert "paused 1 time for space" in lines[-1], lines
        with RecordingReader(f"{d}/kg.mtrec") as r:
            assert len(r) >= 6 and len(r.segment_starts) >= 2
            for i in range(len(r)):
                r.sample(i)                              # every sample written reads back
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        unmount(d)


def _count(path: str) -> int:
    try:
        with RecordingReader(path) as r:
            return len(r)
    except Exception:
        return 0
