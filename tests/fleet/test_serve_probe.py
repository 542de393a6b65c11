"""`/probe?target=` scraped by a real Prometheus with the mysqld_exporter relabelling: Prometheus's
own `up` and `instance` describe each database; `--probe-any` starts watching a target on its
first probe; a target not listed without it is refused (Prometheus shows it down)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.support.mariadb import free_port
from tests.support.prometheus import ThrowawayPrometheus, find_prometheus

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]


def _wait(cond, timeout: float, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0


@pytest.mark.parametrize("probe_any", [False, True])
def test_probe_per_database_with_relabelling(mariadb, probe_any: bool) -> None:  # type: ignore[no-untyped-def]
    if find_prometheus() is None:
        pytest.skip("no prometheus binary even after ./dev's install step (apt-get install prometheus)")
    port, dead = free_port(), free_port()
    db = f"127.0.0.1:{mariadb.port}"
    listed = ["-h", db] if not probe_any else ["-h", f"127.0.0.1:{free_port()}"]   # the db itself not listed
    account = mariadb.cli_args()[2:]
    if probe_any:                  # a probed server gets the user name only: an account without a password
        for host in ("%", "localhost"):
            mariadb.query(f"CREATE USER IF NOT EXISTS 'probed'@'{host}'")
            mariadb.query(f"GRANT PROCESS ON *.* TO 'probed'@'{host}'")
            mariadb.query(f"GRANT SELECT ON performance_schema.* TO 'probed'@'{host}'")
        account = ["-P", str(mariadb.port), "-u", "probed"]
    serve = subprocess.Popen([sys.executable, "-m", "mysqltop", "serve", *account, *listed,
                              "--listen", f"127.0.0.1:{port}", "--interval", "1", "--connect-timeout", "1",
                              *(["--probe-any"] if probe_any else [])],
                             cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    exporter = f"127.0.0.1:{port}"
    try:
        _wait(lambda: _status(f"http://{exporter}/metrics") == 200, 60, "serve to answer")
        unlisted = _status(f"http://{exporter}/probe?target=127.0.0.1:{dead}")
        assert unlisted == (200 if probe_any else 404)
        with ThrowawayPrometheus([db, f"127.0.0.1:{dead}"], scrape_interval="1s", probe=exporter) as prom:
            def answered() -> dict[str, str]:
                return {r["metric"]["instance"]: r["value"][1] for r in prom.query("up")["result"]}

            ups = _wait(lambda: (u := answered()) and len(u) == 2 and u, 60, "both targets scraped")
            assert ups[db] == "1"
            assert ups[f"127.0.0.1:{dead}"] == ("1" if probe_any else "0")     # refused: Prometheus says down

            def db_counters() -> list:
                return prom.query(f'mysqltop_transactions_total{{instance="{db}"}}')["result"]

            got = _wait(db_counters, 90, "the database's counters under its own instance")
            assert got[0]["metric"]["server"] == db and got[0]["metric"]["job"] == "mysqltop"
            # one database per target: no other server's series under this instance
            servers = {r["metric"]["server"] for r in prom.query(f'mysqltop_up{{instance="{db}"}}')["result"]}
            assert servers == {db}
            if probe_any:
                down = _wait(lambda: prom.query(f'mysqltop_up{{instance="127.0.0.1:{dead}"}}')["result"], 60,
                             "the probed dead server's mysqltop_up")
                assert down[0]["value"][1] == "0"
    finally:
        serve.send_signal(signal.SIGTERM)
        _, err = serve.communicate(timeout=60)
    assert serve.returncode == 0, err
