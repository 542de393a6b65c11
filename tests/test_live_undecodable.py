"""A statement whose bytes are not UTF-8 (sent through a latin1 or a careless client) is the
server's to keep and the monitor's to show: it must cost neither the poll nor the session."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

BAD = b"SELECT SLEEP(60) /* undecodable \xed\xa0\x80 \xc3\x28 \xff */"


def test_snapshot_reads_sessions_whose_statement_does_not_decode(mariadb) -> None:  # type: ignore[no-untyped-def]
    import pymysql

    conn = pymysql.connect(**mariadb.root_kwargs(), autocommit=True)
    with conn.cursor() as cur:
        cur.execute("SELECT CONNECTION_ID()")
        tid = int(cur.fetchone()[0])
    sleeper = threading.Thread(target=lambda: _quiet(conn.query, BAD), daemon=True)
    sleeper.start()
    try:
        with mariadb.root_conn() as root, root.cursor() as cur:      # wait until the server shows it
            for _ in range(200):
                cur.execute("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = %s "
                            "AND COMMAND = 'Query'", (tid,))
                if cur.fetchone()[0]:
                    break
                threading.Event().wait(0.05)
        res = subprocess.run([sys.executable, "-m", "mysqltop", "snapshot", *mariadb.cli_args(), "--count", "2",
                              "--interval", "0.5", "--format", "json"], cwd=Path(__file__).resolve().parents[1],
                             capture_output=True, text=True, timeout=120)
    finally:
        mariadb.query(f"KILL {tid}")
        sleeper.join(timeout=30)
    assert res.returncode == 0, res.stderr
    last = json.loads(res.stdout.strip().splitlines()[-1])
    assert not last["stale"] and not last["errors"], last["errors"]
    mine = [s for s in last["sessions"] if s.get("thread_id") == tid]
    assert mine and "undecodable \ufffd" in mine[0]["statement"], last["sessions"]


def _quiet(fn, *args) -> None:  # type: ignore[no-untyped-def]
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 - the test KILLs it
        pass
