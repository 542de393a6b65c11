"""The poll stays bounded as the server's state grows (bench/extremes has the full sizes): the rows
kept are chosen and the rest counted, so doubling the sessions, the open transactions or the
sessions waiting on one row leaves what is read and kept the same — only the InnoDB status text
grows, up to the server's own 1 MiB cap."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from mysqltop.sources import lock_reads as locks_src
from mysqltop.sources.mysql import MySQLSource
from tests.support.extreme_states import ExtremeState
from tests.support.mariadb import ThrowawayMariaDB
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live


def _poll(db: ThrowawayMariaDB, ready: Callable[[Any], bool]) -> tuple[Any, int]:
    """A sample once `ready(sample)`, and the bytes its poll received without the status text."""
    src = MySQLSource(db.options(), interval=1.0, answer_timeout=10.0)
    src.open()
    try:
        src.read()                                     # the variables' first read is not measured
        got: list[Any] = []
        wait_until(lambda: ready(s := src.read()) and got.append(s) is None, timeout=60)
        sample = got[-1]
        return sample, src.stats.bytes_received - len((sample.innodb_status or "").encode())
    finally:
        src.close()


def _sleeping(sample: Any) -> int:
    return sum(int(r[2]) for r in sample.session_states or [] if r[0] == "Sleep")


def test_doubling_the_sessions_transactions_and_waiters_keeps_the_poll_the_same(
        mariadb_factory: Callable[..., ThrowawayMariaDB]) -> None:
    db = mariadb_factory(["--max-connections=600", "--innodb-lock-wait-timeout=600"], name="bounds")
    seen: dict[int, tuple[Any, int]] = {}
    for n in (24, 48):
        with ExtremeState(db.port) as state:
            state.sessions(n)
            state.open_transactions(n)
            state.lock_flood(n // 4)
            # every transaction ACTIVE >= 2 s (the second round trip reads them) and the waiters queued
            seen[n] = _poll(db, lambda s, n=n: _sleeping(s) >= 2 * n and len(s.transactions or []) > 0
                            and any(r[9] == "LOCK WAIT" for r in s.lock_sessions or [])
                            and all((r[5] or 0) >= 2 for r in s.transactions or []))
    (small, small_bytes), (big, big_bytes) = seen[24], seen[48]
    # counted, not kept: the idle sessions are a number, the transactions and sessions rows capped
    assert _sleeping(big) >= _sleeping(small) + 48
    assert len(small.transactions) == len(big.transactions) == locks_src.MAX_TRANSACTIONS
    assert len(big.lock_sessions or []) <= locks_src.MAX_LOCK_SESSIONS
    assert len(big.lock_waits or []) <= locks_src.MAX_LOCK_WAITS
    # what came over the wire besides the status text: bounded by the rows read (LIMITed, text cut
    # on the server), not by the sessions: here the lock rows' growth (6 → 12 waiters) and no more
    assert big_bytes < small_bytes + 64 * 1024, (small_bytes, big_bytes)
    assert big_bytes < 512 * 1024
