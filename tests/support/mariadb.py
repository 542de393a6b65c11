"""A throwaway MariaDB server for tests, benches and scripts.

Usage (pytest: use the fixtures in tests/conftest.py instead of starting servers yourself)::

    from tests.support.mariadb import ThrowawayMariaDB, MONITOR_USER, MONITOR_PASSWORD

    with ThrowawayMariaDB(extra_args=["--innodb-buffer-pool-size=8M"], name="tiny") as db:
        # env={"LD_PRELOAD": …}: extra environment for mariadbd only (tests/support/slow_sync.py)
        db.port, db.socket, db.pid, db.datadir    # 127.0.0.1 port, unix socket path, mariadbd pid
        conn = db.root_conn()                     # PyMySQL connection as root, autocommit
        rows = db.query("SELECT 1")               # one statement as root → list of tuples
        kw = db.monitor_kwargs()                  # {"host","port","user","password"}: user mysqltop
        kw = db.root_kwargs(); kw = db.noproc_kwargs()
        opts = db.options()                       # mysqltop ConnectionOptions (user=…, socket=True)
        argv = db.cli_args()                      # ["-h","127.0.0.1","-P",port,"-u","mysqltop","--password=…"]
        db.pause(); db.resume()                   # SIGSTOP / SIGCONT the mariadbd process
        db.restart()                              # clean shutdown + start on the SAME port/socket/datadir
        db.stop(remove=False); db.start()         # a longer outage, same port/datadir
        db.discard()                              # SIGKILL and remove: the end of a server nobody keeps
        db.log_tail(40)                           # the server's error log

What it does
  * `mariadb-install-db --no-defaults` once per process into a template datadir
    (/tmp/mtop-template-XXXX/), then a sparse copy of it into a fresh datadir under
    /tmp/mtop-<name>-XXXX/ for each server (short paths: the unix socket path limit is 108 bytes),
    root without password (throwaway only).
  * starts `mariadbd --no-defaults --user=root` (as the caller when not root) on a free
    127.0.0.1 port with its own socket, `--performance-schema=ON
    --performance-schema-instrument='wait/synch/%=ON'`, small memory settings (64M buffer pool,
    innodb_flush_log_at_trx_commit=2), no binlog; never touches the packaged service on 3306 / /run/mysqld.
  * waits (bounded, `startup_timeout`) until root can connect; on failure raises RuntimeError
    with the tail of the server's error log.
  * creates users:
      - `mysqltop`@`%`/`localhost` (MONITOR_USER/MONITOR_PASSWORD): PROCESS on *.* and SELECT on
        performance_schema.* — what a DBA would grant a monitor;
      - `noproc`@`%`/`localhost` (NOPROC_USER/NOPROC_PASSWORD): only SELECT on performance_schema.*,
        for the missing-PROCESS error tests;
    and a database `mysqltop_test` (for tests/support/load.py, run as root).
  * stop(): SIGCONT (in case paused), SIGTERM (clean shutdown), SIGKILL after `stop_timeout`,
    then removes the directory; discard() (the `with` exit, the test fixtures' teardown) kills at
    once instead, as nothing of the server is kept. Dirs of killed runs older than an hour are swept
    at the next start. Instances still running at interpreter exit are stopped by an atexit hook; the
    server gets PR_SET_PDEATHSIG so it dies with the process that started it — start servers
    from the main thread (the death signal follows the starting thread).
"""

from __future__ import annotations

import atexit
import ctypes
import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

MONITOR_USER = "mysqltop"
MONITOR_PASSWORD = "mysqltop-test-pw"
NOPROC_USER = "noproc"
NOPROC_PASSWORD = "noproc-test-pw"
TEST_DB = "mysqltop_test"

# Small enough for 8 parallel servers on a small VM, big enough for the load generator.
BASE_ARGS = [
    "--bind-address=127.0.0.1",
    "--skip-name-resolve",
    "--skip-log-bin",
    "--performance-schema=ON",
    "--performance-schema-instrument=wait/synch/%=ON",
    "--innodb-buffer-pool-size=64M",
    "--innodb-log-file-size=48M",
    "--innodb-log-buffer-size=8M",
    "--key-buffer-size=1M",
    "--max-connections=200",
    "--table-open-cache=400",
    "--innodb-flush-log-at-trx-commit=2",   # tests measure rates, not durability; keeps fsyncs cheap
    "--skip-innodb-buffer-pool-dump-at-shutdown",
    "--skip-innodb-buffer-pool-load-at-startup",
]

