"""Connecting and finding out, once per connection, what the server can tell us.

Connection and privilege problems become one-line UserErrors (exit 2) that say what to do.
performance_schema being off or its synch instruments disabled is NOT fatal: it becomes a note
(with the exact statement or setting that fixes it), because InnoDB status still works.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mysqltop.config import ConnectionOptions
from mysqltop.core.instrumentation import ENABLE_SQL, HINT_COST, LATCH_INSTRUMENTS, MUTEX_MONITOR_SQL, hint_config
from mysqltop.core.server_version import version_tuple
from mysqltop.core.sample import ServerIdentity
from mysqltop.core.stalls import OWN_PROGRAM
from mysqltop.errors import UserError
from mysqltop.sources.failure import ER_UNKNOWN_TABLE
from mysqltop.sources.wire import AuthRefused, CleartextRefused, ServerKeyRefused, connection_class

if TYPE_CHECKING:
    from mysqltop.sources.read_caps import SessionBounds

MYSQLD_NAMES = ("mysqld", "mariadbd")
NO_PS = "it came with MySQL 5.5"
MARIADB_STARTUP_NOTE = ("on MariaDB, latches created at startup are only instrumented from the server config: "
                        f"[mysqld] {hint_config()}")


@dataclass(frozen=True)
class Capabilities:
    flavor: str                        # mysql | mariadb | percona
    version: str                       # VERSION()
    version_tuple: tuple[int, ...]
    version_comment: str
    hostname: str
    current_user: str                  # CURRENT_USER(), e.g. "mysqltop@%"
    address: str                       # socket path or host:port we connected to
    performance_schema_on: bool        # @@performance_schema
    performance_schema: bool           # on AND readable by us → poll the synch summary
    synch_instruments_total: int
    synch_instruments_enabled: int     # ENABLED='YES' AND TIMED='YES'
    mutex_rows: int                    # rows SHOW ENGINE INNODB MUTEX returned at detection
    poll_mutex: bool                   # worth asking in polls (never on MariaDB 10.6+ without rows)
    metrics_column: str | None         # INNODB_METRICS "ENABLED" (MariaDB) / "STATUS" (MySQL); None: unreadable
    local: bool                        # runs on this host and its process was found
    mysqld_pid: int | None
    notes: tuple[str, ...] = ()        # non-fatal problems, each with its fix
    connection_admin: bool | None = None   # SUPER / CONNECTION ADMIN: may connect past max_connections
    uid: str | None = None                 # which server this is (server_uid)
    statement_cap: str | None = None       # the session's time cap: max_statement_time | max_execution_time | None

    def identity(self) -> ServerIdentity:
        return ServerIdentity(version=self.version, flavor=self.flavor, address=self.address,
                              hostname=self.hostname, local=self.local,
                              monitor_connection_admin=self.connection_admin, uid=self.uid)

    @property
    def grantee(self) -> str:
        return grantee(self.current_user)


def error_code(e: BaseException) -> int:
    a = getattr(e, "args", ())
    return a[0] if a and isinstance(a[0], int) else 0


def one_line(e: object) -> str:
    """PyMySQL's "(1045, 'Access denied …')" → "Access denied …"; first line only, bounded."""
    args = getattr(e, "args", None)
    text = str(args[1]) if isinstance(e, Exception) and args and len(args) > 1 and isinstance(args[0], int) \
        else str(e)
    return (text.strip().splitlines() or [type(e).__name__])[0][:300]


def grantee(current_user: str) -> str:
    user, _, host = current_user.rpartition("@")
    return f"'{user}'@'{host}'" if user else f"'{current_user}'"


_CONN_CLASS: type | None = None


