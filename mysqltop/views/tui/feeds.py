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

Live, the engine appends every sample to the session's timeline (timeline/polled.live_timeline:
the ring of the last hour, then what the session recorded) and its frame comes from that
timeline's one cursor: following live, the cursor's index is the newest sample. `p` or a moving
key pauses: the index stays, and the Navigator (timeline/navigator.py, the same one a replay
uses) moves it, while polling — and recording — go on; `p` again or `end` follows live again.
Each feed is the navigator's view (`Posting`): what it shows and says becomes FeedEvents.

Each feed keeps its timeline's deadlocks as of every moment (timeline/deadlock_history): live folds
each frame as it makes it, a replay reads the recording's in slices while it waits (`idle`). Each
frame shown carries those up to it, looked up here, so the `d` view never folds on the UI thread.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import asdict, replace
from datetime import datetime
from pathlib import Path
from typing import Callable

from mysqltop.core.frame import Frame
from mysqltop.core.pacing import FIRST_GAP
from mysqltop.engine import Engine, PausingRecorder, Recorder
from mysqltop.timeline.cursor import Cursor
from mysqltop.timeline.deadlock_history import DeadlockHistory, DeadlocksAt
from mysqltop.timeline.navigator import TREND, Navigator
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.timeline.session_store import SessionStore
from mysqltop.sources.sample_source import LockHolderSource, nice_this_thread
from mysqltop.views.tui.feed_commands import (
    FeedCommand, Jump, ListLockHolders, NextBookmark, NextFinding, Play, SeekTime, SetInterval, Speed, Step, Stop,
    ToEnd, ToggleRecord,
)
from mysqltop.views.tui.feed_events import Failed, FeedEvent, FrameShown, LivePolled, Notice
from mysqltop.views.tui.position import Position, ViewMode

Post = Callable[[FeedEvent], object]
IDLE_SLICE_S = 0.02         # the feed's own work between looks at the command queue (a key waits this at most)


class Posting:
    """The navigator's view (timeline/navigator.NavigatorView) in a feed: what it shows becomes a
    FrameShown with the feed's Position and deadlocks, what it says a Notice."""

    def __init__(self, post: Post, mode: ViewMode, describe: Callable[[Position], Position] | None = None,
                 deadlocks: Callable[[int], DeadlocksAt | None] = lambda i: None) -> None:
        self.post = post
        self.mode = mode
        self.describe = describe or (lambda p: p)     # the feed's own fields (live: interval, recording)
        self.deadlocks = deadlocks                    # the feed's deadlocks up to a sample
        self.navigator: Navigator | None = None

    def position(self) -> Position:
        assert self.navigator is not None
        return self.describe(Position(mode=self.mode, **asdict(self.navigator.place())))

    def shown(self, frame: Frame, trend: tuple[Frame, ...], index: int) -> None:
        self.post(FrameShown(frame, trend, self.position(), self.deadlocks(index)))

    def notice(self, text: str, severity: str = "information") -> None:
        self.post(Notice(text, severity))


def navigate(cursor: Cursor, post: Post, mode: ViewMode, *, describe: Callable[[Position], Position] | None = None,
             deadlocks: Callable[[int], DeadlocksAt | None] = lambda i: None, speed: float = 1.0,
             playing: bool = False, bookmarks: tuple[tuple[float, str], ...] = ()) -> Navigator:
    """A navigator over `cursor` whose view posts FeedEvents; a replay's scans its findings ahead."""
    view = Posting(post, mode, describe, deadlocks)
    view.navigator = navigator = Navigator(cursor, view, speed=speed, playing=playing, bookmarks=bookmarks,
                                           scan=mode is ViewMode.REPLAY)
    return navigator