_LIVE: set["ThrowawayMariaDB"] = set()


def find_binary(name: str) -> str:
    for cand in (shutil.which(name), f"/usr/sbin/{name}", f"/usr/bin/{name}"):
        if cand and os.access(cand, os.X_OK):
            return cand
    raise RuntimeError(
        f"{name} not found: install the server binaries (`./dev test` installs mariadb-server "
        "from Debian's packages, or: apt-get install -y mariadb-server mariadb-client)")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Servers take their ports from a block of their own, below the kernel's ephemeral range (where
# free_port() and every client's own end lie), one block per pytest-xdist worker, and never the
# same port twice in a run. A client still retrying a stopped server (a reconnect test), or a
# port a test took as unreachable, can so never reach another test's server: all throwaway
# servers share their accounts, and such a stray client would be counted as one of its sessions.
# MYSQLTOP_TEST_PORTS moves the blocks, so two runs of the suite on one machine (two checkouts)
# never hand out the same port.
SERVER_PORTS = int(os.environ.get("MYSQLTOP_TEST_PORTS", "20000"))
PORTS_PER_WORKER = 1_000
_server_ports = itertools.count()


def server_port() -> int:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    base = SERVER_PORTS + (int(worker) if worker.isdigit() else 0) * PORTS_PER_WORKER
    while (n := next(_server_ports)) < PORTS_PER_WORKER:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", base + n))
            except OSError:
                continue
        return base + n
    return free_port()            # a run of more than PORTS_PER_WORKER servers in one worker


def _run_as() -> list[str]:
    # --user is only allowed (and only needed) when we are root; as another user the server runs as us.
    return ["--user=root"] if os.geteuid() == 0 else []


def sweep_stale_dirs(max_age_s: float = 3600.0) -> None:
    """Remove /tmp/mtop-* dirs left by killed runs: old, and no live server behind their pid file."""
    now = time.time()
    for d in Path("/tmp").glob("mtop-*"):
        try:
            if now - d.stat().st_mtime < max_age_s:
                continue
            pid = int((d / "pid").read_text().split()[0]) if (d / "pid").exists() else None
            if pid is not None and Path(f"/proc/{pid}").exists():
                continue
            shutil.rmtree(d, ignore_errors=True)
        except (OSError, ValueError, IndexError):
            continue


def _die_with_parent() -> None:
    # Runs in the child between fork and exec: PR_SET_PDEATHSIG = 1.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except OSError:
        pass


_TEMPLATE: Path | None = None


def _install_db(datadir: Path) -> None:
    install = find_binary("mariadb-install-db")
    # its own tmpdir: a bootstrapping mariadbd clears every #sql file of its tmpdir as it starts,
    # and in /tmp those would be another worker's bootstrap's ("Could not remove temporary table")
    cmd = [install, "--no-defaults", f"--datadir={datadir}", f"--tmpdir={datadir.parent}", *_run_as(),
           "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve",
           "--innodb-log-file-size=48M", "--innodb-buffer-pool-size=32M"]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    if res.returncode != 0:
        lines = res.stdout.decode(errors="replace").splitlines()
        # the server's own lines say why; the script's closing advice is the same every time
        tail = "\n".join([ln for ln in lines if "[ERROR]" in ln or "[Warning]" in ln][-20:] + lines[-5:])
        raise RuntimeError(f"mariadb-install-db failed (rc={res.returncode}):\n{tail}")


def _template_datadir() -> Path:
    """A freshly installed datadir that nothing ever runs on, made on first use in this process."""
    global _TEMPLATE
    if _TEMPLATE is None or not _TEMPLATE.is_dir():
        sweep_stale_dirs()
        top = Path(tempfile.mkdtemp(prefix="mtop-template-", dir="/tmp"))
        # Our pid: sweep_stale_dirs in other processes leaves the template alone while we live.
        (top / "pid").write_text(f"{os.getpid()}\n")
        try:
            _install_db(top / "data")
        except BaseException:
            shutil.rmtree(top, ignore_errors=True)
            raise
        _TEMPLATE = top / "data"
    return _TEMPLATE