def connect(opts: ConnectionOptions, read_timeout: float, connect_timeout: float) -> Any:
    """Open a multi-statement, autocommit connection; UserError (exit 2) with the fix on failure.

    The handshake waits up to connect_timeout (PyMySQL reads it with the read timeout), then
    reads switch to read_timeout.
    """
    global _CONN_CLASS
    import pymysql
    from pymysql.constants import CLIENT

    _CONN_CLASS = _CONN_CLASS or connection_class()
    kw = opts.pymysql_kwargs()
    wait = max(connect_timeout, read_timeout)
    kw.update(connect_timeout=connect_timeout, read_timeout=wait, write_timeout=wait,
              client_flag=CLIENT.MULTI_STATEMENTS, autocommit=True, cleartext_ok=opts.enable_cleartext_plugin,
              server_key_ok=opts.get_server_public_key,
              program_name=OWN_PROGRAM)     # its own sessions are never a lock holder's candidates
    # (sources/lock_reads.py leaves those sessions out; core/stalls.py too, where a row has one)
    try:
        conn = _CONN_CLASS(**kw)
    except (pymysql.err.MySQLError, AuthRefused) as e:
        raise connect_error(e, opts, connect_timeout) from None
    except (OSError, RuntimeError, ValueError) as e:   # SSL setup, missing auth plugin support
        raise UserError(f"cannot connect to {opts.address}: {one_line(e)}") from None
    conn._read_timeout = conn._write_timeout = read_timeout  # PyMySQL keeps them here
    return conn


def connect_error(e: BaseException, opts: ConnectionOptions, timeout: float) -> UserError:
    code, msg, addr = error_code(e), one_line(e), opts.address
    if isinstance(e, ServerKeyRefused):
        return UserError(f"{addr} asks for the password encrypted with a key it sends itself, or as is over TLS, "
                         f"and {_unproven(opts)} (sha256_password or caching_sha2_password): refused, the "
                         "password was not sent; verify the server (--ssl-ca, --ssl-mode=VERIFY_IDENTITY), "
                         "or give --get-server-public-key if this network is trusted")
    if isinstance(e, CleartextRefused):
        return UserError(f"{addr} asks for the password in clear text ({msg} plugin): refused, the password was "
                         "not sent (TLS or not, as the mysql client); give --enable-cleartext-plugin if this "
                         "server should have it, with --ssl-ca (--ssl-mode=VERIFY_IDENTITY) so that only it can")
    if code == 1045:
        # On a host with several servers the socket may be another server than the port meant.
        where = (f" through the socket {addr} (the server listening there; --protocol=TCP with -P for a port)"
                 if opts.via_socket else f" at {addr}")
        return UserError(f"{msg}{where}: check the user and password (-u, -p, MYSQL_PWD or ~/.my.cnf [client])")
    if code == 1130:
        return UserError(f"{msg}: create the user for this client host, or connect with -h to an allowed address")
    if code == 2013 or "timed out" in msg:
        return UserError(f"no answer from {addr} within {timeout:g} s: is the server overloaded or "
                         "stopped, or a firewall dropping packets? (--connect-timeout)")
    if code in (2002, 2003):
        reason = re.sub(r"^Can't connect to (local )?MySQL server (on|through socket) \S+ ?", "", msg)
        how = "-S/--socket" if opts.via_socket else "-h/--host and -P/--port"
        return UserError(f"cannot connect to {addr} {reason.strip()}: is the server running "
                         f"there? check {how}".replace("  ", " "))
    return UserError(f"cannot connect to {addr}: {msg}")


def _unproven(opts: ConnectionOptions) -> str:
    """Why the server answering may not be the one meant, for a refusal line."""
    if opts.tls_mode in ("PREFERRED", "REQUIRED"):
        return (f"--ssl-mode={opts.tls_mode} verifies no certificate (whoever answers may be a server in "
                "the middle)")
    return "the connection has no TLS (whoever answers may be a server in the middle)"


def _flavor(version: str, comment: str) -> str:
    low = f"{version} {comment}".lower()
    if "mariadb" in low:
        return "mariadb"
    return "percona" if "percona" in low else "mysql"


def _rows(conn: Any, sql: str) -> list[tuple[Any, ...]]:
    with conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def _performance_schema_on(conn: Any) -> bool | None:
    """@@performance_schema; None when the server has no such variable (MySQL < 5.5)."""
    import pymysql

    try:
        return bool(int(_rows(conn, "SELECT @@performance_schema")[0][0] or 0))
    except pymysql.err.MySQLError as e:
        if error_code(e) == 1193:          # Unknown system variable
            return None
        raise


