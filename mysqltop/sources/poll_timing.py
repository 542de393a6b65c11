"""When a poll counts as late or not answering, and the thread it runs in.

Slow is late, not stale: a poll runs in its own thread and is waited for, however long it takes
(the socket read timeout is only a hard cap of minutes), so a busy server yields a late sample
(timings_ms["poll"], ["late"]) and no "Aborted connection" line in its log. Only after
`answer_timeout` (default max(5 s, 3 intervals), never below the interval) does a read return
samples with failure=timeout — one per call, carrying host counters — until the poll answers.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, TypeVar

from mysqltop.core.sample import Failure, HostSample

ANSWER_TIMEOUT_MIN_S = 5.0     # a poll is "not answering" after max(this, ANSWER_INTERVALS × interval)
ANSWER_INTERVALS = 3.0
HARD_CAP_S = 300.0             # socket read timeout: a connection silent this long is cut

R = TypeVar("R")


class Timing:
    """The poll spacing and the timeouts that follow from it (one place: set())."""

    def __init__(self, interval: float, answer_timeout: float | None, connect_timeout: float) -> None:
        self._fixed_timeout = answer_timeout
        self._connect_timeout = connect_timeout
        self.set(interval)

    def set(self, interval: float) -> None:
        self.interval = interval
        # Generous and never below the interval: a busy server is waited for, not cut.
        self.answer_timeout = max(self._fixed_timeout or max(ANSWER_TIMEOUT_MIN_S, ANSWER_INTERVALS * interval),
                                  interval)
        self.read_timeout = max(HARD_CAP_S, 10 * self.answer_timeout)
        # Short, so a refused or frozen connect costs less than an interval while retrying.
        self.retry_connect_timeout = min(self._connect_timeout, max(2.0, interval))


@dataclass
class Inflight(Generic[R]):
    """One poll running in its own thread."""

    wall: float
    mono: float
    host: HostSample | None
    done: threading.Event = field(default_factory=threading.Event)
    result: R | None = None
    exc: BaseException | None = None
    ended: float = 0.0
    overtaken: bool = False      # a waiting/timeout sample of a later moment was returned meanwhile

    @property
    def took(self) -> float:
        return self.ended - self.mono


@dataclass(frozen=True)
class NotYet:
    """A read that returns before the poll answered: what to say, with the host counters of now."""

    wall: float
    mono: float
    host: HostSample | None
    message: str
    failure: Failure


def wait_for_answer(job: Inflight[Any], called: float, timing: Timing, host_clock: bool,
                    host: Callable[[], HostSample | None]) -> NotYet | None:
    """Wait for the poll; None once it answered. With host counters on their own clock
    (host_clock), a read that has waited an interval returns this moment's host counters
    (failure=waiting, then timeout once the server counts as not answering); without, the first
    read waits up to the answer timeout, the later ones return at once."""
    limit = job.mono + timing.answer_timeout
    job.done.wait(max(0.0, (called + timing.interval if host_clock else limit) - time.monotonic()))
    now_host = None if job.done.is_set() else host()
    if now_host is None and not job.done.is_set():      # no host counters here: nothing to say yet
        job.done.wait(max(0.0, limit - time.monotonic()))
    if job.done.is_set():
        return None
    wall, mono = time.time(), time.monotonic()
    waited = mono - job.mono
    job.overtaken = True
    if waited < timing.answer_timeout:
        return NotYet(wall, mono, now_host, f"waiting for the server's answer for {waited:.1f} s (late, not cut)",
                      Failure.WAITING)
    return NotYet(wall, mono, now_host, f"no answer for {waited:.1f} s (the poll is still waiting; not cut, to "
                                        "leave the server's log clean)", Failure.TIMEOUT)


class PollThread(Generic[R]):
    """Runs polls one after another on one thread (started on first use and kept: polls never
    overlap, and a thread per poll costs more than the poll's parsing)."""

    def __init__(self) -> None:
        self._worker: threading.Thread | None = None
        self._jobs: queue.SimpleQueue[tuple[Inflight[R], Callable[[], R]] | None] = queue.SimpleQueue()

    def submit(self, job: Inflight[R], run: Callable[[], R]) -> None:
        if self._worker is None or not self._worker.is_alive():
            self._jobs = queue.SimpleQueue()
            self._worker = threading.Thread(target=self._work, args=(self._jobs,), name="mysqltop-poll",
                                            daemon=True)
            self._worker.start()
        self._jobs.put((job, run))

    @staticmethod
    def _work(jobs: "queue.SimpleQueue[tuple[Inflight[R], Callable[[], R]] | None]") -> None:
        while (item := jobs.get()) is not None:
            job, run = item
            try:
                job.result = run()
            except BaseException as e:  # noqa: BLE001 - handed to the reading thread
                job.exc = e
            finally:
                job.ended = time.monotonic()
                job.done.set()

    def close(self) -> None:
        jobs, self._jobs, self._worker = self._jobs, queue.SimpleQueue(), None
        jobs.put(None)                                # the thread ends after the poll it runs
