"""`mysqltop serve` says on stderr (the journal under systemd) when a server stops answering and
when it answers again, as `record` does; before, only mysqltop_up went to 0 and back."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.support.waiting import wait_until

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]


def _up(port: int) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as r:
            return re.search(r"^mysqltop_up\{[^}]*\} 1\.0$", r.read().decode(), re.M) is not None
    except OSError:
        return False


def test_serve_says_when_a_server_goes_away_and_comes_back(mariadb_factory) -> None:  # type: ignore[no-untyped-def]
    from tests.support.mariadb import free_port

    db = mariadb_factory(name="srvout")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mysqltop", "serve", *db.cli_args(),
                             "--listen", f"127.0.0.1:{port}"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    assert proc.stderr is not None
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)   # type: ignore[arg-type]
    reader.start()
    try:
        wait_until(lambda: any("serving 1 server" in x for x in lines))
        # up a few seconds first: a restart is told by the server's start moving later than
        # whole-second Uptime allows, which a server killed in its first second cannot show
        wait_until(lambda: int(db.query("SHOW GLOBAL STATUS LIKE 'Uptime'")[0][1]) >= 4)
        wait_until(lambda: _up(port))                             # a fresh poll before the kill
        os.kill(db.pid, signal.SIGKILL)
        db.proc.wait()
        wait_until(lambda: any("no data from the server" in x for x in lines))
        db.start()
        wait_until(lambda: any("answers again" in x for x in lines))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
        reader.join(60)
    name = f"127.0.0.1:{db.port}"
    down = [x for x in lines if "no data from the server" in x]
    back = [x for x in lines if "answers again" in x]
    assert len(down) == 1 and len(back) == 1, lines
    assert re.fullmatch(rf"mysqltop: {re.escape(name)}: \d\d:\d\d:\d\d no data from the server: .+ — "
                        r"mysqltop_up 0, reconnecting\n", down[0]), lines
    assert re.fullmatch(rf"mysqltop: {re.escape(name)}: \d\d:\d\d:\d\d the server answers again after \S+ "
                        r"\(\d+ samples? without its data\); it restarted \(up \S+\)\n", back[0]), lines
    assert proc.returncode == 0, lines
