"""Host lists for the fleet view and `serve`: -h a,b:3307, --hosts-file, hosts= in the option file."""

from __future__ import annotations

import pytest

from mysqltop.arguments import fleet_flags
from mysqltop.cli import build_parser
from mysqltop.errors import UserError
from mysqltop.config import FleetFlags, fleet_options, host_list, parse_host_list
from mysqltop.sources.fleet_sources import recording_file_name


def _args(*argv: str) -> FleetFlags:
    return fleet_flags(build_parser().parse_args(["serve", *argv]))


def test_parse_host_list_ports_ipv6_duplicates_comments() -> None:
    assert parse_host_list("db1, db2:3307,[::1]:3308,db1,,  # db9") == [
        ("db1", None), ("db2", 3307), ("::1", 3308)]
    assert parse_host_list("db1\n# a comment\ndb3:3310  # trailing\n") == [("db1", None), ("db3", 3310)]


@pytest.mark.parametrize("bad", ["db1:x", "db1:0", "db1:70000", "[::1", "db 1", ":3306"])
def test_parse_host_list_refuses_with_one_line(bad: str) -> None:
    with pytest.raises(UserError) as e:
        parse_host_list(bad)
    assert "\n" not in e.value.message and "-h" in e.value.message


def test_comma_in_host_makes_a_list_and_port_flag_is_the_default(tmp_path) -> None:
    args = _args("-h", "db1,db2:3307", "-P", "3310", "-u", "mon", "--password=pw",
                 "--defaults-file", str(_cnf(tmp_path, "")))
    hosts = host_list(args)
    assert hosts == [("db1", None), ("db2", 3307)]
    opts = list(fleet_options(args, hosts).members)
    assert [(o.host, o.port, o.user, o.password) for o in opts] == [
        ("db1", 3310, "mon", "pw"), ("db2", 3307, "mon", "pw")]
    assert [o.address for o in opts] == ["db1:3310", "db2:3307"]


def test_single_host_is_not_a_fleet(tmp_path) -> None:
    assert host_list(_args("-h", "db1", "--defaults-file", str(_cnf(tmp_path, "hosts=a,b")))) is None


def test_hosts_file_and_option_file(tmp_path) -> None:
    f = tmp_path / "hosts"
    f.write_text("# fleet\ndb1\ndb2:3307\n")
    assert host_list(_args("--hosts-file", str(f), "--defaults-file", str(_cnf(tmp_path, "")))) == [
        ("db1", None), ("db2", 3307)]
    cnf = _cnf(tmp_path, "hosts = db5, db6:3309\nport=3400")
    args = _args("--defaults-file", str(cnf), "-u", "x", "--password=y")
    hosts = host_list(args)
    assert hosts == [("db5", None), ("db6", 3309)]
    assert [o.address for o in list(fleet_options(args, hosts).members)] == ["db5:3400", "db6:3309"]
    empty = tmp_path / "empty"
    empty.write_text("# nobody\n")
    with pytest.raises(UserError, match="no host"):
        host_list(_args("--hosts-file", str(empty)))
    with pytest.raises(UserError, match="missing"):
        host_list(_args("--hosts-file", str(tmp_path / "missing")))


def test_recording_file_names_are_plain() -> None:
    assert recording_file_name("db1:3306") == "db1_3306.mtrec"
    assert recording_file_name("../../etc/passwd") == "etc_passwd.mtrec"
    assert recording_file_name("/run/mysqld/mysqld.sock") == "run_mysqld_mysqld.sock.mtrec"


def _cnf(tmp_path, body: str):
    p = tmp_path / "my.cnf"
    p.write_text(f"[mysqltop]\n{body}\n")
    return p
