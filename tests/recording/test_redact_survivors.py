"""`mysqltop redact` leaves no name behind: the monitoring account in error text, names inside
longer words and paths (`db1` in `/srv/db1_data/`), server paths in variables, host process
names; one host gets one pseudonym however it is spelled."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.core.sample import HostSample, ServerIdentity
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.redaction import Pseudonyms, found_in, redact_sample, without_paths
from mysqltop.recording.writer import RecordingWriter
from tests.recording.synthetic import series

SECRETS = ("monitor_ops", "db1", "corp.example", "/srv/", "db1_data", "/var/log/mysql", "backup-agent", "shopapp",
           "billing", "invoices")


def _hostile(raw):  # type: ignore[no-untyped-def]
    return dataclasses.replace(
        raw,
        server=ServerIdentity("10.11.19-MariaDB", "mariadb", "db1.corp.example:3306", "db1", False),
        sessions=[[5, "shopapp", "db1:4000", "billing", "Query", "updating", 3, "UPDATE invoices SET x = 1"],
                  [6, "shopapp", "db12.corp.example:4001", "billing", "Sleep", "", 9, None]],
        errors={"metadata_locks": "SELECT command denied: performance_schema.metadata_locks not readable by "
                                  "'monitor_ops'@'%'",
                "lock_waits": "Can't create/write to file '/srv/db1_data/tmp/#sql_1.MAI' (Errcode: 28)"},
        variables={**raw.variables, "datadir": "/srv/db1_data/", "socket": "/srv/db1_data/mysql.sock",
                   "log_error": "/var/log/mysql/db1.err", "pid_file": "db1.pid", "hostname": "db1",
                   "log_bin_basename": "./db1-bin", "innodb_data_file_path": "ibdata1:12M:autoextend"},
        host=HostSample(cpus=2, cpu_times={"user": 1.0, "idle": 2.0}, ctx_switches=1, procs_running=1,
                        procs_blocked=0, loadavg=(0.0, 0.0, 0.0), top_procs=[[77, "backup-agent", 1.5]]))


def _dump(path: Path) -> str:
    with RecordingReader(path) as r:
        parts = [json.dumps(dataclasses.asdict(r.sample(i)), default=str) for i in range(len(r))]
        parts += [f"{b.trigger} {b.note}" for b in r.bookmarks] + [str(r.meta.trigger)]
        return "\n".join(parts)


def test_no_original_string_remains_anywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, out = tmp_path / "in.mtrec", tmp_path / "out.mtrec"
    with RecordingWriter(src, interval=1.0, trigger="Threads_running>50 on db1") as w:
        for r in series(3):
            w.append(_hostile(r))
        w.bookmark(r.wall, "lock wait by shopapp", 1.0, "billing stalled: see /srv/db1_data/slow.log")
    assert all(s in _dump(src) for s in SECRETS)
    assert main(["redact", str(src), str(out)]) == 0, capsys.readouterr().err
    after = _dump(out)
    assert [s for s in SECRETS if s in after] == []            # a plain search: inside words too
    with RecordingReader(out) as r:
        s = r.sample(0)
        # one host, one pseudonym: @@hostname, the address, a client's host column, the variable
        assert s.server.hostname == s.sessions[0][2] == s.variables["hostname"]
        assert s.sessions[1][2] != s.server.hostname                     # db12 is another host
        assert s.variables["datadir"] == s.variables["socket"] == s.variables["log_error"] == "(path)"
        assert s.variables["pid_file"].endswith(".pid") and s.variables["innodb_data_file_path"] == \
            "ibdata1:12M:autoextend"
        assert "'user_" in s.errors["metadata_locks"] and "'@'%'" in s.errors["metadata_locks"]
        assert s.host is not None and [list(p) for p in s.host.top_procs] == [[77, "process_1", 1.5]]


def test_the_check_finds_a_name_inside_another_word() -> None:
    names = Pseudonyms()
    names.host("db1")
    names.of("user", "ab")                        # too short to search for inside words
    assert found_in("/srv/db1_data/", names) == ["db1"]
    assert found_in("xdb1x", names) == ["db1"]
    assert found_in("host_1 and (path) and user_1", names) == []        # what redaction wrote
    assert names.text("/srv/db1_data/ and db1_x and db12 by ab") == "(path) and host_1_x and host_12 by user_1"


def test_paths_go_and_server_source_files_stay() -> None:
    assert without_paths("created in file /build/mariadb/storage/innobase/btr/btr0sea.cc line 222") == \
        "created in file btr0sea.cc line 222"
    assert without_paths("datadir /srv/db1_data/ and ./db1-bin and C:\\data\\db1") == \
        "datadir (path) and (path) and (path)"
    kept = "I/O thread 0 state: waiting; 0.00 reads/s, 1000 / 1000, ibuf aio reads:, log i/o's:"
    assert without_paths(kept) == kept


def test_status_text_still_parses_after_redaction() -> None:
    from mysqltop.core.innodb import parse_innodb_status

    raw = series(1)[0]
    names = Pseudonyms()
    redact_sample(_hostile(raw), names)
    out = redact_sample(_hostile(raw), names)
    assert out.innodb_status and raw.innodb_status
    before, after = parse_innodb_status(raw.innodb_status), parse_innodb_status(out.innodb_status)
    assert before.log == after.log and before.buffer_pool == after.buffer_pool


def test_keep_server_host_keeps_it_even_when_a_client_has_the_same_name(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    src, out = tmp_path / "in.mtrec", tmp_path / "out.mtrec"
    with RecordingWriter(src, interval=1.0) as w:
        for r in series(2):
            w.append(_hostile(r))
    assert main(["redact", str(src), str(out), "--keep-server-host"]) == 0, capsys.readouterr().err
    with RecordingReader(out) as r:
        s = r.sample(0)
        assert s.server.hostname == "db1" and s.server.address == "db1.corp.example:3306"
        assert s.sessions[0][2].startswith("host_") and "monitor_ops" not in json.dumps(s.errors)


def test_the_servers_own_schemas_are_kept() -> None:
    names = Pseudonyms()
    assert names.lock_table("`mysql`.`user`") == "`mysql`.`table_1`"
    assert names.of("schema", "performance_schema") == "performance_schema"
    assert names.text("default_authentication_plugin mysql_native_password") == \
        "default_authentication_plugin mysql_native_password"


def test_a_two_character_host_is_replaced_and_checked_where_no_letter_touches_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Host `db`: gone from `db_err.log`, `db-2.pid` and `./db-bin`, kept inside `innodb` and
    `mariadb`; and the check looks for it too."""
    names = Pseudonyms()
    names.host("db")
    assert names.text("db_err.log, db-2.pid, db.corp and innodb on mariadb") == \
        "host_1_err.log, host_1-2.pid, host_1.corp and innodb on mariadb"
    assert found_in("see db_err.log", names) == ["db"] and found_in("innodb, mariadb, host_1", names) == []

    def short(raw):  # type: ignore[no-untyped-def]
        return dataclasses.replace(
            raw, server=ServerIdentity("10.11.19-MariaDB", "mariadb", "db:3306", "db", False),
            variables={**raw.variables, "hostname": "db", "log_error": "db_err.log", "pid_file": "db.pid",
                       "log_bin_basename": "db-bin"})

    src, out = tmp_path / "in.mtrec", tmp_path / "out.mtrec"
    with RecordingWriter(src, interval=1.0) as w:
        for r in series(3):
            w.append(short(r))
    assert main(["redact", str(src), str(out)]) == 0, capsys.readouterr().err
    with RecordingReader(out) as r:
        v = r.sample(0).variables
    assert v["log_error"] == f"{v['hostname']}_err.log" and v["hostname"].startswith("host_")
    assert "db" not in (v["log_error"], v["pid_file"], v["log_bin_basename"]) and "db_err" not in _dump(out)
