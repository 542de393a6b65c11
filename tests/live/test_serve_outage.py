"""`mysqltop serve` says on stderr (the journal under systemd) when a server stops answering and
when it answers again, as `record` does; before, only mysqltop_up went to 0 and back."""

from __future__ import annotations

import re
import signal
import sys
from pathlib import Path

import pytest

from tests.support.server_outage import StderrLines, kill_and_restart
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
    serve = StderrLines([sys.executable, "-m", "mysqltop", "serve", *db.cli_args(), "--listen", f"127.0.0.1:{port}"],
                        ROOT)
    try:
        wait_until(lambda: serve.said("serving 1 server"))
        wait_until(lambda: _up(port))                             # a fresh poll before the kill
        kill_and_restart(db, serve)
    finally:
        code = serve.stop(signal.SIGTERM)
    lines = serve.lines
    name = f"127.0.0.1:{db.port}"
    down = [x for x in lines if "no data from the server" in x]
    back = [x for x in lines if "answers again" in x]
    assert len(down) == 1 and len(back) == 1, lines
    assert re.fullmatch(rf"mysqltop: {re.escape(name)}: \d\d:\d\d:\d\d no data from the server: .+ — "
                        r"mysqltop_up 0, reconnecting\n", down[0]), lines
    assert re.fullmatch(rf"mysqltop: {re.escape(name)}: \d\d:\d\d:\d\d the server answers again after \S+ "
                        r"\(\d+ samples? without its data\); it restarted \(up \S+\)\n", back[0]), lines
    assert code == 0, lines
