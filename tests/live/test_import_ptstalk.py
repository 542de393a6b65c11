"""The real pt-stalk against a throwaway MariaDB, imported: under an injected row-lock pile-up the
recording's report names the idle transaction everyone waits behind, as the server's own lock
tables do; run the common way (`--iterations=2`), its folder of two collections is one
recording, oldest first, the time between them marked not recorded, the server named from
-variables, and nothing advised for what pt-stalk does not collect."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pymysql
import pytest

from mysqltop.cli import main
from mysqltop.recording.reader import RecordingReader
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


def _stalk(db: ThrowawayMariaDB, dest: Path) -> None:
    """pt-stalk --no-stalk --iterations=2, its sleep longer than its run time (as the defaults,
    30 s and 300 s, are), in a process group of its own, killed whole if anything goes wrong."""
    proc = subprocess.Popen(
        ["pt-stalk", "--no-stalk", "--iterations=2", "--run-time=2", "--sleep=8", f"--dest={dest}",
         f"--pid={dest}.pid", f"--log={dest}.log", "--", f"--socket={db.socket}", "--user=root"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert proc.wait(timeout=240) == 0, Path(f"{dest}.log").read_text()[-2000:]
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)       # its collectors too, whatever happened
        except ProcessLookupError:
            pass
        proc.wait()


@pytest.mark.skipif(shutil.which("pt-stalk") is None, reason="pt-stalk (Debian percona-toolkit) not installed")
def test_two_iterations_of_the_real_pt_stalk_are_one_recording(mariadb: ThrowawayMariaDB, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    dest = tmp_path / "pt-stalk"
    _stalk(mariadb, dest)
    prefixes = sorted({p.name[:19] for p in dest.iterdir()})
    assert len(prefixes) == 2
    out = tmp_path / "stalk.mtrec"
    assert main(["import", str(dest), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "2 collections, imported oldest first, one segment each" in err and ", ".join(prefixes) in err
    with RecordingReader(out) as r:
        times = [r.time_at(i) for i in range(len(r))]
        starts = r.segment_starts
        marks = [b for b in r.bookmarks if b.note]
        raws = [r.sample(i) for i in range(len(r))]
    assert times == sorted(times) and len(starts) == 2
    gap = next(b for b in marks if b.note.startswith("not recorded:"))
    assert gap.index == starts[1] and f"between pt-stalk collections {prefixes[0]} and {prefixes[1]}" in gap.note
    assert sum(1 for b in marks if b.note.startswith("pt-stalk trigger:")) == 2
    version = mariadb.query("SELECT VERSION()")[0][0]
    assert {(x.server.flavor, x.server.version) for x in raws} == {("mariadb", version)}
    assert all(x.not_recorded is not None and "ps_waits" in x.not_recorded for x in raws)
    assert sum(1 for x in raws if x.innodb_status) == 4                      # two snapshots per collection
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["server"]["version"] == version
    assert "synch_instruments_off" not in {a["id"] for a in rep["advice"]}
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "not recorded:" in text and "[mysqld]" not in text and "grant PROCESS" not in text
