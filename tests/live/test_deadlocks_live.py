"""Deadlocks made on the throwaway MariaDB, polled and recorded as a live session would: every one
captured with its statements and victim, grouped into one pattern with the count the server gives
(Innodb_deadlocks), named by the finding, and told by `report` from the recording."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mysqltop.core.deadlocks import DeadlockBook
from mysqltop.core.frame import Frame
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.recording.writer import RecordingWriter
from mysqltop.sources.mysql import MySQLSource
from tests.support.deadlocks import TABLE, make_deadlocks
from tests.support.mariadb import ThrowawayMariaDB

pytestmark = pytest.mark.live

ROUNDS = 3
SHAPE = f"UPDATE {TABLE} SET v=v+? WHERE id=?"


def test_repeated_deadlocks_are_captured_grouped_found_and_reported(mariadb: ThrowawayMariaDB, tmp_path) -> None:
    path = tmp_path / "deadlocks.mtrec"
    src = MySQLSource(mariadb.options(), interval=1.0)
    src.open()
    writer = RecordingWriter(path, interval=1.0)
    pipe = PolledTimeline()
    frames: list[Frame] = []

    def poll() -> None:
        raw = src.read()
        writer.append(raw)
        frames.append(pipe.push(raw))

    try:
        poll()
        poll()              # the rules judge frames with rates: the first of them is their baseline
        for _ in range(ROUNDS):
            assert make_deadlocks(mariadb.root_kwargs(), 1) == 1
            poll()
        poll()
    finally:
        writer.close()
        src.close()
    book = DeadlockBook.of(frames)
    assert book.captured == ROUNDS and book.counted == ROUNDS
    [pattern] = book.ranked()
    assert pattern.count == ROUNDS and pattern.tables == [TABLE] and pattern.indexes == [f"{TABLE}.PRIMARY"]
    new = [s for s in book.seen if not s.prior]
    assert len(new) == ROUNDS
    for s in new:
        d = s.deadlock
        assert not d.truncated and len(d.transactions) == 2 and d.victim in (1, 2)
        statements = sorted(t.statement or "" for t in d.transactions)
        assert statements == [f"UPDATE {TABLE} SET v=v+1 WHERE id=1", f"UPDATE {TABLE} SET v=v+1 WHERE id=2"]
        assert len({t.thread_id for t in d.transactions}) == 2
        for t in d.transactions:
            assert [(lk.kind, lk.mode) for lk in t.waits_for] == [("record", "X")]
            assert t.holds and all(lk.table == TABLE for lk in t.holds)
    found = {a.id: a for a in frames[-1].advice}
    assert "deadlocks_recur" in found
    assert SHAPE in found["deadlocks_recur"].message or TABLE in found["deadlocks_recur"].message
    assert f"{ROUNDS} deadlocks of this pattern" in found["deadlocks_recur"].evidence

    out = subprocess.run([sys.executable, "-m", "mysqltop", "report", str(path)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "DEADLOCKS (GROUPED BY PATTERN" in out.stdout
    assert f"{ROUNDS} captured of {ROUNDS} the server counted" in out.stdout
    assert f"1. {ROUNDS}× " in out.stdout and SHAPE in out.stdout and "\x1b" not in out.stdout
    js = subprocess.run([sys.executable, "-m", "mysqltop", "report", "--format", "json", str(path)],
                        capture_output=True, text=True, timeout=120)
    assert js.returncode == 0, js.stderr
    dl = json.loads(js.stdout)["deadlocks"]
    assert (dl["captured"], dl["counted"], [p["count"] for p in dl["patterns"]]) == (ROUNDS, ROUNDS, [ROUNDS])
    assert dl["patterns"][0]["tables"] == [TABLE] and dl["patterns"][0]["first"].endswith("Z")
