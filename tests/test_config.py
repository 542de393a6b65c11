"""Connection option resolution: flags > MYSQL_PWD > my.cnf ([mysqltop] over [client]) > defaults."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from mysqltop import config
from mysqltop.arguments import add_connection_arguments
from mysqltop.config import ConnectionOptions, resolve_connection
from mysqltop.errors import UserError
from tests.support.client_env import isolated_home, parse


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolated_home(tmp_path, monkeypatch)


def write_cnf(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_defaults_without_files_use_tcp_loopback(home: Path) -> None:
    o = resolve_connection(parse())
    assert (o.host, o.port, o.user, o.password, o.socket) == ("127.0.0.1", 3306, "dba", None, None)
    assert o.address == "127.0.0.1:3306"
    assert o.pymysql_kwargs() == {"user": "dba", "password": "", "connect_timeout": 5.0,
                                  "host": "127.0.0.1", "port": 3306}


def test_localhost_prefers_existing_common_socket(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sock = home / "mysqld.sock"
    sock.write_text("")
    monkeypatch.setattr(config, "COMMON_SOCKETS", (str(home / "missing.sock"), str(sock)))
    o = resolve_connection(parse("-h", "localhost"))
    assert o.socket == str(sock) and o.host is None and o.address == str(sock)
    assert o.pymysql_kwargs()["unix_socket"] == str(sock) and "host" not in o.pymysql_kwargs()
    assert o.pymysql_kwargs()["ssl_disabled"] is True          # as the mysql client: no TLS on a socket


def test_a_port_on_the_command_line_means_tcp_even_for_localhost(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As MariaDB's client 10.6+: `-h localhost -P 3321` is the server on 3321, not the default socket
    (another instance on a multi-instance host); a port from the option file leaves the socket."""
    sock = home / "mysqld.sock"
    sock.write_text("")
    monkeypatch.setattr(config, "COMMON_SOCKETS", (str(sock),))
    o = resolve_connection(parse("-h", "localhost", "-P", "3321"))
    assert (o.host, o.port, o.socket, o.address) == ("127.0.0.1", 3321, None, "127.0.0.1:3321")
    assert resolve_connection(parse("-P", "3321")).address == "127.0.0.1:3321"
    # -S beside -P: the socket named wins, as in the client
    assert resolve_connection(parse("-h", "localhost", "-P", "3321", "-S", str(sock))).socket == str(sock)
    cnf = write_cnf(home / "port.cnf", "[client]\nport=3321\n")
    o = resolve_connection(parse("-h", "localhost", f"--defaults-file={cnf}"))
    assert o.socket == str(sock)


@pytest.mark.parametrize("argv, cnf, address", [
    (["--protocol=TCP"], "", "127.0.0.1:3306"),
    (["--protocol=tcp", "-P", "3321"], "", "127.0.0.1:3321"),
    (["-P", "3321", "--protocol=SOCKET"], "", "SOCK"),
    ([], "protocol=TCP\nport=3321\n", "127.0.0.1:3321"),
    ([], "protocol=socket\n", "SOCK"),
    (["-h", "db1", "--protocol=TCP"], "", "db1:3306"),
])
def test_protocol_flag_and_option_decide_the_endpoint(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                       argv: list[str], cnf: str, address: str) -> None:
    sock = home / "mysqld.sock"
    sock.write_text("")
    monkeypatch.setattr(config, "COMMON_SOCKETS", (str(sock),))
    path = write_cnf(home / "p.cnf", "[client]\n" + cnf)
    o = resolve_connection(parse(*argv, f"--defaults-file={path}"))
    assert o.address == (str(sock) if address == "SOCK" else address)


def test_an_unknown_protocol_in_the_option_file_is_a_usage_error(home: Path) -> None:
    path = write_cnf(home / "p.cnf", "[client]\nprotocol=PIPE\n")
    with pytest.raises(UserError, match="TCP or SOCKET"):
        resolve_connection(parse(f"--defaults-file={path}"))


def test_preferred_tls_context_is_built_once_and_verifies_nothing() -> None:
    import ssl

    from mysqltop.sources.wire import preferred_tls

    ctx = preferred_tls()
    assert ctx is preferred_tls() and ctx.verify_mode == ssl.CERT_NONE and not ctx.check_hostname
    assert ctx.cert_store_stats()["x509"] == 0                  # no CA bundle parsed for it


def test_remote_host_ignores_socket(home: Path) -> None:
    o = resolve_connection(parse("-h", "db1.example", "-S", "/tmp/x.sock", "-P", "3310"))
    assert (o.host, o.port, o.socket, o.address) == ("db1.example", 3310, None, "db1.example:3310")


def test_explicit_socket(home: Path) -> None:
    o = resolve_connection(parse("-S", "/tmp/my.sock", "-u", "mon"))
    assert o.socket == "/tmp/my.sock" and o.user == "mon"


def test_my_cnf_client_then_mysqltop_section(home: Path) -> None:
    write_cnf(home / ".my.cnf", """
# comment
[mysqld]
port = 9999
[client]
user = client_user
password = "from client"
port = 3311
host = dbhost
no-auto-rehash
[mysqltop]
user = mt_user
ssl_ca = {ca}
""".format(ca=home / ".my.cnf"))
    o = resolve_connection(parse())
    assert (o.user, o.password, o.port, o.host) == ("mt_user", "from client", 3311, "dbhost")
    assert o.ssl_ca == str(home / ".my.cnf")
    assert o.pymysql_kwargs()["ssl"] == {"mode": "VERIFY_IDENTITY", "ca": str(home / ".my.cnf")}


