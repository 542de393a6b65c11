"""Which knob the advice names first, frame by frame, on two incidents injected live.

A DBA reads the first finding's first knob and acts on it, so that knob must be the one that
removes the cause in (nearly) every frame once the finding is there, not only in the first:

- flushing held to innodb_io_capacity (io_capacity 100 / max 200, a roomy 96 MB redo log, random
  updates): innodb_io_capacity, not the redo log size;
- every transaction spilling its binary log to disk (binlog_cache_size 4 KiB, 40 KB transactions,
  durable commits): binlog_cache_size, ahead of the commit path, and found within seconds.

Each frame's findings come from mysqltop's own live source and rules (core.advice.advise over
the frames so far), polled about once a second; the share of frames is counted, not the time.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any, Callable

import pytest

from mysqltop.core.advice import advise
from mysqltop.core.frame import Advice, Frame
from mysqltop.core.rules import KNOBS
from tests.support.load import LoadGenerator, LoadSpec
from tests.support.scenarios import Watcher
from tests.support.sql import connect, cursor

pytestmark = pytest.mark.live

# Frames judged after the finding first shows, and the share that must name the right knob first.
FRAMES_AFTER = 40
RIGHT_SHARE = 0.9
_KNOB = re.compile(r"\b(" + "|".join(sorted(map(re.escape, KNOBS), key=len, reverse=True)) + r")\b")


def first_knob(findings: list[Advice]) -> str | None:
    """The first server variable the first finding names (what a DBA would change first)."""
    if not findings:
        return None
    m = _KNOB.search(findings[0].message)
    return m[1] if m else None


def knobs_after(watcher: Watcher, started: Callable[[list[Advice]], bool], deadline_s: float
                ) -> tuple[float, list[str | None]]:
    """(seconds until `started` held, the first knob of each of FRAMES_AFTER frames from then)."""
    frames: list[Frame] = []
    t0 = time.monotonic()
    found_after: float | None = None
    knobs: list[str | None] = []
    while len(knobs) < FRAMES_AFTER:
        if found_after is None and time.monotonic() - t0 > deadline_s:
            ids = [a.id for a in advise(frames, watcher.variables)]
            raise AssertionError(f"no finding within {deadline_s:g} s; findings now {ids}")
        frames += watcher.poll(1)
        findings = advise(frames, watcher.variables)
        if found_after is None and started(findings):
            found_after = time.monotonic() - t0
        if found_after is not None:
            knobs.append(first_knob(findings))
    assert found_after is not None
    return found_after, knobs


def _share(knobs: list[str | None], knob: str) -> float:
    return sum(1 for k in knobs if k == knob) / len(knobs)


def test_io_capacity_held_flushing_names_io_capacity_first(mariadb_factory: Any) -> None:
    db = mariadb_factory(["--innodb-io-capacity=100", "--innodb-io-capacity-max=200",
                          "--innodb-log-file-size=96M", "--innodb-buffer-pool-size=256M"], name="order-io")
    gen = LoadGenerator(db.root_kwargs(), LoadSpec(mode="update", threads=4, rows=100_000,
                                                   transactions=10**7, duration=400))
    gen.prepare()
    watcher = Watcher(db)
    gen.start()
    try:
        after, knobs = knobs_after(watcher, lambda a: any(x.id == "checkpoint_age" for x in a), 180)
    finally:
        gen.stop()
        watcher.close()
    share = _share(knobs, "innodb_io_capacity")
    print(f"io_capacity: found after {after:.0f} s; innodb_io_capacity first in "
          f"{sum(k == 'innodb_io_capacity' for k in knobs)}/{len(knobs)} frames ({share:.0%}); {knobs}")
    assert share >= RIGHT_SHARE, knobs


SPILL_DB = "mysqltop_spill"
SPILL_THREADS = 4
SPILL_ROW = 40_000          # bytes of row events per transaction: ten times a 4 KiB cache


def _spill(kw: dict, stop: threading.Event, errors: list[BaseException]) -> None:
    """Back-to-back 40 KB transactions on one connection: each one outgrows the binlog cache."""
    try:
        conn = connect(kw, autocommit=False)
        with conn.cursor() as c:
            while not stop.is_set():
                c.execute(f"INSERT INTO {SPILL_DB}.rows_ (b) VALUES (REPEAT('x', {SPILL_ROW}))")
                conn.commit()
        conn.close()
    except BaseException as e:  # noqa: BLE001 - reported by the test
        errors.append(e)


def test_every_transaction_spilling_the_binlog_cache_names_its_size_first(mariadb_factory: Any) -> None:
    db = mariadb_factory(["--log-bin=binlog", "--server-id=1", "--binlog-format=ROW", "--sync-binlog=1",
                          "--binlog-cache-size=4096", "--innodb-flush-log-at-trx-commit=1"], name="order-binlog")
    kw = db.root_kwargs()
    with cursor(kw) as c:
        c.execute(f"CREATE DATABASE {SPILL_DB}")
        c.execute(f"CREATE TABLE {SPILL_DB}.rows_ (id INT AUTO_INCREMENT PRIMARY KEY, b LONGBLOB)")
    watcher = Watcher(db)
    watcher.poll(1)
    stop, errors = threading.Event(), []
    threads = [threading.Thread(target=_spill, args=(kw, stop, errors), daemon=True) for _ in range(SPILL_THREADS)]
    for t in threads:
        t.start()
    try:
        after, knobs = knobs_after(watcher, lambda a: any(x.id == "binlog_cache_disk" for x in a), 60)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)
        watcher.close()
    assert not errors, errors
    share = _share(knobs, "binlog_cache_size")
    print(f"binlog spill: found after {after:.0f} s; binlog_cache_size first in "
          f"{sum(k == 'binlog_cache_size' for k in knobs)}/{len(knobs)} frames ({share:.0%}); {knobs}")
    assert after <= 15, after
    assert share >= RIGHT_SHARE, knobs
