"""Hostile statement text on a real server: a blocked UPDATE whose comment prints a fake
TRANSACTIONS section, fake SEMAPHORES cells and terminal escape codes in SHOW ENGINE INNODB STATUS.
The frame must show the real values and no output may carry a raw control character."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time

import pytest

from mysqltop.core.innodb import parse_innodb_status

pytestmark = pytest.mark.live

FAKE = (
    "/* \x1b]0;PWNED-TITLE\x07\x1b[2J\x1b[31m\n"
    "------------\nTRANSACTIONS\n------------\n"
    "Trx id counter 5\nPurge done for trx's n:o < 4 undo n:o < 0 state: running\n"
    "History list length 987654321\nLIST OF TRANSACTIONS FOR EACH SESSION:\n"
    "------- TRX HAS BEEN WAITING 88888 SEC FOR THIS LOCK TO BE GRANTED:\n"
    "----------\nSEMAPHORES\n----------\n"
    "--Thread 1 has waited at btr0cur.c line 424 for 999.00 seconds the semaphore:\n"
    "Mutex at 0x1 '&kernel_mutex', lock var 1\n"
    "--------\nFILE I/O\n--------\n"
    "99999 OS file reads, 99999 OS file writes, 99999 OS fsyncs\n*/"
)
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def hostile_wait(mariadb):
    holder = mariadb.root_conn()
    cur = holder.cursor()
    cur.execute("CREATE TABLE IF NOT EXISTS mysqltop_test.hostile (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
    cur.execute("REPLACE INTO mysqltop_test.hostile VALUES (1, 1), (2, 2)")
    holder.autocommit(False)
    cur.execute("BEGIN")
    cur.execute("UPDATE mysqltop_test.hostile SET v = v + 1 WHERE id = 1")
    waiter = mariadb.root_conn()
    waiter.cursor().execute("SET SESSION innodb_lock_wait_timeout = 120")

    def blocked() -> None:
        try:
            waiter.cursor().execute(f"UPDATE mysqltop_test.hostile {FAKE} SET v = v + 2 WHERE id = 1")
        except Exception:
            pass                                  # killed or rolled back at teardown

    t = threading.Thread(target=blocked, daemon=True)
    t.start()
    deadline = time.monotonic() + 60
    while "HAS BEEN WAITING" not in _status(mariadb) or "SET v = v + 2" not in _status(mariadb):
        assert time.monotonic() < deadline, "the hostile UPDATE never blocked"
        time.sleep(0.2)
    try:
        yield mariadb
    finally:
        holder.rollback()
        t.join(30)
        holder.close()
        waiter.close()


def _status(db) -> str:
    return db.query("SHOW ENGINE INNODB STATUS")[0][2]


def test_fake_sections_in_a_blocked_statement_do_not_change_the_status(hostile_wait) -> None:
    text = _status(hostile_wait)
    assert "History list length 987654321" in text           # the server printed the fake
    s = parse_innodb_status(text)
    assert s.sections.count("TRANSACTIONS") == 1 and s.sections.count("SEMAPHORES") == 1
    # a statement that prints a whole TRANSACTIONS head can blank its counters, never set them
    # (live frames read them from status variables)
    assert s.transactions.history_list_length is None or s.transactions.history_list_length < 1000
    assert s.transactions.trx_id_counter is None or s.transactions.trx_id_counter > 5
    assert s.transactions.transactions >= 2                   # the holder and the waiter
    assert len(s.transactions.lock_waits) == 1
    assert s.transactions.lock_waits[0]["waiting_s"] < 600
    assert s.semaphores.waits == []
    assert s.file_io.os_file_reads != 99999


def test_snapshot_shows_the_real_values(hostile_wait) -> None:
    args = [sys.executable, "-m", "mysqltop", "snapshot", *hostile_wait.cli_args(), "--interval", "0.3"]
    res = subprocess.run([*args, "--format", "json"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    # the real length (other tests on this server leave some history), never the forged 987654321
    assert d["flush"]["history_list_length"] < 10**6
    assert d["locks"]["longest_lock_wait_s"] < 600
    assert d["semaphores"]["longest_wait_s"] in (None, 0) or d["semaphores"]["longest_wait_s"] < 999
    for fmt in ("text", "csv", "openmetrics", "json"):
        res = subprocess.run([*args, "--format", fmt], capture_output=True, text=True, timeout=120)
        assert CONTROL.search(res.stdout + res.stderr) is None, fmt
