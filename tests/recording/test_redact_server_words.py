"""`mysqltop redact` with names that are also words the server prints: a schema `status`, `test`
or `lock`, a table `data`, a user `root`, a host `localhost`. Each is replaced where it is a name;
the server's words (`Old database pages`, `0 lock struct(s)`, `Unknown database`) stay readable,
the check that no name survives still holds, and one line says which were kept where."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.core.innodb import parse_innodb_status
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.redaction import Pseudonyms, found_in, redact_sample, survivors
from mysqltop.recording.writer import RecordingWriter
from tests.recording.synthetic import series


def _named(raw):  # type: ignore[no-untyped-def]
    return dataclasses.replace(
        raw,
        sessions=[[5, "root", "localhost", "status", "Query", "updating", 3, "UPDATE data SET x = 1"],
                  [6, "app", "localhost:4001", "test", "Sleep", "", 9, None],
                  [7, "app", "web1:4002", "lock", "Sleep", "", 9, None]],
        metadata_locks=[[5, "TABLE", "SHARED_READ", "status", "data", "GRANTED", "TRANSACTION"]],
        errors={"lock_waits": "Unknown database 'status' for 'root'@'localhost' on table data"})


def test_names_that_are_server_words_are_replaced_only_as_names(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    src, out = tmp_path / "in.mtrec", tmp_path / "out.mtrec"
    with RecordingWriter(src, interval=1.0) as w:
        for r in series(3):
            w.append(_named(r))
    assert main(["redact", str(src), str(out)]) == 0
    err = capsys.readouterr().err
    assert "none of the original names remains" in err
    # one line names what was kept inside the server's words
    note = [ln for ln in err.splitlines() if "note:" in ln]
    assert len(note) == 1 and "data in database" in note[0] and "lock in lock" in note[0], err
    with RecordingReader(src) as r:
        before = r.sample(0)
    with RecordingReader(out) as r:
        s = r.sample(0)
    # where they are names: pseudonyms, the same name the same one
    assert [row[1:4] for row in s.sessions] == [["user_1", "host_1", "schema_1"], ["user_2", "host_1", "schema_2"],
                                                ["user_2", "host_2", "schema_3"]]
    assert s.metadata_locks[0][3:5] == ["schema_1", "table_1"]
    assert s.errors["lock_waits"] == "Unknown database 'schema_1' for 'user_1'@'host_1' on table table_1"
    # the server's words read as before: the status text is what --redact alone leaves
    assert s.innodb_status is not None and before.innodb_status is not None
    assert "Old database pages" in s.innodb_status and "0 lock struct(s)" in s.innodb_status
    assert "table_1" not in s.innodb_status and "schema_" not in s.innodb_status
    assert parse_innodb_status(s.innodb_status).buffer_pool == parse_innodb_status(before.innodb_status).buffer_pool


def test_a_field_name_is_not_a_surviving_name() -> None:
    # a schema named `status`: in `innodb_status` and `global_status` it is the name of a field
    raw = _named(series(1)[0])
    names = Pseudonyms()
    redact_sample(raw, names)
    assert survivors(redact_sample(raw, names), names) == []
    # but the name itself, anywhere a name could be, is still found
    assert found_in("database status", names) == ["status"]
    assert found_in("mystatus_archive", names) == ["status"]
