"""The password never shows in ps: /proc/PID/cmdline of a running live, record and snapshot is
read while they poll a real server; recordings, their -wal and JSON stay password-free, 0600."""

from __future__ import annotations

import os
import pty
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.mariadb import MONITOR_PASSWORD, MONITOR_USER

pytestmark = pytest.mark.live


def _conn(db) -> list[str]:
    return ["-h", db.host, "-P", str(db.port), "-u", MONITOR_USER]


def _cmdline_while_running(argv: list[str], *, tty: bool = False, ready=lambda: True) -> str:
    """Start `python -m mysqltop …`, wait until it is past start-up, return its cmdline."""
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    if tty:
        primary, secondary = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "mysqltop", *argv], stdin=secondary, stdout=secondary,
                                stderr=secondary, env=env, start_new_session=True)
        os.close(secondary)
    else:
        proc = subprocess.Popen([sys.executable, "-m", "mysqltop", *argv], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:                 # past imports and the first poll: the title was rewritten by then
            assert proc.poll() is None, f"exited {proc.returncode}"
            if ready() and time.monotonic() > deadline - 57:
                break
            assert time.monotonic() < deadline, "never became ready"
            time.sleep(0.2)
        return Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode(errors="replace")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if tty:
            os.close(primary)


def test_snapshot_password_flag_is_masked(mariadb) -> None:
    cmd = _cmdline_while_running(["snapshot", *_conn(mariadb), f"--password={MONITOR_PASSWORD}",
                                  "--format", "json", "--count", "1000", "--interval", "0.5"])
    assert MONITOR_PASSWORD not in cmd and "--password=xxxx" in cmd and "snapshot" in cmd


def test_record_short_flag_is_masked_and_files_stay_clean(mariadb, tmp_path: Path) -> None:
    rec = tmp_path / "pw.mtrec"
    cmd = _cmdline_while_running(["record", str(rec), *_conn(mariadb), f"-p{MONITOR_PASSWORD}",
                                  "--interval", "0.3"], ready=rec.exists)
    assert MONITOR_PASSWORD not in cmd and "-pxxxx" in cmd
    files = [p for p in tmp_path.iterdir() if p.name.startswith("pw.mtrec")]
    assert files
    for p in files:
        assert MONITOR_PASSWORD.encode() not in p.read_bytes(), p.name
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p.name


def test_live_separate_value_is_masked(mariadb) -> None:
    cmd = _cmdline_while_running([*_conn(mariadb), "--password", MONITOR_PASSWORD], tty=True)
    assert MONITOR_PASSWORD not in cmd and "xxxx" in cmd