# The privileges that let an account take the connection the server keeps past max_connections:
# SUPER (MySQL, MariaDB before 10.5.2), CONNECTION ADMIN (MariaDB 10.5.2+), CONNECTION_ADMIN (MySQL 8.0+).
CONNECTION_ADMIN_PRIVILEGES = ("SUPER", "CONNECTION ADMIN", "CONNECTION_ADMIN")
# Every account's rows when ours may read mysql.user, ours alone otherwise: matched here by grantee.
CONNECTION_ADMIN_SQL = ("SELECT GRANTEE FROM information_schema.USER_PRIVILEGES WHERE PRIVILEGE_TYPE IN "
                        f"({', '.join(repr(p) for p in CONNECTION_ADMIN_PRIVILEGES)})")
# MariaDB lists one row with a NULL role when none is enabled.
ENABLED_ROLES_SQL = "SELECT COUNT(ROLE_NAME) FROM information_schema.ENABLED_ROLES"


def connection_admin(conn: Any, current_user: str) -> bool | None:
    """Does the account have a privilege that gets it in when max_connections is reached? None: the
    server would not say, or a role is enabled (USER_PRIVILEGES lists the account's own grants only)."""
    import pymysql

    try:
        if grantee(current_user) in {str(row[0]) for row in _rows(conn, CONNECTION_ADMIN_SQL) if row}:
            return True
        roles = _rows(conn, ENABLED_ROLES_SQL)
    except pymysql.err.MySQLError as e:
        if error_code(e) != ER_UNKNOWN_TABLE:
            return None
        roles = []                      # no roles on this server (MySQL 5.7): its grants are all there is
    return None if roles and int(roles[0][0] or 0) else False


def server_uid(server_uuid: str | None, server_id: Any, hostname: str, datadir: str) -> str:
    """Which server this is, as a digest (no host name or path in a recording): @@server_uuid where
    the server has one (MySQL 5.6+; a copied data directory keeps it), else @@server_id, @@hostname
    and @@datadir (MariaDB) — another server behind the same address differs in one of them."""
    key = f"uuid:{server_uuid}" if server_uuid else f"id:{server_id}|host:{hostname}|datadir:{datadir}"
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:16]


def _server_uuid(conn: Any, flavor: str) -> str | None:
    import pymysql

    if flavor == "mariadb":
        return None                      # MariaDB has no @@server_uuid
    try:
        row = _rows(conn, "SELECT @@server_uuid")[0]
    except pymysql.err.MySQLError as e:
        if error_code(e) >= 2000:
            raise
        return None                      # before 5.6
    return str(row[0]) if row and row[0] else None


