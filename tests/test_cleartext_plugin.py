"""A server that asks for the password in clear text (mysql_clear_password) over plain TCP never
gets it unless --enable-cleartext-plugin says so, as the mysql client behaves."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mysqltop.config import ConnectionOptions
from mysqltop.core.sample import Failure
from mysqltop.errors import UserError
from mysqltop.sources.capabilities import connect
from mysqltop.sources.failure import classify
from tests.support.serve_process import serve_against
from tests.support.fake_mysql import CleartextServer

ROOT = Path(__file__).resolve().parents[1]
SECRET = "Pa55-w0rd-not-for-you"


def _snapshot(port: int, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mysqltop", "snapshot", "-h", "127.0.0.1", "-P", str(port),
                           "-u", "monitor_ops", f"--password={SECRET}", "--count",
                           "1", *extra], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})


@pytest.mark.parametrize("plugin", [b"mysql_clear_password", b"dialog"])
def test_the_password_never_reaches_a_server_asking_for_it_in_clear(plugin: bytes) -> None:
    with CleartextServer(plugin) as srv:
        out = _snapshot(srv.port)
        assert srv.connections >= 1
        assert SECRET.encode() not in srv.received()
    assert out.returncode == 2, out.stderr
    line = out.stderr.strip().splitlines()[-1]
    assert "in clear text" in line and "password was not sent" in line
    assert "--ssl-ca" in line and "--enable-cleartext-plugin" in line
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("plugin", [b"sha256_password", b"caching_sha2_password"])
def test_no_password_is_encrypted_with_a_key_the_server_sends_without_tls(plugin: bytes) -> None:
    with CleartextServer(plugin) as srv:
        out = _snapshot(srv.port)
        got, answers = srv.received(), srv.answers()
    assert out.returncode == 2, out.stderr
    line = out.stderr.strip().splitlines()[-1]
    assert "key it sends itself" in line and "password was not sent" in line and "--get-server-public-key" in line
    assert SECRET.encode() not in got
    assert answers and answers[-1] in (b"\x01", b"\x02")          # it asked for the key, then sent nothing
    with CleartextServer(plugin) as srv:
        allowed = _snapshot(srv.port, "--get-server-public-key")
    assert "key it sends itself" not in allowed.stderr                  # past the refusal


def test_enable_cleartext_plugin_sends_it_as_the_mysql_client_would() -> None:
    with CleartextServer() as srv:
        out = _snapshot(srv.port, "--enable-cleartext-plugin")
        assert SECRET.encode() + b"\x00" in srv.received()
    assert out.returncode == 2 and "Access denied" in out.stderr


def test_a_reconnect_refused_for_cleartext_counts_as_denied() -> None:
    with CleartextServer() as srv:
        opts = ConnectionOptions(host="127.0.0.1", port=srv.port, user="monitor_ops", password=SECRET)
        with pytest.raises(UserError) as err:
            connect(opts, 5.0, 5.0)
        assert SECRET.encode() not in srv.received()
    assert classify(err.value) is Failure.DENIED


@pytest.mark.parametrize("cnf, cleartext, server_key", [
    ("", False, False),
    ("enable-cleartext-plugin\n", True, False),
    ("enable_cleartext_plugin=1\nget-server-public-key=ON\n", True, True),
    ("enable-cleartext-plugin=0\nget-server-public-key=FALSE\n", False, False),
])
def test_the_option_file_can_allow_them_as_the_mysql_client_reads_it(tmp_path: Path, cnf: str, cleartext: bool,
                                                                     server_key: bool) -> None:
    import argparse

    from mysqltop.arguments import add_connection_arguments, connection_flags
    from mysqltop.config import resolve_connection

    (tmp_path / "my.cnf").write_text(f"[client]\nuser=monitor_ops\nhost=db1\n{cnf}")
    p = argparse.ArgumentParser(add_help=False)
    add_connection_arguments(p)
    opts = resolve_connection(connection_flags(p.parse_args(["--defaults-file", str(tmp_path / "my.cnf")])), env={})
    assert (opts.enable_cleartext_plugin, opts.get_server_public_key) == (cleartext, server_key)
    flagged = resolve_connection(connection_flags(p.parse_args(
        ["--defaults-file", str(tmp_path / "my.cnf"), "--enable-cleartext-plugin", "--get-server-public-key"])), env={})
    assert flagged.enable_cleartext_plugin and flagged.get_server_public_key


def test_serve_sends_a_listed_server_asking_for_cleartext_no_password(tmp_path: Path) -> None:
    """serve keeps retrying a server that refused it: every attempt withholds the password."""
    from tests.support.waiting import wait_until

    with CleartextServer() as srv:
        serve = serve_against(srv.port, "monitor_ops", SECRET, tmp_path)
        try:
            wait_until(lambda: srv.connections >= 3, timeout=60)           # the first connect and retries
        finally:
            serve.terminate()
            _, err = serve.communicate(timeout=60)
        assert SECRET.encode() not in srv.received()
    assert "in clear text" in err and "--enable-cleartext-plugin" in err and "Traceback" not in err
