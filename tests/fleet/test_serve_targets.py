"""/probe?target=: which servers it may address and what they receive. A probed server not listed
never gets the configured password unless --probe-any-password (which needs --ssl-ca); a server
watched over a unix socket is addressed by its path."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mysqltop.config import ConnectionOptions, FleetOptions
from mysqltop.errors import UserError
from mysqltop.serve.endpoint import ProbeError
from mysqltop.serve.targets import PROBE_IDLE_S, ProbeTargets

SHARED = ConnectionOptions(host="127.0.0.1", port=3306, user="monitor", password="Pa55-secret")
SOCKET = "/run/mysqld/mysqld.sock"


class World:
    def __init__(self) -> None:
        self.opened: list[ConnectionOptions] = []
        self.watched: dict[str, Any] = {}
        self.now = 1000.0

    def targets(self, listed: set[str], **kw: Any) -> ProbeTargets:
        fleet = FleetOptions(kw.pop("shared", SHARED), ())
        return ProbeTargets(fleet, listed, open_member=self.open, watch=self.watched.__setitem__,
                            unwatch=self.watched.pop, render=lambda name, om: f"{name} {om}".encode(),
                            clock=lambda: self.now, **kw)

    def open(self, options: ConnectionOptions) -> str:
        self.opened.append(options)
        return options.address


def test_a_socket_watched_server_is_addressed_by_its_path() -> None:
    w = World()
    t = w.targets({SOCKET, "db1:3306"}, probe_any=False, probe_password=False)
    assert t.target(SOCKET)(False) == f"{SOCKET} False".encode()
    assert t.target("db1")(True) == b"db1:3306 True"                  # the shared port, as -h db1
    with pytest.raises(ProbeError) as e:
        t.target("/tmp/other.sock")
    assert e.value.status == 404 and "/tmp/other.sock is not watched" in e.value.reason
    assert w.opened == []


def test_probe_any_never_sends_the_password_to_a_server_not_listed() -> None:
    w = World()
    t = w.targets({"db1:3306"}, probe_any=True, probe_password=False)
    t.target("evil.example:3306")
    t.target("/var/run/other.sock")
    assert [o.address for o in w.opened] == ["evil.example:3306", "/var/run/other.sock"]
    assert all(o.password is None and o.user == "monitor" for o in w.opened)
    assert set(w.watched) == {"evil.example:3306", "/var/run/other.sock"}
    t.target("evil.example:3306")                                          # watched already: no new connect
    assert len(w.opened) == 2
    w.now += PROBE_IDLE_S + 1
    assert sorted(t.forget_idle()) == ["/var/run/other.sock", "evil.example:3306"] and w.watched == {}


def test_probe_any_password_needs_tls_verified_by_a_ca() -> None:
    w = World()
    with pytest.raises(UserError, match="needs --ssl-ca"):
        w.targets(set(), probe_any=True, probe_password=True)
    with pytest.raises(UserError, match="goes with --probe-any"):
        w.targets(set(), probe_any=False, probe_password=True, shared=replace(SHARED, ssl_ca="/etc/ca.pem"))
    t = w.targets(set(), probe_any=True, probe_password=True, shared=replace(SHARED, ssl_ca="/etc/ca.pem"))
    t.target("db9:3307")
    assert w.opened[-1].password == "Pa55-secret" and w.opened[-1].ssl_ca == "/etc/ca.pem"


@pytest.mark.parametrize("target", ["db1:99999", "a b", "/bad\x1bpath", "[::1"])
def test_a_target_that_names_no_server_is_400(target: str) -> None:
    t = World().targets(set(), probe_any=True, probe_password=False)
    with pytest.raises(ProbeError) as e:
        t.target(target)
    assert e.value.status == 400


def test_serve_probe_any_sends_a_probed_server_no_password(tmp_path: Any) -> None:
    """One unauthenticated HTTP request made serve connect to any server with its credentials."""
    import subprocess
    import sys
    import urllib.error
    import urllib.request
    from pathlib import Path

    from pymysql import _auth

    from tests.support.fake_mysql import CleartextServer
    from tests.support.mariadb import free_port
    from tests.support.waiting import wait_until

    secret = "Pa55-w0rd-not-for-you"
    port = free_port()
    with CleartextServer(plugin=None) as fake:
        serve = subprocess.Popen(
            [sys.executable, "-m", "mysqltop", "serve", "-h", f"127.0.0.1:{free_port()}", "-u", "monitor_ops",
             f"--password={secret}", "--listen", f"127.0.0.1:{port}", "--connect-timeout", "2", "--probe-any"],
            cwd=Path(__file__).resolve().parents[2], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
        try:
            def probe() -> int:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/probe?target=127.0.0.1:{fake.port}",
                                                timeout=10) as r:
                        return r.status
                except urllib.error.HTTPError as e:
                    return e.code
                except OSError:
                    return 0

            assert wait_until(lambda: probe() == 200, timeout=60)
            wait_until(lambda: fake.connections >= 1 and fake.received(), timeout=30)
        finally:
            serve.terminate()
            serve.communicate(timeout=60)
        got = fake.received()
    assert b"monitor_ops" in got                                      # it did connect, as that user
    assert secret.encode() not in got
    assert _auth.scramble_native_password(secret.encode(), CleartextServer.SALT) not in got
