"""`snapshot --replay` of a recording whose samples show new deadlocks: each frame's DEADLOCK
line, then the deadlocks of those frames grouped by pattern; JSON carries the whole story."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.core.sample import RawSample, ServerIdentity
from mysqltop.recording.writer import RecordingWriter
from tests.core.test_deadlock_book import GAP, TWO_ROW, again

EVIL = "\x1b]0;owned\x07"


def record(path: Path) -> None:
    texts = [TWO_ROW, TWO_ROW, again(TWO_ROW, 1), again(TWO_ROW, 2).replace("SET balance=balance+10 WHERE id=1", f"SET `b{EVIL}`=1 WHERE id=1"),
             GAP, GAP]
    w = RecordingWriter(path, interval=1.0)
    try:
        for i, text in enumerate(texts):
            w.append(RawSample(wall=1_800_000_000.0 + i, mono=100.0 + i,
                               server=ServerIdentity("10.11.19-MariaDB", "mariadb", "db1:3306"), innodb_status=text,
                               global_status={"Innodb_deadlocks": str(5 + i), "Uptime": str(100 + i)}))
    finally:
        w.close()


def test_text_tells_each_frame_and_the_patterns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dl.mtrec"
    record(path)
    assert main(["snapshot", "--replay", str(path), "--count", "10"]) == 0
    out = capsys.readouterr().out
    assert out.count("DEADLOCK    latest deadlock ") == 5
    assert "DEADLOCKS over these frames, by pattern: 3 captured of 4 the server counted" in out
    assert "victim (1) thread 7: UPDATE shop.accounts SET `b\\x1b]0;owned\\x07`=? WHERE id=?" in out
    assert "  1. 1× " in out and "UTC: 2 trx on shop.accounts (PRIMARY): X record ⇄ X record" in out
    assert "  3. 1× " in out and "fix: gap / next-key locks are involved" in out
    assert "\x1b" not in out and "\x07" not in out and "\\x1b]0;owned\\x07" in out


def test_json_frames_carry_the_deadlock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dl.mtrec"
    record(path)
    assert main(["snapshot", "--replay", str(path), "--count", "10", "--format", "json"]) == 0
    frames = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    last = frames[-1]["deadlock"]
    assert (last["time"], last["victim"], [t["thread_id"] for t in last["transactions"]]) == (
        "2026-11-28 01:35:49", 1, [7, 6])
    assert last["transactions"][0]["waits_for"][0]["kind"] == "insert-intention"


def test_parse_tells_the_deadlock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "status.txt"
    f.write_text(GAP.replace("VALUES (26)", f"VALUES (26) /* {EVIL} */"))
    assert main(["parse", str(f)]) == 0
    out = capsys.readouterr().out
    assert "LATEST DEADLOCK at 2026-11-28 01:35:49: 2 transactions, rolled back (1)" in out
    assert "(1) thread 7 root@127.0.0.1: INSERT INTO shop.orders (customer) VALUES (26) /* \\x1b]0;owned\\x07 */" in out
    assert "        waits X insert-intention shop.orders idx_customer" in out
    assert "\x1b" not in out and "\x07" not in out
