"""mysql/mariadb client conventions with real files in a throwaway HOME: the login file
(~/.mylogin.cnf, made here as mysql_config_editor makes it), --defaults-extra-file,
--no-defaults, --defaults-group-suffix and the [client-server] / [client-mariadb] groups."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mysqltop.config import resolve_connection
from mysqltop.core.mylogin import LoginFileError, decode_login_file, decrypt_block, round_keys
from mysqltop.errors import UserError
from tests.support.client_env import isolated_home, parse
from tests.support.mylogin import encode_login_file, write_login_file

LOGIN = """[client]
user = "app"
password = "app pw # not a comment"
[prod]
host = db-prod.example
port = 3307
user = ops
password = ops-secret
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolated_home(tmp_path, monkeypatch)


def test_aes_matches_the_fips_197_vector() -> None:
    keys = round_keys(bytes(range(16)))
    assert decrypt_block(keys, bytes.fromhex("69c4e0d86a7b0430d8cdb78070b4c55a")).hex() == \
        "00112233445566778899aabbccddeeff"


def test_a_login_file_decodes_to_its_text() -> None:
    data = encode_login_file(LOGIN)
    assert data[:4] == bytes(4) and LOGIN.encode()[:8] not in data     # not stored in clear
    assert decode_login_file(data) == LOGIN
    with pytest.raises(LoginFileError):
        decode_login_file(data[:-3])                    # cut inside its last line
    with pytest.raises(LoginFileError):
        decode_login_file(b"[client]\nuser=x\n" * 3)    # a plain option file


def test_login_path_reads_its_group_of_the_login_file(home: Path) -> None:
    write_login_file(home / ".mylogin.cnf", LOGIN)
    o = resolve_connection(parse("--login-path", "prod"))
    assert (o.host, o.port, o.user, o.password) == ("db-prod.example", 3307, "ops", "ops-secret")
    o = resolve_connection(parse())                     # [client] of the login file, always read
    assert (o.user, o.password) == ("app", "app pw # not a comment")
    o = resolve_connection(parse("--login-path=prod", "-u", "me"))   # flags still win
    assert (o.user, o.password) == ("me", "ops-secret")


def test_the_login_file_wins_over_my_cnf_and_is_read_with_no_defaults(home: Path) -> None:
    write_login_file(home / ".mylogin.cnf", "[client]\npassword=from-login\n")
    (home / ".my.cnf").write_text("[client]\nuser=cnfuser\npassword=from-cnf\nport=3310\n")
    o = resolve_connection(parse())
    assert (o.user, o.password, o.port) == ("cnfuser", "from-login", 3310)
    o = resolve_connection(parse("--no-defaults"))
    assert (o.user, o.password, o.port) == ("dba", "from-login", 3306)


def test_login_path_names_what_is_missing(home: Path) -> None:
    with pytest.raises(UserError) as exc:
        resolve_connection(parse("--login-path", "prod"))
    assert exc.value.code == 2 and "no [prod] group" in exc.value.message
    (home / ".mylogin.cnf").write_bytes(b"\x00" * 24 + b"\x10\x00\x00\x00" + b"x" * 7)
    with pytest.raises(UserError) as exc:
        resolve_connection(parse("--login-path", "prod"))
    assert "not a login file" in exc.value.message and "\n" not in exc.value.message
    assert resolve_connection(parse()).user == "dba"    # without --login-path a bad file is passed over


def test_login_path_group_in_an_ordinary_option_file(home: Path) -> None:
    (home / ".my.cnf").write_text("[client]\nuser=a\n[staging]\nuser=b\nhost=db-staging\n")
    o = resolve_connection(parse("--login-path", "staging"))
    assert (o.user, o.host) == ("b", "db-staging")


def test_mysql_test_login_file_names_another_login_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = write_login_file(home / "elsewhere.cnf", "[client]\nuser=elsewhere\n")
    monkeypatch.setenv("MYSQL_TEST_LOGIN_FILE", str(other))
    assert resolve_connection(parse()).user == "elsewhere"


def test_defaults_extra_file_is_read_before_my_cnf(home: Path) -> None:
    extra = home / "extra.cnf"
    extra.write_text("[client]\nuser=extra\nport=3311\n")
    (home / ".my.cnf").write_text("[client]\nuser=home\n")
    o = resolve_connection(parse("--defaults-extra-file", str(extra)))
    assert (o.user, o.port) == ("home", 3311)
    o = resolve_connection(parse("--defaults-extra-file", str(extra), "--no-defaults"))
    assert (o.user, o.port) == ("dba", 3306)
    with pytest.raises(UserError) as exc:
        resolve_connection(parse("--defaults-extra-file", str(home / "nope.cnf")))
    assert "--defaults-extra-file" in exc.value.message and "no such file" in exc.value.message


def test_no_defaults_reads_no_option_file(home: Path) -> None:
    (home / ".my.cnf").write_text("[client]\nuser=home\nhost=db1\n")
    o = resolve_connection(parse("-P", "3312", "--no-defaults"))          # anywhere on the line
    assert (o.user, o.host, o.port) == ("dba", "127.0.0.1", 3312)


def test_client_server_and_client_mariadb_groups_in_order(home: Path) -> None:
    (home / ".my.cnf").write_text(
        "[mysqltop]\nport=3399\n"
        "[client-mariadb]\nport=3398\nuser=maria\n"
        "[client-server]\nport=3397\nuser=cs\nhost=db-cs\n"
        "[client]\nport=3396\nuser=c\nhost=db-c\npassword=pw-c\n")
    o = resolve_connection(parse())
    # later groups win whatever their place in the file: client < client-server < client-mariadb < mysqltop
    assert (o.port, o.user, o.host, o.password) == (3399, "maria", "db-cs", "pw-c")


def test_defaults_group_suffix_reads_the_suffixed_groups_too(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (home / ".my.cnf").write_text("[client]\nuser=c\nport=3306\n[client_prod]\nuser=c-prod\n"
                                  "[mysqltop]\nport=3320\n[mysqltop_prod]\nport=3321\n")
    o = resolve_connection(parse("--defaults-group-suffix", "_prod"))
    assert (o.user, o.port) == ("c-prod", 3321)
    assert resolve_connection(parse()).port == 3320
    monkeypatch.setenv("MYSQL_GROUP_SUFFIX", "_prod")
    assert resolve_connection(parse()).user == "c-prod"


def test_login_path_with_a_suffix(home: Path) -> None:
    write_login_file(home / ".mylogin.cnf", LOGIN + "[prod_eu]\nhost=db-eu\n")
    o = resolve_connection(parse("--login-path", "prod", "--defaults-group-suffix", "_eu"))
    assert (o.host, o.user) == ("db-eu", "ops")


@pytest.mark.live
def test_snapshot_connects_with_a_login_path(mariadb, home: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    """The whole way: a login file made as mysql_config_editor makes it, and a real server."""
    from mysqltop.cli import main
    from tests.support.mariadb import MONITOR_PASSWORD, MONITOR_USER

    (home / ".my.cnf").write_text("[client]\nuser=wrong\npassword=wrong\n")
    write_login_file(home / ".mylogin.cnf",
                     f"[lab]\nhost = {mariadb.host}\nport = {mariadb.port}\nuser = {MONITOR_USER}\n"
                     f'password = "{MONITOR_PASSWORD}"\n')
    assert main(["snapshot", "--login-path", "lab", "--count", "1", "--format", "json"]) == 0
    frame = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert frame["server"]["flavor"] == "mariadb" and frame["failure"] is None