def detect_capabilities(conn: Any, opts: ConnectionOptions, strict: bool = True,
                        bounds: "SessionBounds | None" = None) -> Capabilities:
    """Ask the server what it offers. Raises UserError only for a missing PROCESS privilege.
    `bounds`: what the session took of sources/read_caps.py's bounds (a note says what it lacks)."""
    import pymysql

    version, comment, hostname, user, pid_file, datadir, server_id = _rows(
        conn, "SELECT VERSION(), @@version_comment, @@hostname, CURRENT_USER(), @@pid_file, @@datadir, @@server_id")[0]
    ps_on = _performance_schema_on(conn)
    version, comment, hostname, user = str(version), str(comment or ""), str(hostname or ""), str(user)
    flavor, vt = _flavor(version, comment), version_tuple(version) or ()
    uid = server_uid(_server_uuid(conn, flavor), server_id, hostname, str(datadir or ""))
    # SHOW ENGINE needs PROCESS as the status text does, and its mutex list is short (empty on
    # MariaDB 10.6+): the check costs neither side the status text (up to 1 MiB on a busy server).
    # (information_schema.INNODB_TRX … LIMIT 0 is no check: no row read, no privilege asked.)
    try:
        mutex_rows = len(_rows(conn, "SHOW ENGINE INNODB MUTEX"))
    except pymysql.err.MySQLError as e:
        if error_code(e) in (1227, 1044, 1045):
            raise UserError(f"user {grantee(user)} lacks the PROCESS privilege that SHOW ENGINE INNODB "
                            f"STATUS needs: run GRANT PROCESS ON *.* TO {grantee(user)};") from None
        if error_code(e) >= 2000:
            raise
        mutex_rows = -1

    notes: list[str] = []
    if bounds is not None and bounds.statement_cap is None:
        notes.append("this server caps no statement's time (max_statement_time: MariaDB 10.1+; max_execution_time: "
                     "MySQL 5.7.8+): a slow read is waited for up to the answer timeout"
                     + ("" if bounds.sql else "; it refused the lock wait timeouts too"))
    total = enabled = 0
    ps_readable = False
    if ps_on is None:
        notes.append(f"this server has no performance_schema ({NO_PS}), so latch waits come only from "
                     "SHOW ENGINE INNODB STATUS and SHOW ENGINE INNODB MUTEX")
    elif not ps_on:
        notes.append("performance_schema is OFF, so latch waits come only from SHOW ENGINE INNODB STATUS"
                     + (" (empty on MariaDB 10.6+)" if flavor == "mariadb" else " and SHOW ENGINE INNODB MUTEX")
                     + f": for the latch view put these lines in [mysqld] and restart: {hint_config()} "
                     + f"({HINT_COST})" + _mutex_monitor_note(flavor, vt))
    else:
        try:
            total, enabled = (int(x or 0) for x in _rows(
                conn, "SELECT COUNT(*), SUM(ENABLED='YES' AND TIMED='YES') FROM performance_schema.setup_instruments "
                      "WHERE NAME LIKE 'wait/synch/%'")[0])
            ps_readable = True
        except pymysql.err.MySQLError as e:
            notes.append(f"cannot read performance_schema ({one_line(e)}): run GRANT SELECT ON "
                         f"performance_schema.* TO {grantee(user)};")
        if ps_readable and enabled == 0:
            notes.append(f"the performance_schema wait/synch instruments are disabled: run {ENABLE_SQL} "
                         "(or mysqltop --enable-instruments)"
                         + (f"; {MARIADB_STARTUP_NOTE}" if flavor == "mariadb" else "")
                         + _mutex_monitor_note(flavor, vt))

    never_mutex = flavor == "mariadb" and vt >= (10, 6)
    poll_mutex = mutex_rows > 0 or (mutex_rows == 0 and not never_mutex)

    try:
        metrics = metrics_column(conn)
    except pymysql.err.MySQLError:
        metrics = None

    pid = find_local_mysqld(opts, hostname, str(pid_file or ""), str(datadir or ""))
    return Capabilities(
        flavor=flavor, version=version, version_tuple=vt, version_comment=comment, hostname=hostname,
        current_user=user, address=opts.address, performance_schema_on=bool(ps_on),
        performance_schema=ps_readable, synch_instruments_total=total, synch_instruments_enabled=enabled,
        mutex_rows=max(mutex_rows, 0), poll_mutex=poll_mutex, metrics_column=metrics,
        local=pid is not None, mysqld_pid=pid, notes=tuple(notes), connection_admin=connection_admin(conn, user),
        uid=uid, statement_cap=bounds.statement_cap if bounds is not None else None)


# information_schema.COLUMNS and PLUGINS have TEXT columns: the server builds their answer in an
# on-disk temporary table (even with a WHERE, even for SHOW COLUMNS/SHOW PLUGINS), which fails and
# logs "[ERROR] Disk got full writing 'information_schema.(temporary)'" on every connect while its
# tmpdir is full. `SELECT * … LIMIT 0` of the table itself tells its columns and whether it
# exists, and reads no row.
METRICS_COLUMNS_SQL = "SELECT * FROM information_schema.INNODB_METRICS LIMIT 0"


def metrics_column(conn: Any) -> str | None:
    """INNODB_METRICS' on/off column: "ENABLED" (MariaDB) or "STATUS" (MySQL); None: neither."""
    with conn.cursor() as cur:
        cur.execute(METRICS_COLUMNS_SQL)
        cols = {str(d[0]).upper() for d in cur.description or ()}
        cur.fetchall()
    return "ENABLED" if "ENABLED" in cols else ("STATUS" if "STATUS" in cols else None)