def test_flags_beat_env_beat_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_cnf(home / ".my.cnf", "[client]\npassword=filepw\nuser=fileuser\n")
    assert resolve_connection(parse()).password == "filepw"
    monkeypatch.setenv("MYSQL_PWD", "envpw")
    assert resolve_connection(parse()).password == "envpw"
    o = resolve_connection(parse("--password=flagpw", "-u", "flaguser"))
    assert (o.password, o.user) == ("flagpw", "flaguser")


def test_defaults_file_replaces_home_cnf(home: Path) -> None:
    write_cnf(home / ".my.cnf", "[client]\nuser=home\n")
    other = write_cnf(home / "other.cnf", "[client]\nuser=other\nport=4000\n")
    o = resolve_connection(parse("--defaults-file", str(other)))
    assert (o.user, o.port) == ("other", 4000)
    with pytest.raises(UserError, match="no such file"):
        resolve_connection(parse("--defaults-file", str(home / "nope.cnf")))


def test_include_directives_are_followed_or_tolerated(home: Path) -> None:
    inc = write_cnf(home / "inc.cnf", "[mysqltop]\nuser=included\n")
    (home / "conf.d").mkdir()
    write_cnf(home / "conf.d" / "a.cnf", "[client]\nport=5000\n")
    write_cnf(home / ".my.cnf", f"!include {inc}\n!includedir {home / 'conf.d'}\n"
              f"!include {home / 'missing.cnf'}\n[client]\nuser=base\n")
    o = resolve_connection(parse())
    assert (o.user, o.port) == ("included", 5000)


def test_bad_port_in_file_is_a_user_error(home: Path) -> None:
    write_cnf(home / ".my.cnf", "[client]\nport=abc\n")
    with pytest.raises(UserError, match="not a number") as e:
        resolve_connection(parse())
    assert e.value.code == 2


def test_garbled_file_is_a_user_error(home: Path) -> None:
    write_cnf(home / ".my.cnf", "user=nosection\n")
    with pytest.raises(UserError, match="cannot read option file"):
        resolve_connection(parse())


def test_prompt_without_tty_is_a_user_error(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(UserError, match="stdin is not a terminal"):
        resolve_connection(parse("-p"))


def test_prompt_with_tty_uses_getpass(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True
    monkeypatch.setattr("sys.stdin", Tty(""))
    asked: list[str] = []
    monkeypatch.setattr("getpass.getpass", lambda prompt: asked.append(prompt) or "secret")
    o = resolve_connection(parse("-p", "-u", "mon"))
    assert o.password == "secret" and asked == ["Enter password for mon: "]
    # password without a value in the option file also prompts
    write_cnf(home / ".my.cnf", "[client]\npassword\n")
    assert resolve_connection(parse()).password == "secret"


def test_unreadable_ssl_file(home: Path) -> None:
    with pytest.raises(UserError, match="--ssl-ca"):
        resolve_connection(parse("--ssl-ca", str(home / "nope.pem")))


def test_password_never_in_repr(home: Path) -> None:
    o = ConnectionOptions(host="h", port=1, user="u", password="topsecret")
    assert "topsecret" not in repr(o)


def test_ctrl_c_at_the_password_prompt_exits_130(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C at the -p prompt exited 2 ("no password entered") instead of 130 (interrupted)."""
    from mysqltop.cli import main

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    def interrupted(prompt: str) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("sys.stdin", Tty(""))
    monkeypatch.setattr("getpass.getpass", interrupted)
    assert main(["snapshot", "-p", "-u", "mon", "--count", "1"]) == 130
    assert capsys.readouterr().err == "\nmysqltop: interrupted at the password prompt\n"


@pytest.mark.parametrize("argv, cnf", [(["-P", "99999"], ""), (["-P", "0"], ""), ([], "[client]\nport=70000\n")])
def test_a_port_out_of_range_is_a_usage_error(home: Path, argv: list[str], cnf: str) -> None:
    """-P 99999 was tried and reported as "connection refused: is the server running there?"."""
    write_cnf(home / ".my.cnf", cnf)
    with pytest.raises(UserError, match=r"is not a TCP port: give -P/--port \(or port= in the option file\) "
                                        "between 1 and 65535") as e:
        resolve_connection(parse("-h", "db1", *argv))
    assert e.value.code == 2


def test_a_host_list_for_a_one_server_command_says_which_commands_take_several(home: Path) -> None:
    with pytest.raises(UserError) as e:
        resolve_connection(parse("-h", "db1,db2:3307"))
    assert e.value.message.startswith("-h db1,db2:3307 names several servers; this command takes one")


def test_flags_are_read_once_into_typed_flags() -> None:
    """-p without a value is a request to prompt, not a password; a password given never shows in a
    repr; --replay's refusal names the first flag that names a server."""
    from mysqltop.arguments import server_flag_given

    asked = parse("-p", "-u", "mon")
    assert (asked.ask_password, asked.password, asked.user) == (True, None, "mon")
    given = parse("--password=topsecret", "-P", "3307")
    assert (given.ask_password, given.password, given.port) == (False, "topsecret", 3307)
    assert "topsecret" not in repr(given)
    assert parse().connect_timeout == 5.0 and parse("--connect-timeout", "2.5").connect_timeout == 2.5
    p = argparse.ArgumentParser(add_help=False)
    add_connection_arguments(p)
    assert server_flag_given(p.parse_args(["--enable-instruments"])) is None
    assert server_flag_given(p.parse_args(["--ssl-key", "k.pem", "-p"])) == "--password"
