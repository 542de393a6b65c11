"""Connecting to the throwaway MariaDB: capabilities, and the documented one-line errors (exit 2)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from mysqltop.errors import UserError
from mysqltop.core.instrumentation import hint_config
from mysqltop.sources.capabilities import ENABLE_SQL
from mysqltop.sources.mysql import MySQLSource, enable_instruments
from tests.support.mariadb import ThrowawayMariaDB, free_port

pytestmark = pytest.mark.live


def run_cli(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mysqltop", *argv], capture_output=True, text=True,
                          timeout=timeout)


def open_caps(db: ThrowawayMariaDB, **kw):
    src = MySQLSource(db.options(**kw), interval=1.0)
    try:
        return src.open()
    finally:
        src.close()


def test_capabilities_on_mariadb(mariadb: ThrowawayMariaDB) -> None:
    caps = open_caps(mariadb)
    version = mariadb.query("SELECT VERSION()")[0][0]
    assert caps.flavor == "mariadb"
    assert caps.version == version and caps.version_tuple[:2] >= (10, 6)
    assert caps.performance_schema and caps.performance_schema_on
    # started with performance-schema-instrument='wait/synch/%=ON': all of them, timed
    total = mariadb.query("SELECT COUNT(*) FROM performance_schema.setup_instruments "
                          "WHERE NAME LIKE 'wait/synch/%'")[0][0]
    assert caps.synch_instruments_total == total > 50
    assert caps.synch_instruments_enabled == total
    assert caps.mutex_rows == 0 and caps.poll_mutex is False    # MariaDB 10.6+: no MUTEX rows
    assert caps.metrics_column == "ENABLED"
    assert caps.local and caps.mysqld_pid == mariadb.pid
    assert caps.current_user == "mysqltop@%" and caps.grantee == "'mysqltop'@'%'"
    assert caps.notes == ()
    ident = caps.identity()
    assert (ident.flavor, ident.address, ident.local) == ("mariadb", f"127.0.0.1:{mariadb.port}", True)


def test_capabilities_over_unix_socket(mariadb: ThrowawayMariaDB) -> None:
    caps = open_caps(mariadb, socket=True)
    assert caps.address == mariadb.socket
    assert caps.local and caps.mysqld_pid == mariadb.pid


def test_wrong_password_exits_2_with_the_fix(mariadb: ThrowawayMariaDB) -> None:
    r = run_cli("snapshot", *mariadb.cli_args(password="wrong"), "--count", "1")
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    line, = r.stderr.strip().splitlines()
    assert line.startswith("mysqltop: Access denied for user 'mysqltop'@'")
    assert "check the user and password (-u, -p, MYSQL_PWD or ~/.my.cnf [client])" in line


def test_missing_process_privilege_names_the_grant(mariadb: ThrowawayMariaDB) -> None:
    r = run_cli("snapshot", *mariadb.cli_args(user="noproc"), "--count", "1")
    assert r.returncode == 2, r.stderr
    line, = r.stderr.strip().splitlines()
    assert line == ("mysqltop: user 'noproc'@'%' lacks the PROCESS privilege that SHOW ENGINE INNODB "
                    "STATUS needs: run GRANT PROCESS ON *.* TO 'noproc'@'%';")


def test_unreachable_port_exits_2(mariadb: ThrowawayMariaDB) -> None:
    port = free_port()   # nobody listens there
    r = run_cli("snapshot", "-h", "127.0.0.1", "-P", str(port), "-u", "x", "--password=y", "--count", "1")
    assert r.returncode == 2, r.stderr
    line, = r.stderr.strip().splitlines()
    assert line.startswith(f"mysqltop: cannot connect to 127.0.0.1:{port}")
    assert "Connection refused" in line and "is the server running there? check -h/--host and -P/--port" in line


def test_missing_socket_names_socket_flag(tmp_path) -> None:
    from mysqltop.config import ConnectionOptions
    opts = ConnectionOptions(host=None, port=3306, user="x", password="y", socket=str(tmp_path / "no.sock"))
    with pytest.raises(UserError) as e:
        MySQLSource(opts).open()
    assert e.value.code == 2
    assert e.value.message.startswith(f"cannot connect to {tmp_path / 'no.sock'}") and "-S/--socket" in e.value.message


def test_unreadable_performance_schema_is_a_note(mariadb: ThrowawayMariaDB) -> None:
    mariadb.query("CREATE USER IF NOT EXISTS 'nops'@'%' IDENTIFIED BY 'nops-pw'")
    mariadb.query("GRANT PROCESS ON *.* TO 'nops'@'%'")
    src = MySQLSource(mariadb.options(user="nops", password="nops-pw"), interval=1.0)
    try:
        caps = src.open()
        assert not caps.performance_schema and caps.performance_schema_on
        assert len(caps.notes) == 1 and "GRANT SELECT ON performance_schema.* TO 'nops'@'%';" in caps.notes[0]
        s = src.read()
        assert s.error is None and s.ps_waits is None and "ps_waits" not in s.timings_ms
        assert "INNODB MONITOR OUTPUT" in (s.innodb_status or "")
    finally:
        src.close()


def test_disabled_instruments_note_and_enable(mariadb: ThrowawayMariaDB) -> None:
    mariadb.query("UPDATE performance_schema.setup_instruments SET ENABLED='NO', TIMED='NO' "
                  "WHERE NAME LIKE 'wait/synch/%'")
    try:
        caps = open_caps(mariadb)
        assert caps.synch_instruments_enabled == 0
        note, = caps.notes
        assert ENABLE_SQL in note
        assert hint_config() in note                       # MariaDB: the config lines for startup latches
        # the monitoring user may not change settings: the error names the GRANT
        with pytest.raises(UserError, match=r"GRANT UPDATE ON performance_schema.setup_instruments TO 'mysqltop'@'%'"):
            enable_instruments(mariadb.options())
        lines = enable_instruments(mariadb.options(user="root"))
        found = re.match(r"enabled (\d+) of the (\d+) latch instruments mysqltop ranks", lines[0])
        assert found and found.group(1) == found.group(2) and 10 < int(found.group(1)) < caps.synch_instruments_total
        assert hint_config() in lines[1]
        # and what lists lock holders: MariaDB's plugin (installed now, or already)
        assert any("metadata_lock_info" in line for line in lines[2:])
        assert mariadb.query("SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME = "
                             "'METADATA_LOCK_INFO' AND PLUGIN_STATUS = 'ACTIVE'")[0][0] == 1
        # only those: no condition, no MyISAM/Aria latch turned on
        assert open_caps(mariadb).synch_instruments_enabled == int(found.group(1))
        assert enable_instruments(mariadb.options(user="root"))[0].startswith("all ")
    finally:
        mariadb.query("UPDATE performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES' "
                      "WHERE NAME LIKE 'wait/synch/%'")


def test_performance_schema_off_is_a_note(mariadb_factory) -> None:
    db = mariadb_factory(["--performance-schema=OFF"], name="nops")
    src = MySQLSource(db.options(), interval=1.0)
    try:
        caps = src.open()
        assert not caps.performance_schema_on and not caps.performance_schema
        note, = caps.notes
        assert "performance_schema is OFF" in note and "performance_schema=ON" in note
        s = src.read()
        assert s.error is None and s.ps_waits is None and s.errors == {}
        assert int(s.global_status["Uptime"]) >= 0
    finally:
        src.close()


class _NoPerformanceSchemaVariable:
    """The connection as a MySQL 5.0/5.1 server answers it: @@performance_schema does not exist
    (the real server raises its real "Unknown system variable" error for the renamed variable)."""

    def __init__(self, conn) -> None:
        self.conn = conn

    def cursor(self):
        cur = self.conn.cursor()
        execute = cur.execute
        cur.execute = lambda sql, *a: execute(sql.replace("@@performance_schema", "@@no_such_perf_schema"), *a)
        return cur


def test_a_server_without_performance_schema_is_a_note_not_a_crash(mariadb: ThrowawayMariaDB) -> None:
    from mysqltop.sources.capabilities import connect, detect_capabilities, enable_synch_instruments

    conn = connect(mariadb.options(), 5.0, 5.0)
    try:
        caps = detect_capabilities(_NoPerformanceSchemaVariable(conn), mariadb.options())
        assert not caps.performance_schema_on and not caps.performance_schema
        note, = caps.notes
        assert "no performance_schema" in note and "5.5" in note
        with pytest.raises(UserError, match="no performance_schema"):
            enable_synch_instruments(_NoPerformanceSchemaVariable(conn))
    finally:
        conn.close()
