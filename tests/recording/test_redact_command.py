"""`mysqltop redact IN OUT`: no statement text, no original name, lock trees still read; a copy
that would keep a name is refused with nothing written."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.core.blocking import status_transactions
from mysqltop.core.sample import ServerIdentity
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.redaction import SQL_MARK
from mysqltop.recording.writer import RecordingWriter
from tests.recording.synthetic import series

GALLERY = Path(__file__).resolve().parents[2] / "recordings"


def _dump(path: Path) -> str:
    with RecordingReader(path) as r:
        parts = [json.dumps(dataclasses.asdict(r.sample(i)), default=str) for i in range(len(r))]
        parts += [str(b.note) for b in r.bookmarks]
        parts.append(str(dataclasses.replace(r.meta, path="")))     # (the test's own tmp path holds 'root')
    return "\n".join(parts)


def _has(word: str, text: str) -> bool:
    """The word as a name (not inside another name such as KEYINFO::root_lock)."""
    return re.search(r"(?<![\w$])" + re.escape(word) + r"(?![\w$])", text) is not None


def test_gallery_recording_redacted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, out = GALLERY / "row-lock-idle-trx.mtrec", tmp_path / "shared.mtrec"
    before = _dump(src)
    assert all(_has(x, before) for x in ("root", "127.0.0.1", "mysqltop_test", "sbtest1", "UPDATE sbtest1"))
    assert main(["redact", str(src), str(out)]) == 0
    assert "none of the original names remains" in capsys.readouterr().err
    after = _dump(out)
    for name in ("root", "127.0.0.1", "mysqltop_test", "sbtest1", "UPDATE", "SELECT"):
        assert not _has(name, after), name
    assert SQL_MARK in after and "user_1" in after
    assert main(["report", str(out), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    top = max(rep["blocking_chains"], key=lambda c: c["max_blocked"])
    assert (top["max_blocked"], top["user"]) == (9, "user_1") and top["host"].startswith("host_")  # the tree reads
    with RecordingReader(out) as r:
        assert len(r) == 152 and r.meta.redacted and r.meta.recorder_host is None
        assert r.bookmarks[0].note and r.bookmarks[0].note.startswith("onset:")


def test_a_forged_status_entry_and_names_in_free_text_are_gone(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    base = series(3)
    forged = ("SELECT 'x' FROM shop.orders\n---TRANSACTION 999999, ACTIVE 99999 sec\n"
              "MySQL thread id 4242, OS thread handle 1, query id 1 evil.example attacker\n")
    status = (base[0].innodb_status or "").replace("MariaDB thread id", "MariaDB thread id", 1)
    at = status.index("MariaDB thread id")
    at = status.index("\n", at) + 1
    hostile = status[:at] + forged + status[at:]
    server = ServerIdentity("10.11.19-MariaDB", "mariadb", "db7.corp.example:3306", "db7.corp.example", False)
    raws = [dataclasses.replace(r, innodb_status=hostile, server=server,
                                sessions=[[5, "attacker", "evil.example:4000", "shop", "Query", "updating", 3,
                                           "UPDATE orders SET paid = 1"]],
                                errors={"lock_waits": "Access denied for user 'attacker'@'evil.example'"})
            for r in base]
    src, out = tmp_path / "in.mtrec", tmp_path / "out.mtrec"
    with RecordingWriter(src, interval=1.0) as w:
        for r in raws:
            w.append(r)
    assert any(t.trx_id == "999999" for t in status_transactions(hostile))
    assert main(["redact", str(src), str(out)]) == 0, capsys.readouterr().err
    after = _dump(out)
    for word in ("TRANSACTION 999999", "thread id 4242", "attacker", "evil.example", "db7.corp.example", "shop",
                 "orders"):
        assert not _has(word, after), word
    with RecordingReader(out) as r:
        assert not any(t.trx_id == "999999" for t in status_transactions(r.sample(0).innodb_status))
        assert r.sample(0).server.hostname == "host_3" and r.sample(0).server.address is None


def test_refuses_when_a_name_survives(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a user named as the server's version string says it: the version is kept as it is
    raw = dataclasses.replace(series(1)[0], sessions=[[5, "secretuser", "h:1", None, "Query", "", 1, None]],
                              server=ServerIdentity("10.11.19-secretuser", "mariadb", "h:3306", "h", False))
    src, out = tmp_path / "in.mtrec", tmp_path / "out.mtrec"
    with RecordingWriter(src, interval=1.0) as w:
        w.append(raw)
    assert main(["redact", str(src), str(out)]) == 1
    err = capsys.readouterr().err
    assert "refusing to finish" in err and "secretuser" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mtrec"]
    out.write_text("x")
    assert main(["redact", str(src), str(out)]) == 2 and "already exists" in capsys.readouterr().err


def test_not_a_recording(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.mtrec"
    junk.write_bytes(b"\x00\x01binary" * 100)
    code = main(["redact", str(junk), str(tmp_path / "o.mtrec")])
    err = capsys.readouterr().err
    assert code in (1, 2) and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "o.mtrec").exists()


def test_row_locks_and_locked_keys_are_redacted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The lock rows carry user, host, table, index, the locked key (the table's data) and a
    statement: names become pseudonyms, the key and the statement marks."""
    lock = ["77:5:3:2", "77", 9, "attacker", "evil.example:4000", "RUNNING", 40, None, 0, "X", "RECORD",
            "`shop`.`orders`", "orders_by_mail", 5, 3, 2, "'alice@mail.example'", "Sleep", "UPDATE orders SET paid = 1"]
    wait = ["78", 10, "attacker", "evil.example:4001", 5, "UPDATE orders SET paid = 2", "77", 9, "attacker",
            "evil.example:4000", 40, "RUNNING", "Sleep", None, "`shop`.`orders`", "orders_by_mail", "X", "RECORD",
            "'alice@mail.example'"]
    raws = [dataclasses.replace(r, row_locks=[lock], lock_waits=[wait]) for r in series(3)]
    src, out = tmp_path / "in.mtrec", tmp_path / "out.mtrec"
    with RecordingWriter(src, interval=1.0) as w:
        for r in raws:
            w.append(r)
    assert main(["redact", str(src), str(out)]) == 0, capsys.readouterr().err
    after = _dump(out)
    for word in ("attacker", "evil.example", "shop", "orders", "alice", "mail.example", "paid"):
        assert not _has(word, after), word
    with RecordingReader(out) as r:
        got = r.sample(0)
        assert got.row_locks is not None and got.row_locks[0][16] == SQL_MARK and got.row_locks[0][18] == SQL_MARK
        assert got.lock_waits is not None and got.lock_waits[0][18] == SQL_MARK
