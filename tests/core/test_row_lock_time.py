"""Row-lock wait time: each waited second counted once, never above what is possible.

Histories are generated: sessions wait on row locks (long waits ending between two polls, waits
that time out and retry in the same transaction, waits begun and ended between polls), polled at
irregular intervals, with the server's counters as InnoDB keeps them (a wait's time added whole
when it ends, the wait counted when it starts) and lock-table ages in whole seconds; sometimes
the counters reset (FLUSH STATUS, restart) or the lock tables are not read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from mysqltop.core.row_lock_time import RowLockSide, could_wait, wait_ms_per_s


@dataclass(frozen=True)
class Wait:
    session: int
    trx: str
    start: float
    end: float


def side_at(waits: list[Wait], t: float, sessions: int, reset_at: float | None = None,
            tables: bool = True) -> RowLockSide:
    """The server's view at time t: counters since the last reset, lock-table ages floored."""
    since = reset_at if reset_at is not None and reset_at <= t else -math.inf
    ended = [w for w in waits if since < w.end <= t]
    begun = [w for w in waits if since < w.start <= t]
    now = [w for w in waits if w.start <= t < w.end]
    ages = {w.trx: float(math.floor(t - w.start)) for w in now}
    return RowLockSide(time_ms=int(sum((w.end - w.start) * 1000 for w in ended)), started=len(begun),
                       current=len(now), waits=ages if tables else None, sessions=sessions + 1)


def overlap(w: Wait, a: float, b: float) -> float:
    return max(0.0, min(w.end, b) - max(w.start, a))


# Poll intervals: 1 s mostly, sub-second, odd fractions (a late poll) and slow ones.
POLL_STEPS_S = (1.0, 1.0, 1.0, 0.25, 0.5, 1.3, 2.7, 5.0, 10.0)


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Wait], list[float], int]:
    sessions = draw(st.integers(1, 20))
    waits: list[Wait] = []
    for s in range(sessions):
        t = draw(st.floats(0.0, 30.0))
        trx = 0
        for _ in range(draw(st.integers(0, 3))):
            length = draw(st.one_of(st.floats(0.05, 3.0), st.floats(3.0, 100.0)))
            waits.append(Wait(s, f"{s}.{trx}", t, t + length))
            # a timed-out wait retried at once in the same transaction, or a new transaction later
            if draw(st.booleans()):
                trx += 1
                t += length + draw(st.floats(0.01, 20.0))
            else:
                t += length + draw(st.floats(0.0, 0.01))
    steps = draw(st.lists(st.sampled_from(POLL_STEPS_S), min_size=2, max_size=80))
    polls = [0.0]
    for step in steps:
        polls.append(polls[-1] + step)
    return waits, polls, sessions


@settings(max_examples=150, deadline=None)
@given(histories(), st.one_of(st.none(), st.floats(0.0, 100.0)), st.lists(st.booleans(), min_size=1))
def test_no_interval_waits_more_than_its_sessions_could(h: tuple[list[Wait], list[float], int],
                                                         reset_at: float | None, tables: list[bool]) -> None:
    """Whatever the history — a counter reset, lock tables read on some polls only — no interval
    waits longer than its sessions could."""
    waits, polls, sessions = h
    read = [tables[i % len(tables)] for i in range(len(polls))]
    for i, (a, b) in enumerate(zip(polls, polls[1:])):
        prev = side_at(waits, a, sessions, reset_at, read[i])
        cur = side_at(waits, b, sessions, reset_at, read[i + 1])
        got = wait_ms_per_s(prev, cur, b - a)
        assert got is None or got >= 0.0
        if got is None:
            continue
        assert got <= 1000.0 * sessions + 1e-6                     # no more than every session, all the time
        running = {w.trx + str(w.start) for w in waits if w.start <= b and w.end > a}
        assert got <= 1000.0 * len(running) + 1e-6                 # nor more than the waits that ran


