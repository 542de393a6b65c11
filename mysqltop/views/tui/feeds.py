"""Feeds: a daemon thread that produces what the App shows and takes commands from it — frames and
commands in, events out (feed_events.py), no Textual here, so the layer under the widgets runs
and is tested headless.

The blocking work (a poll that may hang on a stalled server, SQLite reads and parsing of a
recording) runs here, never on the UI thread. A plain daemon thread rather than a Textual
thread worker: Textual runs those in the default executor, which the interpreter joins at
exit, so quitting would wait for a hung poll. Commands (typed: one dataclass each, in
feed_commands.py) arrive on a queue and are applied between polls.

The live feed starts before the App (`begin`), so its first poll overlaps Textual's import and its
first frame can be drawn as text at once (views.first_look). The events it posts meanwhile are
kept and handed over when the App `start`s it.

Live, the engine keeps every sample in the session's history (timeline/ring.SampleRing), and
what the session records reaches further back (timeline/session_store.SessionStore: the ring,
then the recording). `p` or a moving key pauses in it: a Browser over a cursor on that store takes
over what is shown (the same one a replay uses), while polling — and recording — go on; `p` again
or `end` follows live again and drops the cursor with its frame cache.

Each feed keeps its timeline's deadlocks as of every moment (timeline/deadlock_history): live folds
each frame as it makes it, a replay reads the recording's in slices while it waits (`idle`). Each
frame shown carries those up to it, looked up here, so the `d` view never folds on the UI thread.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from mysqltop.core.frame import Frame
from mysqltop.core.pacing import FIRST_GAP
from mysqltop.engine import Recorder
from mysqltop.timeline.cursor import Cursor
from mysqltop.timeline.deadlock_history import DeadlockHistory
from mysqltop.timeline.ring import SampleRing, capacity_for
from mysqltop.timeline.session_store import SessionStore
from mysqltop.sources.sample_source import nice_this_thread
from mysqltop.views.tui.browse import TREND, Browser
from mysqltop.views.tui.feed_commands import (
    FeedCommand, ListLockHolders, Play, SetInterval, Stop, ToEnd, ToggleRecord,
)
from mysqltop.views.tui.feed_events import Failed, FeedEvent, FrameShown, LivePolled, Notice
from mysqltop.views.tui.position import Position, ViewMode

Post = Callable[[FeedEvent], object]
IDLE_SLICE_S = 0.02         # the feed's own work between looks at the command queue (a key waits this at most)


class Feed:
    """Thread + command queue plumbing shared by the live and replay feeds."""

    name = "feed"

    def __init__(self) -> None:
        self._commands: queue.Queue[FeedCommand] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._early: list[FeedEvent] | None = None    # posted before the App was there
        self._target: Post = lambda event: None
        self.deadlocks = DeadlockHistory()      # folded and looked up in the feed thread only

    def initial_position(self) -> Position:
        raise NotImplementedError

    def begin(self) -> None:
        """Start the thread before the App runs (the first poll overlaps the UI's start-up); what
        it posts meanwhile is kept and handed over by `start`."""
        if self._thread is None:
            self._early = []
            self._thread = threading.Thread(target=self._main, name=f"mysqltop-{self.name}", daemon=True)
            self._thread.start()

    def start(self, post: Post) -> None:
        with self._lock:
            early, self._early = self._early or [], None
            self._target = post
        for event in early:
            post(event)
        if self._thread is None:
            self._thread = threading.Thread(target=self._main, name=f"mysqltop-{self.name}", daemon=True)
            self._thread.start()

    def _post(self, event: FeedEvent) -> None:
        with self._lock:
            if self._early is not None:
                self._early.append(event)
                return
            target = self._target
        target(event)

    def _notice(self, text: str, severity: str = "information") -> None:
        self._post(Notice(text, severity))

    def send(self, command: FeedCommand) -> None:
        self._commands.put(command)

    def stop(self, timeout: float = 0.5) -> None:
        """Ask the thread to finish; wait briefly (a hung poll must not hold up quitting)."""
        self._stop.set()
        self.send(Stop())
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _main(self) -> None:
        nice_this_thread()         # parse, derive, SQLite reads: the UI thread comes first
        try:
            self.run()
        except Exception as exc:  # the UI must stay alive and say why the data stopped
            self._post(Failed(f"{type(exc).__name__}: {exc}"))
        finally:
            try:
                self.close()
            except Exception:
                pass

    def _wait(self, timeout: float | None) -> list[FeedCommand]:
        """Block until a command arrives or `timeout` passes; return all queued commands."""
        out: list[FeedCommand] = []
        try:
            out.append(self._commands.get(timeout=timeout) if timeout is None or timeout > 0
                       else self._commands.get_nowait())
        except queue.Empty:
            return out
        while True:
            try:
                out.append(self._commands.get_nowait())
            except queue.Empty:
                return out

    def _serve(self, seconds: float | None) -> bool:
        """The pacing loop's wait: apply the commands that arrive within `seconds` (None: until
        one does); True when there were any. While the feed has work of its own (`idle`), it is
        done in slices between looks at the queue, so a command waits one slice at most."""
        end = None if seconds is None else time.monotonic() + seconds
        while not self._stop.is_set():
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                return False
            commands = self._wait(0)
            if commands:
                return self._apply_all(commands)
            if not self.idle(IDLE_SLICE_S if left is None else min(IDLE_SLICE_S, left)):
                return self._apply_all(self._wait(None if end is None else max(0.0, end - time.monotonic())))
        return True

    def _apply_all(self, commands: list[FeedCommand]) -> bool:
        for command in commands:
            if not isinstance(command, Stop):
                self.apply(command)
        return bool(commands)

    def idle(self, budget_s: float) -> bool:
        """Work of the feed's own done while it waits, about `budget_s` of it; False when there
        is none left."""
        return False

    def apply(self, command: FeedCommand) -> None:
        """Carry out one command from the App (a feed ignores commands that are not for it)."""

    def run(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass


def recording_name(now: float | None = None) -> str:
    stamp = datetime.fromtimestamp(time.time() if now is None else now).strftime("%Y%m%d-%H%M%S")
    return f"mysqltop-{stamp}.mtrec"


class LiveFeed(Feed):
    """Polls `engine.step()` on the engine's paced grid; handles interval, recording, and pausing
    in the session's history. The interval is the engine's (`engine.interval`), nowhere else."""

    name = "live"

    def __init__(self, engine: Any, interval: float, *,
                 open_recorder: Callable[[str], Recorder] | None = None,
                 record_path: str | None = None, directory: str = ".",
                 first_look: Callable[[Frame], None] | None = None) -> None:
        super().__init__()
        self.first_look = first_look          # shows the first frame before the App is up
        self.engine = engine
        engine.set_interval(interval)
        if engine.history is None:
            engine.history = SampleRing(capacity_for(interval))
        self.history: SampleRing = engine.history
        self.timeline = SessionStore(self.history)    # the ring, then what the session recorded
        self.open_recorder = open_recorder
        self.record_path: str | None = None
        self._recorder_changes = 0             # pauses and resumes of the recorder seen so far
        self._initial_record = record_path
        self.directory = directory
        self.trend: deque[Frame] = deque(maxlen=TREND)
        self.browser: Browser | None = None   # paused in the history (None: following live)

    @property
    def interval(self) -> float:
        return float(self.engine.interval)

    def initial_position(self) -> Position:
        return self._live_fields(Position(mode=ViewMode.LIVE))

    def _live_fields(self, p: Position) -> Position:
        stopped = self.engine.recording_stopped
        newest = self.history.time_or_none(len(self.history) - 1)
        behind = (newest - p.sample_time if newest is not None and p.sample_time is not None and not p.playing
                  else None)
        paused = self.engine.recording_paused
        return replace(p, interval=self.interval, recording=self.record_path, behind_s=behind,
                       recording_stopped=stopped.reason if stopped is not None else None,
                       recording_paused=paused.reason if paused is not None else None,
                       history_recorded=self.timeline.recorded)

    def position(self) -> Position:
        if self.browser is not None:
            return self.browser.position()
        h = self.timeline
        span = (h.time_or_none(h.first), h.time_or_none(len(h) - 1))
        return self._live_fields(Position(
            mode=ViewMode.LIVE, count=len(h), first=h.first, ended=True,
            span=(span[0], span[1]) if span[0] is not None and span[1] is not None else None))

    def run(self) -> None:
        if self._initial_record:
            self.do_record(self._initial_record)
        # The engine's paced loop; commands (a new interval, recording) are applied while it waits.
        # The first frame has no rates yet: the second sample comes soon, not a whole interval later.
        self.engine.run(self.interval, on_frame=self._on_frame, stop_event=self._stop,
                        wait=self._serve, first_gap=FIRST_GAP)
        if not self._stop.is_set():
            self._notice("the source ended", "warning")

    def _on_frame(self, frame: Frame) -> None:
        if self.first_look is not None and not frame.stale:     # the first frame with server values
            self.first_look(frame)
            self.first_look = None
        self.trend.append(frame)
        self.deadlocks.add(len(self.history) - 1, frame)        # the engine put its sample there
        self.deadlocks.forget_before(self.timeline.first)      # no moment before it can be shown
        deadlocks = self.deadlocks.at()
        if self.record_path and self.engine.recorder is None:
            self.record_path = None            # the engine stopped a failing recorder: say it loudly
            self.timeline.recording_ended(len(self.history) - 1)     # the failed sample is not in it
            stopped = self.engine.recording_stopped
            self._notice(stopped.detail if stopped else "recording stopped", "error")
        elif self.record_path:
            self._paused_or_resumed()
        if self.browser is None:
            self._post(FrameShown(frame, tuple(self.trend), self.position(), deadlocks))
        else:
            self._post(LivePolled(frame, self.position()))

    def _paused_or_resumed(self) -> None:
        """Recording paused for space (the file holds what came before) or resumed (in a new
        segment): the session's recorded history is one span per stretch that went in."""
        recorder = self.engine.recorder
        changes = getattr(recorder, "changes", 0)
        if changes == self._recorder_changes:
            return
        self._recorder_changes = changes
        paused = self.engine.recording_paused
        line = getattr(recorder, "last_change", None) or ""
        if paused is not None:
            self.timeline.recording_ended(len(self.history) - 1)     # the refused sample is not in it
            self._notice(line, "warning")
        else:
            self.timeline.recording_started(self.record_path or "")   # from the next sample on
            self._notice(line)

    # -- commands ---------------------------------------------------------------------------
    def apply(self, command: FeedCommand) -> None:
        if isinstance(command, SetInterval):
            self.engine.set_interval(command.seconds)     # the source's timeouts follow it
        elif isinstance(command, ToggleRecord):
            self.do_record(command.path)
        elif isinstance(command, ListLockHolders):
            self.list_lock_holders()
        elif isinstance(command, ToEnd) or (isinstance(command, Play) and (
                command.playing or (command.playing is None and self.browser is not None))):
            self.follow_live()
        elif isinstance(command, Play):
            self.pause()
        elif self.pause() and self.browser is not None:   # a moving key: pause first, then move
            self.browser.apply(command)

    def idle(self, budget_s: float) -> bool:
        return self.browser is not None and self.browser.work(budget_s)

    def pause(self) -> bool:
        """Pause on the newest sample of the history (the cursor takes over); False if empty."""
        if self.browser is not None:
            return True
        h = self.timeline
        if len(h) == 0:
            self._notice("no samples yet to go back to", "warning")
            return False
        cursor = Cursor(h)
        self._adopt_recent(cursor)
        self.browser = Browser(cursor, self._post, ViewMode.LIVE, playing=False, describe=self._live_fields,
                               deadlocks=self.deadlocks.at)
        self.browser.cursor.go(len(h) - 1)
        self.browser.show()
        return True

    def _adopt_recent(self, cursor: Cursor) -> None:
        """Hand the cursor the frames and findings the engine's pipeline holds for the newest
        samples (matched by time), so pausing derives and judges none of them again."""
        recent = getattr(self.engine.pipeline, "recent", None)
        if recent is None:
            return
        i = len(self.history) - 1
        for frame, judgement in reversed(recent()):
            if i < self.history.first or self.history.time_or_none(i) != frame.time:
                break
            cursor.adopt(i, frame, judgement)
            i -= 1

    def follow_live(self) -> None:
        """Back to live: the newest frame at once, then each poll as it comes."""
        if self.browser is None:
            return
        self.browser = None                     # drops the cursor and its frame cache
        self.timeline.release()                 # and the recording it read (opened again when needed)
        if self.trend:
            self._post(FrameShown(self.trend[-1], tuple(self.trend), self.position(), self.deadlocks.at()))

    def list_lock_holders(self) -> None:
        """Run the lock-holder statement through the source (its own connection); say the result."""
        run = getattr(self.engine.source, "enable_lock_holders", None)
        if run is None:
            self._notice("this source cannot run statements", "warning")
            return
        try:
            lines = run()
        except Exception as exc:  # noqa: BLE001 - a refusal (UserError) or a lost server: say it
            self._notice(str(getattr(exc, "message", exc)), "error")
            return
        self._notice("; ".join(lines))

    def do_record(self, path: str | None = None) -> None:
        """Start recording to `path` (or a file named by the time), or stop if recording."""
        if self.record_path is not None:
            done, self.record_path = self.record_path, None
            self.timeline.recording_ended(len(self.history))    # before the recorder closes the file
            self.engine.stop_recording()
            self._notice(f"recording saved to {done}")
            return
        if self.open_recorder is None:
            self._notice("recording is not available here", "warning")
            return
        target = path or str(Path(self.directory) / recording_name())
        try:
            self.engine.start_recording(self.open_recorder(target))
        except Exception as exc:
            self._notice(f"cannot record to {target}: {exc}", "error")
            return
        self.timeline.recording_started(target)
        self.record_path = target
        self._recorder_changes = 0
        self._notice(f"recording to {target}")

    def close(self) -> None:
        self.timeline.release()                 # before the recorder closes the file
        self.engine.close()
