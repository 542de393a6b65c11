"""Row-lock wait time of one interval, each waited second counted once.

InnoDB adds a row-lock wait to `Innodb_row_lock_time` (ms) only when the wait ends, and adds it
whole (MariaDB `lock_sys.wait_resume`, MySQL `lock_wait_suspend_thread`); `Innodb_row_lock_waits`
counts a wait when it starts. The lock tables show each wait in progress with its age. One
account of both: the interval's waiting is

    the waits in progress now, each for min(its age, Δt)
  + what the counter added for the waits that ended in the interval,
    less the part of them that lay before the previous sample (their age then)

because that earlier part was already counted, as waits in progress, by earlier intervals. A wait
that began and ended between two samples is in the counter alone. The result is bounded by what
is physically possible: Δt per wait that could have run in the interval (those waiting at the
previous sample plus those begun since) and Δt per connected session.
"""

from __future__ import annotations

from dataclasses import dataclass

from mysqltop.core.counters import delta, valid_dt

# Lock-table ages are whole seconds, read a moment apart: the same wait seen Δt later is at least
# Δt − 1 s older (floor), less the spread of the two polls' moments. A transaction's wait that
# aged less is a new wait (a retry after innodb_lock_wait_timeout): the earlier one ended.
AGE_ROUNDING_S = 1.0
POLL_SPREAD_S = 0.5


@dataclass(frozen=True)
class RowLockSide:
    """What one sample knows about row-lock waits (None: not read)."""

    time_ms: int | None = None                 # Innodb_row_lock_time: finished waits, whole
    started: int | None = None                 # Innodb_row_lock_waits: waits begun
    current: int | None = None                 # Innodb_row_lock_current_waits
    waits: dict[str, float] | None = None      # lock tables: waiting transaction → age, s
    longest_s: float | None = None             # the longest wait now, where no per-wait ages exist
    sessions: int | None = None                # Threads_connected (the monitor's own included)

    def ages(self) -> dict[str, float] | None:
        """Per-wait ages; {} when the server says nobody waits; None when unknown."""
        if self.waits is not None:
            return self.waits
        return {} if self.current == 0 else None


def in_progress_s(cur: RowLockSide, dt: float) -> float:
    """Seconds of this interval the waits in progress now spent waiting."""
    ages = cur.ages()
    if ages is not None:
        return sum(min(max(a, 0.0), dt) for a in ages.values())
    if cur.current and cur.longest_s:
        return cur.current * min(cur.longest_s, dt)      # no per-wait ages: an upper bound
    return 0.0


def ended_before_s(prev: RowLockSide, cur: RowLockSide, dt: float) -> float | None:
    """The part before the previous sample of the waits that ended in the interval: their age
    then. None when either sample's waits are unknown."""
    before, now = prev.ages(), cur.ages()
    if before is None or now is None:
        return None
    total = 0.0
    for trx, age in before.items():
        later = now.get(trx)
        if later is None or later < age + dt - AGE_ROUNDING_S - POLL_SPREAD_S:
            total += max(age, 0.0)
    return total


def could_wait(prev: RowLockSide, cur: RowLockSide) -> int | None:
    """Most waits that could have run at once in the interval (None: no bound known)."""
    bounds = []
    was = prev.current if prev.current is not None else (len(prev.waits) if prev.waits is not None else None)
    begun = delta(prev.started, cur.started)
    if was is not None and begun is not None:
        bounds.append(int(was + begun))
    connected = [s for s in (prev.sessions, cur.sessions) if s is not None]
    if connected:
        bounds.append(max(0, max(connected) - 1))       # the monitor's own session never waits on a row
    return min(bounds) if bounds else None


def wait_ms_per_s(prev: RowLockSide | None, cur: RowLockSide, dt: float | None) -> float | None:
    """ms waited on row locks per second of the interval, each second once; None on the first
    sample, Δt ≤ 0, or when nothing is known (no counter, no lock tables)."""
    if prev is None or dt is None or not valid_dt(dt):
        return None
    progress_ms = in_progress_s(cur, dt) * 1000.0
    # FLUSH STATUS resets both counters: the time counter may still have risen (it was at 0), the
    # wait count shows the reset
    reset = prev.started is not None and cur.started is not None and cur.started < prev.started
    finished = None if reset else delta(prev.time_ms, cur.time_ms)      # None: missing or reset
    if finished is None:
        total = progress_ms if (cur.waits is not None or cur.current) else None
    else:
        before = ended_before_s(prev, cur, dt)
        if before is None:
            # which waits ended is unknown: the larger account, the bound trims the overlap
            total = max(progress_ms, float(finished))
        else:
            total = progress_ms + max(0.0, finished - before * 1000.0)
    if total is None:
        return None
    bound = could_wait(prev, cur)
    if bound is not None:
        total = min(total, bound * dt * 1000.0)
    return total / dt
