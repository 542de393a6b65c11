"""Flushing held to innodb_io_capacity is named as such, and a small redo log still as redo.

Two throwaway MariaDB servers under the same random-update load: io_capacity 100 / max 200 with
a normal 96 MB redo log (the held-out run that was told to grow the redo log), then the default
capacity with an 8 MB redo log. Each is polled with mysqltop's own live source until the
checkpoint finding appears (a condition, not a time).
"""

from __future__ import annotations

import time

import pytest

from mysqltop.core.advice import advise
from mysqltop.core.frame import Advice, Frame
from tests.support.load import LoadGenerator, LoadSpec
from tests.support.scenarios import Watcher

pytestmark = pytest.mark.live

POOL = "--innodb-buffer-pool-size=256M"      # dirty pages fit: the redo log, not the LRU, drives flushing
FLUSHING = ("checkpoint_age", "pending_aio_writes")


def _first_flushing(db, deadline_s: float = 150.0) -> Advice:
    gen = LoadGenerator(db.root_kwargs(), LoadSpec(mode="update", threads=4, rows=100_000, transactions=10**7,
                                                   duration=deadline_s + 30))
    gen.prepare()
    watcher = Watcher(db)
    gen.start()
    frames: list[Frame] = []
    try:
        deadline = time.monotonic() + deadline_s
        while time.monotonic() < deadline:
            frames += watcher.poll(1)
            found = [a for a in advise(frames, watcher.variables) if a.id in FLUSHING]
            if found:
                return found[0]
        ages = [round(f.flush.checkpoint_age_pct or 0) for f in frames[-20:]]
        raise AssertionError(f"no flushing finding; checkpoint age % {ages}")
    finally:
        gen.stop()
        watcher.close()


def test_capped_io_capacity_is_named_before_the_redo_log(mariadb_factory) -> None:
    db = mariadb_factory(["--innodb-io-capacity=100", "--innodb-io-capacity-max=200",
                          "--innodb-log-file-size=96M", POOL], name="iocap")
    a = _first_flushing(db)
    assert a.message.startswith("Flushing is held to the configured IO capacity: innodb_io_capacity = 100"), a
    assert "innodb_io_capacity_max = 200" in a.message and "innodb_log_file_size" not in a.message


def test_a_small_redo_log_still_says_redo(mariadb_factory) -> None:
    db = mariadb_factory(["--innodb-log-file-size=8M", POOL], name="redo")
    a = _first_flushing(db)
    assert a.message.startswith("Checkpoint age near its maximum: the redo log is too small"), a
    assert "innodb_log_file_size = 8 MiB" in a.message
