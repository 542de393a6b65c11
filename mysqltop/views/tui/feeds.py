"""Feeds: a daemon thread that produces frames for the App and takes commands from it.

The blocking work (a poll that may hang on a stalled server, SQLite reads and parsing of a
recording) runs here, never on the UI thread. A plain daemon thread rather than a Textual
thread worker: Textual runs those in the default executor, which the interpreter joins at
exit, so quitting would wait for a hung poll. Commands (typed: one dataclass each, in
feed_commands.py) arrive on a queue and are applied between polls; results go back as messages
through the App's thread-safe `post_message`.

The live feed starts before the App (`begin`), so its first poll overlaps Textual's import and its
first frame can be drawn as text at once (views.first_look). What it posts meanwhile is kept as
the means to make each message, not the message: making one imports Textual's message classes,
and a second thread importing into Textual's import cycle while the main thread imports Textual
would see half-made modules. The App's `start` makes them, on the main thread.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from datetime import datetime
from pathlib import Path
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

from mysqltop.core.frame import Frame
from mysqltop.core.pacing import FIRST_GAP
from mysqltop.engine import Recorder
from mysqltop.sources.base import nice_this_thread
from mysqltop.views.tui.feed_commands import FeedCommand, SetInterval, Stop, ToggleRecord
from mysqltop.views.tui.position import Position

if TYPE_CHECKING:
    from textual.message import Message

MakeMessage = Callable[[], "Message"]

TREND = 300                                           # frames kept for charts and sparklines


class Feed:
    """Thread + command queue plumbing shared by the live and replay feeds."""

    name = "feed"

    def __init__(self) -> None:
        self._commands: queue.Queue[FeedCommand] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._early: list[MakeMessage] | None = None    # posted before the App was there
        self._target: Callable[[Message], object] = lambda m: None

    def begin(self) -> None:
        """Start the thread before the App runs (the first poll overlaps the UI's start-up); what
        it posts meanwhile is kept and handed over by `start`."""
        if self._thread is None:
            self._early = []
            self._thread = threading.Thread(target=self._main, name=f"mysqltop-{self.name}", daemon=True)
            self._thread.start()

    def start(self, post: Callable[[Message], object]) -> None:
        with self._lock:
            early, self._early = self._early or [], None
            self._target = post
        for make in early:
            post(make())
        if self._thread is None:
            self._thread = threading.Thread(target=self._main, name=f"mysqltop-{self.name}", daemon=True)
            self._thread.start()

    def _post(self, make: MakeMessage) -> None:
        """Post the message `make()` makes (kept unmade until the App is there)."""
        with self._lock:
            if self._early is not None:
                self._early.append(make)
                return
            target = self._target
        target(make())

    def _notice(self, text: str, severity: str = "information") -> None:
        self._post(partial(_notice, text, severity))

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
            self._post(partial(_failed, f"{type(exc).__name__}: {exc}"))
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
        one does); True when there were any."""
        commands = self._wait(seconds)
        self._apply_all(commands)
        return bool(commands)

    def _apply_all(self, commands: list[FeedCommand]) -> None:
        for command in commands:
            if not isinstance(command, Stop):
                self.apply(command)

    def apply(self, command: FeedCommand) -> None:
        """Carry out one command from the App (a feed ignores commands that are not for it)."""

    def run(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass


# Makers of the messages, importing their classes only when called (see the module's docstring).
def _notice(text: str, severity: str) -> Message:
    from mysqltop.views.tui.messages import FeedNotice

    return FeedNotice(text, severity)


def _failed(text: str) -> Message:
    from mysqltop.views.tui.messages import FeedFailed

    return FeedFailed(text)


def _frame_ready(frame: Frame, trend: tuple[Frame, ...], position: Position) -> Message:
    from mysqltop.views.tui.messages import FrameReady

    return FrameReady(frame, trend, position)


def recording_name(now: float | None = None) -> str:
    stamp = datetime.fromtimestamp(time.time() if now is None else now).strftime("%Y%m%d-%H%M%S")
    return f"mysqltop-{stamp}.mtrec"


class LiveFeed(Feed):
    """Polls `engine.step()` on a monotonic grid of `interval`; handles interval and recording."""

    name = "live"

    def __init__(self, engine: Any, interval: float, *,
                 open_recorder: Callable[[str], Recorder] | None = None,
                 record_path: str | None = None, directory: str = ".",
                 first_look: Callable[[Frame], None] | None = None) -> None:
        super().__init__()
        self.first_look = first_look          # shows the first frame before the App is up
        self.engine = engine
        self.interval = interval
        self.open_recorder = open_recorder
        self.record_path: str | None = None
        self._initial_record = record_path
        self.directory = directory
        self.trend: deque[Frame] = deque(maxlen=TREND)

    def position(self) -> Position:
        stopped = self.engine.recording_stopped
        return Position(mode="live", interval=self.interval, recording=self.record_path,
                        recording_stopped=stopped.reason if stopped is not None else None)

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
        if self.record_path and self.engine.recorder is None:
            self.record_path = None            # the engine stopped a failing recorder: say it loudly
            stopped = self.engine.recording_stopped
            self._notice(stopped.detail if stopped else "recording stopped", "error")
        self._post(partial(_frame_ready, frame, tuple(self.trend), self.position()))

    def apply(self, command: FeedCommand) -> None:
        if isinstance(command, SetInterval):
            self.do_interval(command.seconds)
        elif isinstance(command, ToggleRecord):
            self.do_record(command.path)

    def do_interval(self, seconds: float) -> None:
        self.interval = seconds
        self.engine.set_interval(seconds)      # live: the source's timeouts follow it

    def do_record(self, path: str | None = None) -> None:
        """Start recording to `path` (or a file named by the time), or stop if recording."""
        if self.record_path is not None:
            done, self.record_path = self.record_path, None
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
        self.record_path = target
        self._notice(f"recording to {target}")

    def close(self) -> None:
        self.engine.close()