def _mutex_monitor_note(flavor: str, vt: tuple[int, ...]) -> str:
    """MySQL 5.7+: SHOW ENGINE INNODB MUTEX answers without performance_schema (rw-locks always,
    mutexes once the latch monitor counters are on)."""
    if flavor == "mariadb" or vt < (5, 7):
        return ""
    return (f"; meanwhile mysqltop ranks what SHOW ENGINE INNODB MUTEX lists (rw-lock waits), and "
            f"{MUTEX_MONITOR_SQL} (runtime, cheap) adds mutex waits to it")


def _is_loopback(opts: ConnectionOptions) -> bool:
    import ipaddress

    if opts.via_socket or opts.host in (None, "localhost"):
        return True
    try:
        return ipaddress.ip_address(opts.host).is_loopback
    except ValueError:
        return False


def _listens(proc: Any, opts: ConnectionOptions) -> bool | None:
    """Does this process listen where we connected? None when we may not look."""
    import psutil

    try:
        if opts.via_socket:
            return any(c.laddr == opts.socket for c in proc.net_connections(kind="unix"))
        return any(c.status == psutil.CONN_LISTEN and c.laddr and c.laddr[1] == opts.port
                   for c in proc.net_connections(kind="inet"))
    except (psutil.AccessDenied, psutil.NoSuchProcess, AttributeError):
        return None


def find_local_mysqld(opts: ConnectionOptions, hostname: str, pid_file: str, datadir: str) -> int | None:
    """PID of the server process when it runs on this host, else None (then host stats are ours only)."""
    import socket

    import psutil

    here = socket.gethostname().split(".")[0]
    if not (_is_loopback(opts) or (hostname and hostname.split(".")[0] == here)):
        return None
    path = Path(pid_file) if Path(pid_file).is_absolute() else Path(datadir) / pid_file
    try:
        pid = int(path.read_text().split()[0])
        proc = psutil.Process(pid)
        if proc.name() in MYSQLD_NAMES and _listens(proc, opts) is not False:
            return pid
    except (OSError, ValueError, IndexError, psutil.Error):
        pass
    for proc in psutil.process_iter(["name"]):   # no readable pid file: find who listens there
        if proc.info.get("name") in MYSQLD_NAMES and _listens(proc, opts):
            return proc.pid
    return None


def enable_synch_instruments(conn: Any) -> list[str]:
    """Turn on (ENABLED and TIMED) the latch instruments mysqltop ranks, and no others; lines
    saying what changed and the config lines that keep it over a restart."""
    import pymysql

    version, user = _rows(conn, "SELECT VERSION(), CURRENT_USER()")[0]
    mariadb = "mariadb" in str(version).lower()
    ps_on = _performance_schema_on(conn)
    if ps_on is None:
        raise UserError(f"this server has no performance_schema ({NO_PS}): there are no instruments to enable")
    if not ps_on:
        raise UserError("performance_schema is OFF and cannot be turned on at runtime: put these lines in "
                        f"[mysqld] and restart: {hint_config()}")
    try:
        with conn.cursor() as cur:
            changed = cur.execute(f"{ENABLE_SQL.replace(' WHERE ', ' WHERE (', 1)}) "
                                  "AND (ENABLED <> 'YES' OR TIMED <> 'YES')")
    except pymysql.err.MySQLError as e:
        raise UserError(f"cannot enable the instruments ({one_line(e)}): run GRANT UPDATE ON "
                        f"performance_schema.setup_instruments TO {grantee(str(user))}; or run {ENABLE_SQL} "
                        "as an administrator") from None
    where = ENABLE_SQL.split(" WHERE ", 1)[1]
    total = int(_rows(conn, f"SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE {where}")[0][0])
    lines = [f"enabled {changed} of the {total} latch instruments mysqltop ranks ({', '.join(LATCH_INSTRUMENTS)}; "
             f"ENABLED='YES', TIMED='YES'); the change lasts until the server restarts"
             if changed else f"all {total} latch instruments mysqltop ranks were already enabled; nothing changed",
             f"to keep them over a restart{' (and for latches created at startup)' if mariadb else ''}, "
             f"the server config's [mysqld] lines are: {hint_config()} ({HINT_COST})"]
    return lines
