"""The real pt-stalk against a throwaway MariaDB under an injected row-lock pile-up, imported:
the recording's report names the idle transaction everyone waits behind, as the server's own
lock tables do."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pymysql
import pytest

from mysqltop.cli import main
from tests.support.mariadb import TEST_DB, ThrowawayMariaDB
from tests.support.row_waits import start_row_waiter
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live
WAITERS = 4


@pytest.mark.skipif(shutil.which("pt-stalk") is None, reason="pt-stalk (Debian percona-toolkit) not installed")
def test_pt_stalk_collection_of_a_lock_pile_up_imports_and_reports_it(
        mariadb: ThrowawayMariaDB, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mariadb.query(f"CREATE DATABASE IF NOT EXISTS {TEST_DB}")
    mariadb.query(f"CREATE OR REPLACE TABLE {TEST_DB}.stalkrow (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
    mariadb.query(f"INSERT INTO {TEST_DB}.stalkrow VALUES (1, 0)")
    holder = mariadb.root_conn()
    waiters = [mariadb.root_conn() for _ in range(WAITERS)]
    threads = []
    try:
        with holder.cursor() as cur:
            cur.execute("SELECT CONNECTION_ID()")
            holder_id = int(cur.fetchone()[0])
            cur.execute("BEGIN")
            cur.execute(f"UPDATE {TEST_DB}.stalkrow SET v = v + 1 WHERE id = 1")   # then idle
        threads = [start_row_waiter(c, f"UPDATE {TEST_DB}.stalkrow SET v = v + 2 WHERE id = 1") for c in waiters]
        wait_until(lambda: mariadb.query("SELECT COUNT(*) FROM information_schema.INNODB_TRX "
                                         "WHERE trx_state = 'LOCK WAIT'")[0][0] >= WAITERS, timeout=60)
        dest = tmp_path / "pt-stalk"
        run = subprocess.run(
            ["pt-stalk", "--no-stalk", "--iterations=1", "--run-time=5", "--sleep=0", f"--dest={dest}",
             f"--log={tmp_path / 'pt-stalk.log'}", f"--pid={tmp_path / 'pt-stalk.pid'}", "--",
             f"--host={mariadb.host}", f"--port={mariadb.port}", "--user=root"],
            capture_output=True, text=True, timeout=180)
        assert run.returncode == 0, run.stderr[-2000:]
    finally:
        holder.close()
        for t in threads:
            t.join(timeout=30)
        for c in waiters:
            try:
                c.close()
            except pymysql.MySQLError:
                pass
    out = tmp_path / "stalk.mtrec"
    assert main(["import", str(dest), "-o", str(out)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    chains = rep["blocking_chains"]
    assert chains, "the report found no blocking session"
    top = max(chains, key=lambda c: c["max_blocked"])
    assert top["thread_id"] == holder_id and top["max_blocked"] == WAITERS
    assert top["command"] == "Sleep" and top["kill"] == f"KILL {holder_id}"
    assert any((b.get("note") or "").startswith("pt-stalk trigger:") for b in rep["bookmarks"])
    assert rep["throughput"]["threads_running"]["samples"] >= 3