def apply_move(navigator: Navigator, command: FeedCommand) -> bool:
    """Carry out a moving command on the navigator; False when it is not one."""
    if isinstance(command, Play):
        navigator.play(command.playing)
    elif isinstance(command, Step):
        navigator.step(command.n)
    elif isinstance(command, SeekTime):
        navigator.seek_time(command.t)
    elif isinstance(command, Jump):
        navigator.jump(command.seconds)
    elif isinstance(command, NextFinding):
        navigator.finding(command.direction)
    elif isinstance(command, ToEnd):
        navigator.to_end()
    elif isinstance(command, Speed):
        navigator.change_speed(command.direction)
    elif isinstance(command, NextBookmark):
        navigator.bookmark()
    else:
        return False
    return True


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

    def __init__(self, engine: Engine, interval: float, *,
                 open_recorder: Callable[[str], Recorder] | None = None,
                 record_path: str | None = None, directory: str = ".",
                 first_look: Callable[[Frame], None] | None = None) -> None:
        super().__init__()
        timeline = engine.timeline
        if not isinstance(timeline, PolledTimeline) or not isinstance(timeline.store, SessionStore):
            raise TypeError("the live TUI polls into a timeline.polled.live_timeline()")
        self.first_look = first_look          # shows the first frame before the App is up
        self.engine = engine
        self.timeline: PolledTimeline = timeline
        self.session: SessionStore = timeline.store   # the ring, then what the session recorded
        engine.set_interval(interval)
        self.open_recorder = open_recorder
        self.record_path: str | None = None
        self._recorder_changes = 0             # pauses and resumes of the recorder seen so far
        self._initial_record = record_path
        self.directory = directory
        self.last: Frame | None = None        # the newest frame as live showed it
        self.posting = Posting(lambda event: self._post(event), ViewMode.LIVE, self._live_fields, self.deadlocks.at)
        self.navigator = self.posting.navigator = Navigator(timeline.cursor, self.posting)

    @property
    def interval(self) -> float:
        return float(self.engine.interval or 0.0)

    @property
    def paused(self) -> bool:
        return not self.timeline.following

    def initial_position(self) -> Position:
        return self._live_fields(Position(mode=ViewMode.LIVE))

    def _live_fields(self, p: Position) -> Position:
        stopped = self.engine.recording_stopped
        h = self.session
        newest = h.time_or_none(len(h) - 1)
        behind = (newest - p.sample_time if newest is not None and p.sample_time is not None and not p.playing
                  else None)
        paused = self.engine.recording_paused
        return replace(p, interval=self.interval, recording=self.record_path, behind_s=behind,
                       recording_stopped=stopped.reason if stopped is not None else None,
                       recording_paused=paused.reason if paused is not None else None,
                       history_recorded=h.recorded)

    def position(self) -> Position:
        if self.paused:
            return self.posting.position()
        h = self.session
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
        newest = self.timeline.newest                   # the engine appended its sample there
        self.last = frame
        self.deadlocks.add(newest, frame)
        self.deadlocks.forget_before(self.session.first)       # no moment before it can be shown
        if self.record_path and self.engine.recorder is None:
            self.record_path = None            # the engine stopped a failing recorder: say it loudly
            self.session.recording_ended(newest)               # the failed sample is not in it
            stopped = self.engine.recording_stopped
            self._notice(stopped.detail if stopped else "recording stopped", "error")
        elif self.record_path:
            self._paused_or_resumed()
        if self.paused:
            self._post(LivePolled(frame, self.position()))
        else:
            self._show_live(frame)

    def _show_live(self, frame: Frame) -> None:
        newest = self.timeline.newest
        trend = tuple(self.timeline.cursor.history(newest, TREND, last=frame))
        self._post(FrameShown(frame, trend, self.position(), self.deadlocks.at()))

    def _paused_or_resumed(self) -> None:
        """Recording paused for space (the file holds what came before) or resumed (in a new
        segment): the session's recorded history is one span per stretch that went in."""
        recorder = self.engine.recorder
        if not isinstance(recorder, PausingRecorder) or recorder.changes == self._recorder_changes:
            return
        self._recorder_changes = recorder.changes
        paused = self.engine.recording_paused
        line = recorder.last_change or ""
        if paused is not None:
            self.session.recording_ended(self.timeline.newest)      # the refused sample is not in it
            self._notice(line, "warning")
        else:
            self.session.recording_started(self.record_path or "")    # from the next sample on
            self._notice(line)

    # -- commands ---------------------------------------------------------------------------
    def apply(self, command: FeedCommand) -> None:
        if isinstance(command, SetInterval):
            self.engine.set_interval(command.seconds)     # the source's timeouts and the history follow it
        elif isinstance(command, ToggleRecord):
            self.do_record(command.path)
        elif isinstance(command, ListLockHolders):
            self.list_lock_holders()
        elif isinstance(command, ToEnd) or (isinstance(command, Play) and (
                command.playing or (command.playing is None and self.paused))):
            self.follow_live()
        elif isinstance(command, Play):
            self.pause()
        elif self.pause():                                # a moving key: pause first, then move
            apply_move(self.navigator, command)

    def idle(self, budget_s: float) -> bool:
        return self.paused and self.navigator.work(budget_s)

    def pause(self) -> bool:
        """Pause on the newest sample: the cursor's index stops following; False if none yet."""
        if self.paused:
            return True
        if self.timeline.newest < 0:
            self._notice("no samples yet to go back to", "warning")
            return False
        self.timeline.following = False
        self.navigator.playing = False
        self.navigator.cursor.go(self.timeline.newest)
        self.navigator.show()
        return True

    def follow_live(self) -> None:
        """Back to live: the newest frame at once, then each poll as it comes."""
        if not self.paused:
            return
        self.timeline.following = True
        self.navigator.judging = None
        self.navigator.cursor.index = self.timeline.newest
        self.session.release()                  # the recording it read (opened again when needed)
        if self.last is not None:
            self._show_live(self.last)

    def list_lock_holders(self) -> None:
        """Run the lock-holder statement through the source (its own connection); say the result."""
        source = self.engine.source
        if not isinstance(source, LockHolderSource):
            self._notice("this source cannot run statements", "warning")
            return
        try:
            lines = source.enable_lock_holders()
        except Exception as exc:  # noqa: BLE001 - a refusal (UserError) or a lost server: say it
            self._notice(str(getattr(exc, "message", exc)), "error")
            return
        self._notice("; ".join(lines))

    def do_record(self, path: str | None = None) -> None:
        """Start recording to `path` (or a file named by the time), or stop if recording."""
        if self.record_path is not None:
            done, self.record_path = self.record_path, None
            self.session.recording_ended(len(self.session))     # before the recorder closes the file
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
        self.session.recording_started(target)
        self.record_path = target
        self._recorder_changes = 0
        self._notice(f"recording to {target}")

    def close(self) -> None:
        self.session.release()                  # before the recorder closes the file
        self.engine.close()
