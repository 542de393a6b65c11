"""/probe?target= addresses a server serve watches over a unix socket (it used to append :3306)."""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.support.mariadb import MONITOR_PASSWORD, MONITOR_USER, free_port
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError:
        return 0, ""


def test_a_socket_watched_server_answers_its_probe(mariadb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    port = free_port()
    serve = subprocess.Popen([sys.executable, "-m", "mysqltop", "serve", "-S", mariadb.socket, "-u", MONITOR_USER,
                              f"--password={MONITOR_PASSWORD}", "--listen", f"127.0.0.1:{port}", "--interval", "1"],
                             cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    base = f"http://127.0.0.1:{port}"
    try:
        target = urllib.parse.quote(mariadb.socket, safe="/")
        up = f'mysqltop_up{{server="{mariadb.socket}"}} 1'
        status, body = wait_until(lambda: (r := _get(f"{base}/probe?target={target}")) and up in r[1] and r, timeout=60)
        assert status == 200 and "mysqltop_transactions_total" in body
        assert _get(f"{base}/probe?target=/tmp/not-watched.sock")[0] == 404
    finally:
        serve.terminate()
        _, err = serve.communicate(timeout=60)
    assert serve.returncode == 0, err
