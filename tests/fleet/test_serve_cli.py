"""`mysqltop serve` as a DBA meets it: a dead server still gets an endpoint, bad flags get one line."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.support.mariadb import free_port

ROOT = Path(__file__).resolve().parents[2]


def _serve(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "mysqltop", "serve", "-u", "x", "--connect-timeout", "1", *args],
                            cwd=ROOT, env={**os.environ, "MYSQL_PWD": "y"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_server_that_is_down_is_served_as_down_and_sigterm_ends_cleanly() -> None:
    dead, port = free_port(), free_port()
    proc = _serve("-h", f"127.0.0.1:{dead}", "--listen", f"127.0.0.1:{port}")
    try:
        body = b""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and b"mysqltop_stale_polls_total" not in body:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
                    body = r.read()
            except OSError:
                time.sleep(0.3)
        assert f'mysqltop_up{{server="127.0.0.1:{dead}"}} 0.0'.encode() in body, body[:2000]
        assert b"mysqltop_transactions_total{" not in body
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert f"127.0.0.1:{dead}".encode() in err and b"serving 1 server on http://127.0.0.1:" in err


def test_bad_listen_and_busy_port_are_one_line_exit_2() -> None:
    proc = _serve("-h", "127.0.0.1:1", "--listen", "nonsense")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and err.decode().count("\n") == 1 and "--listen nonsense" in err.decode()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _serve("-h", "127.0.0.1:1", "--listen", f"127.0.0.1:{port}")
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "cannot listen on" in err.decode() and "Traceback" not in err.decode()
