"""`mysqltop parse FILE... [--format text|json]` end to end: every corpus file, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mysqltop.cli import main

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"
KINDS = {"innodb-status": "innodb_status", "innodb-mutex": "innodb_mutex", "ps-waits": "ps_waits",
         "global-status": "global_status"}
FILES = sorted(p for p in CORPUS.glob("*/*") if p.parent.name in KINDS)
NOT_KNOWN = "not a SHOW ENGINE INNODB STATUS/MUTEX, performance_schema or status output"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["parse", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_corpus_file_gives_one_json_object_of_its_kind(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "--format", "json", *map(str, FILES))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == len(FILES)
    for path, line in zip(FILES, lines):
        obj = json.loads(line)
        assert obj["kind"] == KINDS[path.parent.name], path.name
        assert obj["file"] == str(path)


def test_innodb_status_json_carries_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / "innodb-status" / "mysql-8.1.0__innotop__innodb-status-011.txt"
    code, out, _ = _run(capsys, "--format", "json", str(path))
    obj = json.loads(out)
    assert code == 0
    for key in ("truncated", "sections", "log", "transactions", "buffer_pool", "file_io", "semaphores",
                "row_operations"):
        assert key in obj, key
    # "Log sequence number          20847697" in the file
    assert obj["log"]["lsn"] == 20847697 and obj["truncated"] is False


def test_mutex_json_values(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--format", "json", str(next((CORPUS / "innodb-mutex").iterdir())))
    rows = {(r["name"], r["site"]): r for r in json.loads(out)["rows"]}
    assert code == 0
    assert rows[("rwlock", "hash0hash.cc:162")]["waits"] == 922
    assert rows[("sum rwlock", "buf0buf.cc:788")]["waits"] == 1018


def test_text_summary_per_kind(capsys: pytest.CaptureFixture[str]) -> None:
    paths = [CORPUS / "innodb-status" / "mysql-5.5__innotop__innodb-status-003.txt",
             next((CORPUS / "innodb-mutex").iterdir()),
             CORPUS / "ps-waits" / "mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv",
             CORPUS / "global-status" / "mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv"]
    code, out, err = _run(capsys, *map(str, paths))
    assert (code, err) == (0, "")
    assert out.count("\n== ") == 3 and out.startswith("== ")
    for needle in ("SHOW ENGINE INNODB STATUS", "SEMAPHORES", "TRANSACTIONS", "BUFFER POOL", "LOG ",
                   "922", "rwlock: hash0hash.cc:162",                    # mutex: summed site
                   "wait/synch/cond/mysys/COND_timer",                   # P_S: top by time
                   "Questions                            142084"):       # status: key counters
        assert needle in out, needle


def test_missing_file_directory_and_unknown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("just some notes\n")
    missing = tmp_path / "nope.txt"
    code, out, err = _run(capsys, str(missing), str(tmp_path), str(junk), str(junk / "x"))
    assert code == 2 and out == ""
    assert err.splitlines() == [f"mysqltop: {missing}: no such file or directory",
                                f"mysqltop: {tmp_path}: is a directory",
                                f"mysqltop: {junk}: {NOT_KNOWN}",
                                f"mysqltop: {junk / 'x'}: not a directory"]


def test_good_files_are_still_printed_when_one_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = next((CORPUS / "innodb-mutex").iterdir())
    code, out, err = _run(capsys, "--format", "json", str(tmp_path / "missing"), str(good))
    assert code == 2
    assert json.loads(out)["kind"] == "innodb_mutex"
    assert err == f"mysqltop: {tmp_path / 'missing'}: no such file or directory\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "secret.txt"
    f.write_text("x")
    f.chmod(0)
    code, _, err = _run(capsys, str(f))
    assert (code, err) == (2, f"mysqltop: {f}: permission denied\n")


def test_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "empty.txt"
    f.write_bytes(b"")
    assert _run(capsys, str(f)) == (2, "", f"mysqltop: {f}: {NOT_KNOWN}\n")


def test_binary_garbage_in_a_subprocess_has_no_traceback(tmp_path: Path) -> None:
    f = tmp_path / "garbage.bin"
    f.write_bytes(bytes(range(256)) * 64 + b"\xff\xfe\x00INNODB\x00")
    res = subprocess.run([sys.executable, "-m", "mysqltop", "parse", "--format", "json", str(f)],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2
    assert res.stdout == ""
    assert res.stderr == f"mysqltop: {f}: {NOT_KNOWN}\n"


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    data = b"Variable_name\tValue\nUptime\t18\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = _run(capsys, "--format", "json", "-")
    assert code == 0
    assert json.loads(out) == {"kind": "global_status", "variables": {"Uptime": "18"}, "file": "-"}


def test_utf16_file_from_powershell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "mutex-utf16.txt"
    f.write_bytes(next((CORPUS / "innodb-mutex").iterdir()).read_text().encode("utf-16"))
    code, out, _ = _run(capsys, "--format", "json", str(f))
    assert code == 0 and len(json.loads(out)["rows"]) == 7


def test_mariadb_empty_semaphores_is_explained(capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / "innodb-status" / "mariadb-10.6__datadog__innodb_status_mariadb_106.txt"
    code, out, _ = _run(capsys, str(path))
    assert code == 0
    assert "SEMAPHORES      empty (normal on MariaDB 10.6+" in out


def test_a_recording_given_to_parse_points_to_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mysqltop.recording.writer import RecordingWriter
    from tests.recording.synthetic import series

    rec = tmp_path / "db1.mtrec"
    with RecordingWriter(rec, interval=1.0) as w:
        w.append(series(1)[0])
    code, out, err = _run(capsys, str(rec))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"`mysqltop report {rec}`" in err and "not saved status output" in err