class ThrowawayMariaDB:
    host = "127.0.0.1"

    def __init__(self, extra_args: Sequence[str] = (), name: str = "db",
                 startup_timeout: float = 120.0, stop_timeout: float = 30.0,
                 env: Mapping[str, str] | None = None, ps_base: bool = True) -> None:
        self.extra_args = list(extra_args)
        # False: none of BASE_ARGS' performance_schema options (extra_args alone decide them)
        self.ps_base = ps_base
        self.env = dict(env or {})
        self.name = name
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.port: int = 0
        self.dir: Path | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self._installed = False

    # ---- paths -------------------------------------------------------------------------------
    @property
    def datadir(self) -> Path:
        assert self.dir is not None, "server not started"
        return self.dir / "data"

    @property
    def socket(self) -> str:
        assert self.dir is not None, "server not started"
        return str(self.dir / "s.sock")

    @property
    def log_path(self) -> Path:
        assert self.dir is not None, "server not started"
        return self.dir / "error.log"

    @property
    def pid(self) -> int:
        assert self.proc is not None, "server not started"
        return self.proc.pid

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # ---- lifecycle -----------------------------------------------------------------------------
    def start(self) -> "ThrowawayMariaDB":
        """Install (first time) and start; returns self. Raises RuntimeError with the log tail."""
        if self.running:
            return self
        mariadbd = find_binary("mariadbd")
        if self.dir is None:
            sweep_stale_dirs()
            self.dir = Path(tempfile.mkdtemp(prefix=f"mtop-{self.name[:8]}-", dir="/tmp"))
        if not self._installed:
            self._install()
        # A free port can be taken by someone else before we bind it: retry with a new one,
        # except on restart where the port must stay the same.
        attempts = 1 if self.port else 3
        for attempt in range(attempts):
            if not self.port or attempt:
                self.port = server_port()
            try:
                self._launch(mariadbd)
                break
            except RuntimeError:
                if attempt == attempts - 1 or "already in use" not in self.log_tail(20):
                    raise
        _LIVE.add(self)
        if not getattr(self, "_users_created", False):
            self._create_users()
            self._users_created = True
        return self

    def _install(self) -> None:
        # Every server starts from a copy of one datadir installed once per process: the install
        # takes seconds, a sparse copy a fraction of one, and what it produces is the same.
        dest = self.datadir
        res = subprocess.run(["cp", "-a", "--sparse=always", str(_template_datadir()), str(dest)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        if res.returncode != 0:
            raise RuntimeError(f"copying the template datadir failed: {res.stdout.decode(errors='replace')}")
        self._installed = True

    def _launch(self, mariadbd: str) -> None:
        assert self.dir is not None
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        cmd = [mariadbd, "--no-defaults", *_run_as(), f"--datadir={self.datadir}",
               f"--socket={self.socket}", f"--port={self.port}", f"--pid-file={self.dir / 'pid'}",
               f"--log-error={self.log_path}", f"--tmpdir={self.dir}",
               *(a for a in BASE_ARGS if self.ps_base or not a.startswith("--performance-schema")), *self.extra_args]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent,
                                     start_new_session=True, env={**os.environ, **self.env})
        deadline = time.monotonic() + self.startup_timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mariadbd exited with rc={self.proc.returncode} during startup; "
                                   f"log {self.log_path}:\n{self.log_tail()}")
            try:
                self.root_conn(connect_timeout=2).close()
                return
            except Exception as e:  # noqa: BLE001 - not ready yet
                last = e
                time.sleep(0.1)
        self._kill()
        raise RuntimeError(f"mariadbd not ready after {self.startup_timeout:.0f}s ({last}); "
                           f"log {self.log_path}:\n{self.log_tail()}")

    def _create_users(self) -> None:
        stmts = [f"CREATE DATABASE IF NOT EXISTS {TEST_DB}"]
        for user, pw, grants in ((MONITOR_USER, MONITOR_PASSWORD, True),
                                 (NOPROC_USER, NOPROC_PASSWORD, False)):
            for host in ("%", "localhost"):
                acct = f"'{user}'@'{host}'"
                stmts.append(f"CREATE USER IF NOT EXISTS {acct} IDENTIFIED BY '{pw}'")
                stmts.append(f"GRANT SELECT ON performance_schema.* TO {acct}")
                if grants:
                    stmts.append(f"GRANT PROCESS ON *.* TO {acct}")
        conn = self.root_conn()
        try:
            with conn.cursor() as cur:
                for s in stmts:
                    cur.execute(s)
        finally:
            conn.close()

    def stop(self, remove: bool = True) -> None:
        """Clean shutdown (SIGTERM, SIGKILL after stop_timeout); remove the directory unless told not to."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGCONT)
                self.proc.terminate()
                self.proc.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                self._kill()
            except ProcessLookupError:
                pass
        _LIVE.discard(self)
        if remove and self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
            self._installed = False
            self._users_created = False
            self.port = 0

    def discard(self) -> None:
        """Kill the server and remove its directory: nothing of it is kept, so nothing needs the
        seconds of a clean shutdown."""
        self._kill()
        self.stop()

    def _kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)

    def restart(self, extra_args: Sequence[str] | None = None) -> None:
        """Stop cleanly and start again on the same port, socket and datadir."""
        self.stop(remove=False)
        if extra_args is not None:
            self.extra_args = list(extra_args)
        self.start()

    def pause(self) -> None:
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def __enter__(self) -> "ThrowawayMariaDB":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.discard()

    # ---- connecting ----------------------------------------------------------------------------
    def root_kwargs(self) -> dict[str, Any]:
        return {"host": self.host, "port": self.port, "user": "root", "password": ""}

    def monitor_kwargs(self) -> dict[str, Any]:
        return {"host": self.host, "port": self.port, "user": MONITOR_USER, "password": MONITOR_PASSWORD}

    def noproc_kwargs(self) -> dict[str, Any]:
        return {"host": self.host, "port": self.port, "user": NOPROC_USER, "password": NOPROC_PASSWORD}

    def root_conn(self, **kw: Any):  # -> pymysql.connections.Connection
        import pymysql
        args = {**self.root_kwargs(), "autocommit": True, "connect_timeout": 5, **kw}
        return pymysql.connect(**args)

    def options(self, user: str = MONITOR_USER, password: str | None = None, socket: bool = False):
        """mysqltop.config.ConnectionOptions for this server (TCP, or its unix socket)."""
        from mysqltop.config import ConnectionOptions
        if password is None:
            password = {MONITOR_USER: MONITOR_PASSWORD, NOPROC_USER: NOPROC_PASSWORD}.get(user, "")
        if socket:
            return ConnectionOptions(host=None, port=self.port, user=user, password=password, socket=self.socket)
        return ConnectionOptions(host=self.host, port=self.port, user=user, password=password)

    def cli_args(self, user: str = MONITOR_USER, password: str | None = None) -> list[str]:
        """mysqltop CONN flags for this server (TCP), e.g. for `python -m mysqltop snapshot …`."""
        if password is None:
            password = {MONITOR_USER: MONITOR_PASSWORD, NOPROC_USER: NOPROC_PASSWORD}.get(user, "")
        return ["-h", self.host, "-P", str(self.port), "-u", user, f"--password={password}"]

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        """Run one statement as root and return all rows (convenience for tests)."""
        conn = self.root_conn()
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
                return list(cur.fetchall())
        finally:
            conn.close()

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except (OSError, AssertionError):
            return "(no error log)"

    def __repr__(self) -> str:
        return f"ThrowawayMariaDB(name={self.name!r}, port={self.port}, running={self.running})"


@atexit.register
def _stop_all() -> None:
    for db in list(_LIVE):
        try:
            db.stop()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass
    if _TEMPLATE is not None:
        shutil.rmtree(_TEMPLATE.parent, ignore_errors=True)
