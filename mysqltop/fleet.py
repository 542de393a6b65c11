"""FleetPoller: one engine thread per server, the newest frame of each kept for the views.

Each server has its own Engine (source → timeline → optional recorder) running its own paced
loop on its own daemon thread, so a server whose poll hangs delays only its own row: the others
keep their one poll per interval. Views (the fleet overview, the Prometheus collector) read
`states()` whenever they like; it copies under a lock and never waits on a poll.

One concept over its layers: sources/fleet_sources.py opens the members, fleet.py polls them,
core/fleet_rank.py ranks a frame, views/fleet_rows.py makes the rows, views/tui/fleet_app.py shows them.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from mysqltop.core import wait_load
from mysqltop.core.advice import HORIZON_S
from mysqltop.core.fleet_rank import LatchTotal, hottest_latch, latch_totals, worst_finding
from mysqltop.core.frame import Advice, Frame
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.timeline.thin_tail import ThinTail
from mysqltop.engine import Engine
from mysqltop.sources.fleet_sources import Member, recording_file_name

TREND = 120                 # frames kept per server for the drill-down charts
# The rules judge each server's last minute again this often (sample time), not every poll: a
# finding needs tens of seconds of sustained evidence, and judging is a third of a poll's CPU.
ADVICE_EVERY_S = 5.0
LATE_AFTER = 1.5            # intervals without a frame before a server counts as late


@dataclass(frozen=True)
class ServerState:
    """A copy of what the fleet knows about one server at one moment."""

    name: str
    frame: Frame | None = None            # newest frame (may be stale)
    good: Frame | None = None             # newest fresh frame
    arrived: float | None = None          # monotonic time of the newest frame
    good_at: float | None = None          # … of the newest fresh frame
    started: float = 0.0                  # monotonic time the poller started
    polls: int = 0
    stale: int = 0                        # polls that gave no fresh data
    late: int = 0                         # frames that came more than LATE_AFTER intervals apart
    poll_s: float | None = None           # wall time of the last poll (read from the server)
    open_error: str | None = None         # why the first connect failed
    recording: str | None = None          # file this server is recorded to
    recording_error: str | None = None
    trend: tuple[Frame, ...] = ()
    # hottest latch and worst finding of `summary_of` (the newest fresh frame), worked out once
    # per frame on the poll thread: the views read them several times a second
    summary_of: Frame | None = None
    latches: tuple[LatchTotal, ...] = ()      # merged by name and source, hottest first
    hottest: LatchTotal | None = None
    worst: Advice | None = None
    queries: int = 0                      # client statements (without mysqltop's own) since the start
    row_lock_blocked_s: float = 0.0       # blocked session-seconds on row locks since the start
    session_seconds: tuple[float, ...] = ()   # per wait class (core.frame.WAIT_CLASSES) since the start

    def down_for(self, now: float) -> float | None:
        """Seconds since the server last gave fresh data (since the start when it never did);
        None while its newest frame is fresh or before any poll result came."""
        if self.frame is None and self.open_error is None:
            return None
        if self.frame is not None and not self.frame.stale:
            return None
        return now - (self.good_at if self.good_at is not None else self.started)

    def silent_for(self, now: float) -> float:
        """Seconds since the newest frame arrived (since the start when none did)."""
        return now - (self.arrived if self.arrived is not None else self.started)


@dataclass
class _Slot:
    member: Member
    engine: Engine
    state: ServerState
    trend: deque[Frame] = field(default_factory=lambda: deque(maxlen=TREND))
    thread: threading.Thread | None = None
    stop: threading.Event = field(default_factory=threading.Event)


def fleet_record_dir(path: str) -> str:
    """--record in a fleet names a directory (made when its parent exists): one file per server."""
    import os

    from mysqltop.errors import UserError

    d = Path(path).expanduser()
    if d.exists() and not d.is_dir():
        raise UserError(f"--record {path}: with several servers --record names a directory "
                        "(one file per server), and this is a file")
    if not d.exists():
        if not d.parent.is_dir():
            raise UserError(f"--record {path}: directory {d.parent} does not exist")
        try:
            d.mkdir()
        except OSError as exc:
            raise UserError(f"--record {path}: cannot create it: {exc.strerror or exc}") from None
    if not os.access(d, os.W_OK):
        raise UserError(f"--record {path}: directory is not writable")
    return str(d)


def _client_statements(frame: Frame) -> int:
    """Client statements behind a fresh frame's qps (Questions without the monitor's own)."""
    qps, dt = frame.throughput.qps, frame.elapsed
    if frame.stale or qps is None or dt is None:
        return 0
    return max(0, round(qps * dt))


def _row_lock_blocked_s(frame: Frame) -> float:
    """Session-seconds blocked on row locks in a fresh frame's interval (each second once:
    core/row_lock_time.py)."""
    ms, dt = frame.locks.row_lock_wait_ms_per_s, frame.elapsed
    if frame.stale or ms is None or dt is None:
        return 0.0
    return max(0.0, ms * dt / 1000.0)


class FleetPoller:
    def __init__(self, members: Sequence[Member], interval: float, *,
                 record_dir: str | None = None,
                 open_recorder: Callable[[str], Any] | None = None,
                 on_frame: Callable[[str, Frame], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, latch_counters: bool = True) -> None:
        """`latch_counters=False`: frames without the per-latch counters only an exporter reads
        (the overview and its drill-down never show them; working them out was a sixth of a
        poll's derive, and holding them for the judge's five minutes a third of the heap)."""
        self.interval = interval
        self.latch_counters = latch_counters
        self.on_frame = on_frame
        self._clock = clock
        self._lock = threading.Lock()
        self._record_dir = record_dir
        self._open_recorder = open_recorder
        self._started = False
        self._slots: list[_Slot] = [self._slot(m) for m in members]

    def _slot(self, m: Member) -> _Slot:
        recorder, path, error = None, None, None
        if self._record_dir is not None and self._open_recorder is not None:
            path = str(Path(self._record_dir) / recording_file_name(m.name))
            try:
                recorder = self._open_recorder(path)
            except Exception as exc:  # noqa: BLE001 - this server is watched unrecorded; the row says why
                path, error = None, f"cannot record: {getattr(exc, 'message', exc)}"
        # The judge's five minutes of times, but raw samples only while a frame still derives
        # from them (timeline/thin_tail.py): the fleet never steps back.
        timeline = PolledTimeline(ThinTail(HORIZON_S + 1.0), advice_every_s=ADVICE_EVERY_S,
                                  counters=self.latch_counters)
        engine = Engine(m.source, timeline, recorder)
        return _Slot(m, engine, ServerState(name=m.name, started=self._clock(), open_error=m.error,
                                            recording=path, recording_error=error))

    def add(self, member: Member) -> None:
        """Watch one more server from now on (a probed target); started at once when polling runs."""
        slot = self._slot(member)
        with self._lock:
            self._slots = [*self._slots, slot]
        if self._started:
            self._start(slot)

    def remove(self, name: str) -> None:
        """Stop watching a server: its loop ends after its current poll, then its source closes."""
        with self._lock:
            gone = [s for s in self._slots if s.member.name == name]
            self._slots = [s for s in self._slots if s.member.name != name]
        for slot in gone:
            slot.stop.set()
            threading.Thread(target=self._close, args=(slot, 30.0), daemon=True).start()

    def _close(self, slot: _Slot, timeout: float) -> None:
        if slot.thread is not None:
            slot.thread.join(timeout)
        if slot.thread is None or not slot.thread.is_alive():
            try:
                slot.engine.close()
            except Exception:  # noqa: BLE001 - closing a broken connection or full disk
                pass

    @property
    def names(self) -> list[str]:
        return [s.member.name for s in self._slots]

    def start(self) -> None:
        self._started = True
        for slot in self._slots:
            self._start(slot)

    def _start(self, slot: _Slot) -> None:
        slot.thread = threading.Thread(target=self._run, args=(slot,), daemon=True,
                                       name=f"mysqltop-fleet-{slot.member.name}")
        slot.thread.start()

    def _run(self, slot: _Slot) -> None:
        def on_frame(frame: Frame) -> None:
            self._accept(slot, frame)

        try:
            slot.engine.run(self.interval, on_frame=on_frame, stop_event=slot.stop, pace=True)
        except Exception as exc:  # noqa: BLE001 - one member's crash must not end the fleet
            with self._lock:
                slot.state = replace(slot.state, recording_error=f"poller stopped: {type(exc).__name__}: {exc}")

    def _accept(self, slot: _Slot, frame: Frame) -> None:
        now = self._clock()
        engine = slot.engine
        fresh = not frame.stale
        totals = latch_totals(frame.hotspots) if fresh else None      # outside the lock: views wait on it
        with self._lock:
            st = slot.state
            if fresh and slot.trend and self.latch_counters:
                # Only the newest frame's latch counters are read (the exporter); the trend's older
                # frames drop theirs: ~100 per frame × 120 frames × every server adds up.
                for k in [k for k, old in enumerate(slot.trend) if old.latch_counters]:
                    slot.trend[k] = replace(slot.trend[k], latch_counters=[])    # a frame never changes
            slot.trend.append(frame)
            late = st.arrived is not None and now - st.arrived > LATE_AFTER * self.interval
            slot.state = replace(
                st, frame=frame, good=frame if fresh else st.good, arrived=now,
                good_at=now if fresh else st.good_at,
                summary_of=frame if fresh else st.summary_of,
                latches=tuple(totals) if totals is not None else st.latches,
                hottest=hottest_latch(frame, totals) if totals is not None else st.hottest,
                worst=worst_finding(frame) if fresh else st.worst, polls=st.polls + 1,
                queries=st.queries + _client_statements(frame),
                row_lock_blocked_s=st.row_lock_blocked_s + _row_lock_blocked_s(frame),
                session_seconds=wait_load.add_seconds(st.session_seconds, frame),
                stale=st.stale + (not fresh), late=st.late + late,
                poll_s=engine.stats.last_read_ms / 1000.0,
                recording=st.recording if engine.recorder is not None else None,
                # paused for space: said while it lasts; an open error stays (no recorder to clear it)
                recording_error=engine.recording_error or _paused(engine)
                or (st.recording_error if engine.recorder is None else None),
                trend=tuple(slot.trend))
        if self.on_frame is not None:
            self.on_frame(slot.member.name, frame)

    def states(self) -> list[ServerState]:
        with self._lock:
            return [s.state for s in self._slots]

    def stop(self, timeout: float = 1.0) -> None:
        """Stop every loop; wait briefly (a hung poll must not hold up quitting), then close."""
        for slot in self._slots:
            slot.stop.set()
        deadline = self._clock() + timeout
        for slot in self._slots:
            if slot.thread is not None:
                slot.thread.join(max(0.0, deadline - self._clock()))
        for slot in self._slots:
            if slot.thread is None or not slot.thread.is_alive():
                try:
                    slot.engine.close()
                except Exception:  # noqa: BLE001 - closing a broken connection or full disk
                    pass


def _paused(engine: Engine) -> str | None:
    paused = engine.recording_paused
    return paused.detail if paused is not None else None
