"""The questions asked on every (re)connect need no on-disk temporary table on any flavor: never
information_schema.COLUMNS, PLUGINS or TABLES (TEXT columns: built on disk, so a full tmpdir
logs an error per connect). The live test with a full tmpdir is tests/live/test_full_tmpdir_probes.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mysqltop.config import ConnectionOptions
from mysqltop.sources.capabilities import connection_admin, detect_capabilities
from mysqltop.sources.lock_reads import has_mdl_plugin

ON_DISK = re.compile(r"information_schema\s*\.\s*(COLUMNS|PLUGINS|TABLES|ROUTINES|VIEWS|PARTITIONS)\b|"
                     r"SHOW\s+(FULL\s+)?(COLUMNS|PLUGINS|TABLES)\b", re.I)


class Cursor:
    def __init__(self, conn: "Conn") -> None:
        self.conn = conn
        self.description: tuple[tuple[str], ...] | None = None
        self.rows: list[tuple[Any, ...]] = []

    def __enter__(self) -> "Cursor":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def execute(self, sql: str) -> int:
        self.conn.sent.append(sql)
        self.description = None
        if sql.startswith("SELECT VERSION()"):
            self.rows = [(self.conn.version, self.conn.comment, "db9", "mysqltop@%", "db9.pid", "/nonexistent/", 1)]
        elif sql == "SELECT @@performance_schema":
            self.rows = [(1,)]
        elif "setup_instruments" in sql:
            self.rows = [(300, 300)]
        elif "INNODB_METRICS" in sql:
            self.description = (("NAME",), ("COUNT",), (self.conn.metrics_col,))
            self.rows = []
        elif "USER_PRIVILEGES" in sql:
            self.rows = [(g,) for g in self.conn.admins]
        elif "ENABLED_ROLES" in sql:
            self.rows = [(self.conn.roles,)]
        elif "METADATA_LOCK_INFO" in sql:
            self.description = (("THREAD_ID",),)
            self.rows = []
        else:
            self.rows = [("InnoDB", "", "status text")]
        return len(self.rows)

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows

    def fetchone(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None


class Conn:
    def __init__(self, version: str, comment: str, metrics_col: str) -> None:
        self.version, self.comment, self.metrics_col = version, comment, metrics_col
        self.sent: list[str] = []
        self.admins: list[str] = []          # grantees with SUPER / CONNECTION ADMIN
        self.roles = 0                       # roles enabled for the session

    def cursor(self) -> Cursor:
        return Cursor(self)


@pytest.mark.parametrize("version, comment, column, flavor", [
    ("10.11.19-MariaDB", "mariadb.org binary distribution", "ENABLED", "mariadb"),
    ("8.0.36", "MySQL Community Server - GPL", "STATUS", "mysql"),
    ("5.7.44-48", "Percona Server (GPL), Release 48", "STATUS", "percona"),
])
def test_no_connect_probe_needs_an_on_disk_temporary_table(version: str, comment: str, column: str,
                                                           flavor: str) -> None:
    conn = Conn(version, comment, column)
    caps = detect_capabilities(conn, ConnectionOptions(host="192.0.2.9", port=3306, user="mysqltop"))
    mdl = has_mdl_plugin(conn, caps.flavor)
    assert (caps.flavor, caps.metrics_column) == (flavor, column)
    assert mdl is (flavor == "mariadb")                 # the table answered: the plugin is active
    assert conn.sent and [s for s in conn.sent if ON_DISK.search(s)] == []
    assert caps.connection_admin is False and caps.identity().monitor_connection_admin is False


def test_the_monitor_account_past_max_connections_is_read_from_its_own_grants() -> None:
    """SUPER / CONNECTION ADMIN of this account (another account's rows do not count); with a role
    enabled its grants are not all in USER_PRIVILEGES, so it is not known."""
    conn = Conn("10.11.19-MariaDB", "", "ENABLED")
    conn.admins = ["'root'@'localhost'"]
    assert connection_admin(conn, "mysqltop@%") is False
    conn.admins.append("'mysqltop'@'%'")
    assert connection_admin(conn, "mysqltop@%") is True
    conn.admins, conn.roles = [], 1
    assert connection_admin(conn, "mysqltop@%") is None
