"""A server in the middle offers TLS with a certificate of its own making, then asks for the
password in clear text (or as is over that TLS, or encrypted with a key it sends): no command
sends it, since TLS that verifies nothing proves nothing about who answers. Only
--enable-cleartext-plugin sends a clear-text password, and only a verified server (--ssl-ca,
--ssl-mode=VERIFY_CA/VERIFY_IDENTITY) or --get-server-public-key gets the other forms."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mysqltop.config import ConnectionOptions, resolve_connection
from mysqltop.errors import UserError
from mysqltop.sources.capabilities import connect
from tests.support.serve_process import serve_against
from tests.support.fake_mysql import CleartextServer, tls_server_context
from tests.support.tls import self_signed
from tests.support.waiting import wait_until
from tests.tui.pty_app import PtyApp

ROOT = Path(__file__).resolve().parents[1]
SECRET = "Pa55-w0rd-not-for-you"
PLUGINS = [b"mysql_clear_password", b"dialog", b"sha256_password", b"caching_sha2_password"]


@pytest.fixture(scope="module")
def cert(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed(tmp_path_factory.mktemp("tls"))


def _server(cert: tuple[Path, Path], plugin: bytes = b"mysql_clear_password", **kw: object) -> CleartextServer:
    return CleartextServer(plugin, tls=tls_server_context(*cert), **kw)  # type: ignore[arg-type]


def _run(command: list[str], port: int, *extra: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mysqltop", *command, "-h", "127.0.0.1", "-P", str(port),
                           "-u", "monitor_ops", f"--password={SECRET}", *extra], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": str(home or "/nonexistent")})


@pytest.mark.parametrize("plugin", PLUGINS)
def test_snapshot_sends_no_password_to_a_tls_server_it_did_not_verify(cert: tuple[Path, Path], plugin: bytes) -> None:
    with _server(cert, plugin) as srv:
        out = _run(["snapshot", "--count", "1"], srv.port)
        assert srv.tls_sessions >= 1                       # TLS was on: the switch came inside it
        assert SECRET.encode() not in srv.received()
    assert out.returncode == 2, out.stderr
    line = out.stderr.strip().splitlines()[-1]
    assert "password was not sent" in line and "Traceback" not in out.stderr
    if plugin in (b"sha256_password", b"caching_sha2_password"):
        assert "--ssl-mode=PREFERRED verifies no certificate" in line and "--get-server-public-key" in line
    else:
        assert "in clear text" in line and "--enable-cleartext-plugin" in line


def test_a_greeting_naming_sha256_gets_no_password_in_the_handshake(cert: tuple[Path, Path]) -> None:
    """PyMySQL puts the password as is in the handshake response when the greeting names
    sha256_password and TLS is on; to a server not verified, a scramble goes instead."""
    with _server(cert, b"sha256_password", greeting_plugin=b"sha256_password") as srv:
        out = _run(["snapshot", "--count", "1"], srv.port, "--ssl-mode", "REQUIRED")
        assert srv.tls_sessions >= 1 and SECRET.encode() not in srv.received()
    assert out.returncode == 2 and "password was not sent" in out.stderr


def test_record_and_the_tui_send_it_no_password(cert: tuple[Path, Path], tmp_path: Path) -> None:
    with _server(cert) as srv:
        rec = _run(["record", "--count", "1", str(tmp_path / "r.mtrec")], srv.port)
        tui = _run([], srv.port)                          # the TUI connects before it needs a terminal
        assert srv.tls_sessions >= 2 and SECRET.encode() not in srv.received()
    for out in (rec, tui):
        assert out.returncode == 2 and "in clear text" in out.stderr and "Traceback" not in out.stderr


def test_the_fleet_view_sends_it_no_password(cert: tuple[Path, Path]) -> None:
    with _server(cert) as a, _server(cert) as b:
        app = PtyApp([sys.executable, "-m", "mysqltop", "-h", f"127.0.0.1:{a.port},127.0.0.1:{b.port}",
                      "-u", "monitor_ops", f"--password={SECRET}", "--interval", "0.5"], (160, 48))
        try:
            # every server refused at start: one line on the terminal, no screen
            assert app.wait_for(re.compile(rb"in clear text.*password was not sent"), 60) is not None
            wait_until(lambda: a.tls_sessions >= 1 and b.tls_sessions >= 1, timeout=60)
        finally:
            app.quit()
        assert SECRET.encode() not in a.received() + b.received()


def test_serve_sends_it_no_password_on_any_reconnect(cert: tuple[Path, Path], tmp_path: Path) -> None:
    with _server(cert) as srv:
        serve = serve_against(srv.port, "monitor_ops", SECRET, tmp_path)
        try:
            wait_until(lambda: srv.tls_sessions >= 3, timeout=60)          # the first connect and retries
        finally:
            serve.terminate()
            _, err = serve.communicate(timeout=60)
        assert SECRET.encode() not in srv.received()
    assert "in clear text" in err and "Traceback" not in err


def _options(port: int, **kw: object) -> ConnectionOptions:
    return ConnectionOptions(host="127.0.0.1", port=port, user="monitor_ops", password=SECRET, **kw)  # type: ignore[arg-type]


def test_a_verified_server_still_needs_the_flag_for_clear_text(cert: tuple[Path, Path]) -> None:
    with _server(cert) as srv:
        verified = _options(srv.port, ssl_ca=str(cert[0]), ssl_mode="VERIFY_IDENTITY")
        with pytest.raises(UserError, match="in clear text"):
            connect(verified, 5.0, 5.0)
        assert SECRET.encode() not in srv.received()
        with pytest.raises(UserError, match="Access denied"):
            connect(_options(srv.port, ssl_ca=str(cert[0]), ssl_mode="VERIFY_IDENTITY",
                             enable_cleartext_plugin=True), 5.0, 5.0)
        assert SECRET.encode() + b"\x00" in srv.received()          # asked for: sent, inside TLS


def test_a_verified_server_gets_caching_sha2_full_auth_over_tls(cert: tuple[Path, Path]) -> None:
    with _server(cert, b"caching_sha2_password") as srv:
        with pytest.raises(UserError):          # the fake server answers the password with its key
            connect(_options(srv.port, ssl_ca=str(cert[0]), ssl_mode="VERIFY_CA"), 5.0, 5.0)
        assert SECRET.encode() + b"\x00" in srv.received()          # the server proved itself


def test_a_certificate_the_ca_did_not_sign_gets_nothing(cert: tuple[Path, Path], tmp_path: Path) -> None:
    other, _ = self_signed(tmp_path)
    with _server(cert) as srv:
        with pytest.raises(UserError) as err:
            connect(_options(srv.port, ssl_ca=str(other), ssl_mode="VERIFY_CA", enable_cleartext_plugin=True),
                    5.0, 5.0)
        assert SECRET.encode() not in srv.received()
    assert "certificate verify failed" in err.value.message


def test_required_refuses_a_server_without_tls() -> None:
    with CleartextServer() as srv:
        with pytest.raises(UserError):
            connect(_options(srv.port, ssl_mode="REQUIRED", enable_cleartext_plugin=True), 5.0, 5.0)
        assert SECRET.encode() not in srv.received()


def _resolve(tmp_path: Path, *argv: str, cnf: str = "") -> ConnectionOptions:
    from mysqltop.arguments import add_connection_arguments, connection_flags

    (tmp_path / "my.cnf").write_text(f"[client]\nuser=monitor_ops\n{cnf}")
    p = argparse.ArgumentParser(add_help=False)
    add_connection_arguments(p)
    return resolve_connection(connection_flags(p.parse_args(["--defaults-file", str(tmp_path / "my.cnf"), *argv])),
                              env={})


@pytest.mark.parametrize("argv, cnf, mode", [
    (["-h", "db1"], "", "PREFERRED"),
    (["-h", "db1", "--ssl-mode", "required"], "", "REQUIRED"),
    (["-h", "db1", "--ssl-ca", "{ca}"], "", "VERIFY_IDENTITY"),
    (["-h", "db1", "--ssl-ca", "{ca}", "--ssl-mode", "VERIFY_CA"], "", "VERIFY_CA"),
    (["-h", "db1", "--ssl-verify-server-cert"], "", "VERIFY_IDENTITY"),
    (["-h", "db1", "--ssl-mode", "REQUIRED", "--ssl-verify-server-cert"], "", "VERIFY_IDENTITY"),
    (["-h", "db1"], "ssl-mode=VERIFY_CA\n", "VERIFY_CA"),
    (["-h", "db1"], "ssl_verify_server_cert\n", "VERIFY_IDENTITY"),
    (["-h", "db1", "--ssl-mode", "DISABLED"], "ssl-mode=VERIFY_CA\n", "DISABLED"),
    (["-S", "/tmp/x.sock"], "", "DISABLED"),
    (["-S", "/tmp/x.sock", "--ssl-mode", "REQUIRED"], "", "REQUIRED"),
    (["-h", "db1", "--ssl"], "", "REQUIRED"),
    (["-h", "db1", "--ssl", "--ssl-ca", "{ca}"], "", "VERIFY_IDENTITY"),
    (["-h", "db1", "--skip-ssl"], "ssl-mode=VERIFY_CA\n", "VERIFY_CA"),
    (["-h", "db1", "--skip-ssl"], "", "DISABLED"),
    (["-h", "db1"], "skip-ssl\n", "DISABLED"),
    (["-h", "db1"], "ssl=1\n", "REQUIRED"),
    (["-h", "db1"], "ssl=0\n", "DISABLED"),
])
def test_ssl_mode_as_the_clients_spell_it(tmp_path: Path, cert: tuple[Path, Path], argv: list[str], cnf: str,
                                          mode: str) -> None:
    opts = _resolve(tmp_path, *(a.format(ca=cert[0]) for a in argv), cnf=cnf)
    assert opts.tls_mode == mode


def test_an_unknown_ssl_mode_in_the_option_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="--ssl-mode SOMETIMES: give one of DISABLED"):
        _resolve(tmp_path, "-h", "db1", cnf="ssl-mode=SOMETIMES\n")