@settings(max_examples=150, deadline=None)
@given(histories())
def test_every_waited_second_is_counted_once(h: tuple[list[Wait], list[float], int]) -> None:
    """Σ ms/s × Δt over the polls is the blocked session-seconds that lay between the first and
    the last poll, within the lock tables' whole-second ages (a second per wait either way)."""
    waits, polls, sessions = h
    counted = 0.0
    for a, b in zip(polls, polls[1:]):
        got = wait_ms_per_s(side_at(waits, a, sessions), side_at(waits, b, sessions), b - a)
        assert got is not None
        counted += got * (b - a) / 1000.0
    truth = sum(overlap(w, polls[0], polls[-1]) for w in waits)
    seen = [w for w in waits if overlap(w, polls[0], polls[-1]) > 0]
    assert abs(counted - truth) <= 1.0 * len(seen) + 1e-6


def test_a_long_stall_ending_in_one_poll_is_not_counted_twice() -> None:
    """16 sessions blocked 147 s behind an idle transaction, polled every second: the stall reads
    16,000 ms/s while it lasts, and the counter's jump at its end adds only the last second."""
    waits = [Wait(s, str(s), 10.0, 157.0) for s in range(16)]
    polls = [float(t) for t in range(0, 170)]
    rates = [wait_ms_per_s(side_at(waits, a, 17), side_at(waits, b, 17), b - a)
             for a, b in zip(polls, polls[1:])]
    assert max(r or 0.0 for r in rates) <= 16_000.0
    total = sum((r or 0.0) for r in rates) / 1000.0
    assert abs(total - 16 * 147) <= 16 * 1.0
    assert rates[100] == 16_000.0                                   # mid-stall: all sixteen, each second once


def test_counter_reset_counts_only_the_waits_in_progress() -> None:
    waits = [Wait(0, "a", 0.0, 50.0), Wait(1, "b", 5.0, 8.0)]
    prev = side_at(waits, 20.0, 2)
    cur = side_at(waits, 21.0, 2, reset_at=20.5)                    # FLUSH STATUS between the polls
    assert cur.time_ms == 0 and wait_ms_per_s(prev, cur, 1.0) == 1000.0


def test_without_lock_tables_the_bound_trims_the_counter_jump() -> None:
    """Which waits ended is unknown without the lock tables: the counter's whole jump is capped
    at Δt per wait that could have run (those waiting before plus those begun since)."""
    waits = [Wait(s, str(s), 0.0, 100.5) for s in range(8)]
    prev, cur = side_at(waits, 100.0, 8, tables=False), side_at(waits, 101.0, 8, tables=False)
    assert could_wait(prev, cur) == 8
    assert wait_ms_per_s(prev, cur, 1.0) == 8000.0


def test_a_wait_retried_after_a_timeout_is_a_new_wait() -> None:
    waits = [Wait(0, "t", 0.0, 50.0), Wait(0, "t", 50.0, 120.0)]    # same transaction, waits again at once
    prev, cur = side_at(waits, 49.5, 1), side_at(waits, 50.5, 1)
    # 0.5 s of the first wait and 0.5 s of the second lay in the interval
    assert abs((wait_ms_per_s(prev, cur, 1.0) or 0.0) - 500.0) <= 500.0
    assert (wait_ms_per_s(prev, cur, 1.0) or 0.0) <= 1000.0


def test_first_sample_and_bad_intervals_have_no_rate() -> None:
    cur = RowLockSide(time_ms=10, started=1, current=0, waits={})
    assert wait_ms_per_s(None, cur, 1.0) is None
    assert wait_ms_per_s(cur, cur, 0.0) is None and wait_ms_per_s(cur, cur, -1.0) is None
    assert wait_ms_per_s(cur, cur, float("nan")) is None


def test_a_reset_seen_only_on_the_wait_count_drops_the_time_counter() -> None:
    """FLUSH STATUS while the time counter was still 0: it rises after the reset by a wait that
    began before it; the wait count went back, so the counter's rise is not this interval's."""
    waits = [Wait(0, "a", 0.0, 11.0)]
    prev = side_at(waits, 1.0, 2, tables=False)
    cur = side_at(waits, 11.0, 2, reset_at=2.0, tables=False)
    assert (prev.time_ms, cur.time_ms, prev.started, cur.started) == (0, 11_000, 1, 0)
    assert (wait_ms_per_s(prev, cur, 10.0) or 0.0) <= 1000.0
