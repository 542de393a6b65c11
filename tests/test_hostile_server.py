"""A hostile or broken server (tests/support/fake_mysql.py ScriptedServer speaks the protocol):
a malformed packet is one line and a reconnect, never a traceback; an answer over the size cap
is refused before it is read into memory, reported (typed) and skipped while it backs off."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import psutil

from mysqltop.config import ConnectionOptions
from mysqltop.core.sample import Cap, Failure
from mysqltop.sources import read_caps
from mysqltop.sources.mysql import MySQLSource
from mysqltop.sources.wire import ANSWER_CAP_BYTES
from tests.support.fake_mysql import ScriptedServer, mysql_script
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[1]
# A row whose one string says 200 bytes and brings 5: PyMySQL asserts "Result length not requested length".
MALFORMED_ROW = b"\xc8short"


def _cli(port: int, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mysqltop", *args, "-h", "127.0.0.1", "-P", str(port), "-u", "x",
                           "--password=y", "--no-defaults"], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})


def _opts(port: int) -> ConnectionOptions:
    return ConnectionOptions(host="127.0.0.1", port=port, user="x", password="y")


def test_a_malformed_answer_at_connect_is_one_line_not_a_traceback() -> None:
    script = mysql_script()
    script["SELECT VERSION()"] = MALFORMED_ROW
    with ScriptedServer(script) as srv:
        out = _cli(srv.port, "snapshot", "--count", "1")
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "AssertionError" not in out.stderr
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("mysqltop: ") and "malformed packet" in line


def test_a_malformed_answer_in_a_poll_is_a_lost_connection_and_a_reconnect() -> None:
    script = mysql_script()
    with ScriptedServer(script) as srv:
        src = MySQLSource(_opts(srv.port), interval=0.2, answer_timeout=5.0)
        src.open()
        try:
            assert src.read().error is None
            script["SHOW GLOBAL STATUS"] = MALFORMED_ROW
            bad = src.read()
            assert bad.failure is Failure.LOST and bad.error is not None
            assert "malformed packet" in bad.error and "\n" not in bad.error
            script["SHOW GLOBAL STATUS"] = mysql_script()["SHOW GLOBAL STATUS"]
            wait_until(lambda: src.read().error is None, timeout=20)
            assert src.reconnects >= 1 and srv.connections >= 2
        finally:
            src.close()


def test_an_answer_over_the_size_cap_is_refused_reported_and_backed_off() -> None:
    huge = b"x" * (ANSWER_CAP_BYTES + (1 << 20))
    script = mysql_script(huge)
    with ScriptedServer(script) as srv:
        src = MySQLSource(_opts(srv.port), interval=0.2, answer_timeout=5.0)
        src.open()                               # the connect reads no status text
        try:
            first = src.read()
            assert first.error is not None and first.failure is Failure.LOST
            cut = (first.capped or {})["innodb_status"]
            assert cut["cap"] == Cap.ANSWER_SIZE.value and cut["now"] is True
            assert cut["limit"] == ANSWER_CAP_BYTES and cut["measured"] > ANSWER_CAP_BYTES
            assert cut["retry_in_s"] == read_caps.BACKOFF_FIRST_S
            # the next polls reconnect and go on without it while it backs off
            wait_until(lambda: src.read().error is None, timeout=20)
            later = src.read()
            assert later.error is None and later.innodb_status is None
            assert later.global_status.get("Uptime") == "100"
            assert (later.capped or {})["innodb_status"]["now"] is False
            assert later.errors["innodb_status"].startswith("skipped: cut by the 4 MiB answer cap")
        finally:
            src.close()


def test_record_against_a_50_mb_status_text_stays_small(tmp_path: Path) -> None:
    """A 50 MB SHOW ENGINE INNODB STATUS once took `record` to 1.7 GB: the answer is refused at the
    wire, so the recorder's memory stays what it is against any server."""
    script = mysql_script(b"y" * (50 << 20))
    with ScriptedServer(script) as srv:
        proc = subprocess.Popen([sys.executable, "-m", "mysqltop", "record", str(tmp_path / "r.mtrec"), "-h",
                                 "127.0.0.1", "-P", str(srv.port), "-u", "x", "--password=y", "--no-defaults",
                                 "--interval", "0.2", "--duration", "8s"], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
        peak = 0
        try:
            ps = psutil.Process(proc.pid)
            while proc.poll() is None:
                try:
                    peak = max(peak, ps.memory_info().rss)
                except psutil.Error:
                    break
                time.sleep(0.05)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        sent = [s for s in srv.statements if s == "SHOW ENGINE INNODB STATUS"]
    assert "Traceback" not in err
    assert peak < 200 << 20, f"record peaked at {peak >> 20} MB"
    # asked once, then skipped while it backs off: 8 s hold the first back-off only
    assert 1 <= len(sent) <= 2, len(sent)
