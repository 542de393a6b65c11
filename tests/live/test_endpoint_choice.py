"""Which server answers on a host with two: a port given on the command line means TCP.

Two throwaway servers stand for a multi-instance host: `a` is the default socket (named in the
option file, as a host's my.cnf does), `b` listens on its own port. `-h localhost -P <b's port>`
must reach b (MariaDB's client since 10.6), not whatever server listens on the default socket;
`--protocol=SOCKET` / `protocol=socket` still take the socket, and a refused login through the
socket says it was the socket. Which server answered is told by an account only b has.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.mariadb import ThrowawayMariaDB

pytestmark = pytest.mark.live

ONLY_B = ("only_b", "only-b-secret")


def _run(*argv: str, cnf: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mysqltop", "snapshot", f"--defaults-file={cnf}", *argv,
                           "--count", "1", "--format", "json"], capture_output=True, text=True, timeout=90)


@pytest.fixture
def two_servers(mariadb_factory, tmp_path: Path) -> tuple[ThrowawayMariaDB, ThrowawayMariaDB, Path]:
    a, b = mariadb_factory(name="inst-a"), mariadb_factory(name="inst-b")
    user, password = ONLY_B
    b.query(f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}'")
    b.query(f"GRANT PROCESS ON *.* TO '{user}'@'%'")
    b.query(f"CREATE USER '{user}'@'localhost' IDENTIFIED BY '{password}'")
    b.query(f"GRANT PROCESS ON *.* TO '{user}'@'localhost'")
    cnf = tmp_path / "my.cnf"
    cnf.write_text(f"[client]\nsocket={a.socket}\nuser={user}\npassword={password}\n")
    return a, b, cnf


def test_localhost_with_a_port_on_the_command_line_reaches_that_port(two_servers) -> None:
    a, b, cnf = two_servers
    r = _run("-h", "localhost", "-P", str(b.port), cnf=cnf)
    assert r.returncode == 0, r.stderr
    frame = json.loads(r.stdout.splitlines()[0])
    assert frame["server"]["address"] == f"127.0.0.1:{b.port}"


def test_protocol_socket_takes_the_socket_and_a_refusal_names_it(two_servers) -> None:
    a, b, cnf = two_servers
    r = _run("-h", "localhost", "-P", str(b.port), "--protocol=socket", cnf=cnf)
    assert r.returncode == 2
    line, = r.stderr.strip().splitlines()
    assert "Access denied" in line and f"through the socket {a.socket}" in line, line
    # A port in the option file is no choice of TCP (both clients): localhost stays the socket …
    cnf.write_text(cnf.read_text() + f"port={b.port}\n")
    r = _run("-h", "localhost", cnf=cnf)
    assert r.returncode == 2 and f"through the socket {a.socket}" in r.stderr, r.stderr
    # … unless the option file says protocol=TCP.
    cnf.write_text(cnf.read_text() + "protocol=TCP\n")
    r = _run("-h", "localhost", cnf=cnf)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[0])["server"]["address"] == f"127.0.0.1:{b.port}"
