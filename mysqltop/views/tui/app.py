"""The Textual App: one reactive Frame, seven panes, a status bar, keys. Kept small on purpose.

Data arrives from a Feed thread (live poll or recording) as events wrapped in messages
(FrameReady …); the App only displays. Live and replay are one timeline moved by the same keys
and commands: live, `p` or `←` pauses in the history the feed holds, `p` or `end` follows live. Freshness is judged here, on a UI timer, so a feed stuck in a hung poll still
shows STALE while every key keeps answering. What the status bar shows (paused, zoomed,
position, failure, replay info) lives in reactive vars; their watchers redraw it. Commands to
the feed thread are typed (feed_commands). Zoom is Screen.maximize of a pane.

Untrusted text (server messages, bookmark notes, typed prompt text) reaches toasts through
`say()`: control characters made visible and never read as markup.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Callable, Iterable

from textual.app import App, ComposeResult, SystemCommand
from textual.containers import Container
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget

from mysqltop.core.frame import Frame
from mysqltop.core.instrumentation import lock_holders_statement
from mysqltop.core import units
from mysqltop.core.safe_text import visible
from mysqltop.core.sample import Failure
from mysqltop.timeline.deadlock_history import DeadlocksAt
from mysqltop.views.outage import OutageNotes
from mysqltop.views.tui.feed_commands import (Jump, ListLockHolders, NextBookmark, NextFinding, Play, SeekTime,
                                             SetInterval, Speed, Step, ToEnd, ToggleRecord)
from mysqltop.core.pacing import FIRST_GAP, INTERVALS, step_choice
from mysqltop.views.tui.feed_events import DeadlocksRead, TimelineInfo
from mysqltop.views.tui.feeds import Feed
from mysqltop.views.tui.heap import Collections
from mysqltop.views.tui.keymap import KEYS, applies, bindings, holders_key, keys_for
from mysqltop.views.tui.messages import (DeadlocksProgress, FeedFailed, FeedNotice, FeedOpened, FrameReady, LiveTick,
                                         to_message)
from mysqltop.views.tui.position import Position, ViewMode
from mysqltop.views.tui.deadlock_screen import DeadlockScreen
from mysqltop.views.tui.load_screen import LoadScreen
from mysqltop.views.tui.screens import GotoScreen, HelpScreen, LockHoldersScreen, SetupNotesScreen, setup_notes
from mysqltop.views.tui.driver import terminal_driver
from mysqltop.views.tui.terminate import exit_on_terminate
from mysqltop.views.tui.widgets.advice_pane import AdvicePane
from mysqltop.views.tui.widgets.flush import FlushPane
from mysqltop.views.tui.widgets.host_pane import HostPane
from mysqltop.views.tui.widgets.hotspots_pane import HotspotsPane
from mysqltop.views.tui.widgets.io_pane import IoPane
from mysqltop.views.tui.widgets.keyfooter import KeyFooter
from mysqltop.views.tui.widgets.locks_pane import LocksPane, copy_kill_line
from mysqltop.views.tui.widgets.pane import Pane
from mysqltop.views.tui.widgets.render import one_line
from mysqltop.views.tui.widgets.status_bar import StatusBar, StatusState
from mysqltop.views.tui.widgets.throughput import ThroughputPane

# Pane number (its zoom key, 1–7) → widget; GRID_ORDER places them on the screen.
PANES: tuple[type[Pane], ...] = (HotspotsPane, IoPane, FlushPane, ThroughputPane, HostPane, AdvicePane, LocksPane)
GRID_ORDER = (1, 7, 4, 5, 2, 3, 6)
HOST = PANES.index(HostPane) + 1
STALE_AFTER = 2.0          # intervals without a frame before the UI calls the data stale
# The status-bar word for a failed poll, by the source's typed reason (core.sample.Failure).
# A frozen or overloaded server (timeout) is a different incident from a stopped server or a
# broken network (no connection, connection lost) and from an account the server refuses.
# A poll still running past the interval (waiting) is a busy server's late answer, not a failure.
ALERT_WORDS = {Failure.TIMEOUT.value: "NOT ANSWERING", Failure.UNREACHABLE.value: "DISCONNECTED",
               Failure.LOST.value: "DISCONNECTED", Failure.DENIED.value: "ACCESS DENIED",
               Failure.WAITING.value: "LATE"}
WAITING = Failure.WAITING.value
ParseWhen = Callable[[str, float, float], float]


class MysqltopApp(App[None]):
    CSS_PATH = "mysqltop.tcss"
    TITLE = "mysqltop"
    BINDINGS = bindings()
    ALLOW_IN_MAXIMIZED_VIEW = "#status, Footer"     # a zoomed pane keeps the status bar and keys

    frame: var[Frame | None] = var(None, always_update=True)
    paused: var[bool] = var(False)
    zoomed: var[int | None] = var(None)               # the maximized pane's number
    position: var[Position] = var(Position(mode=ViewMode.LIVE))
    failure: var[str | None] = var(None)              # why the feed thread stopped
    replay: var[TimelineInfo | None] = var(None)

    def __init__(self, feed: Feed, mode: ViewMode, *, address: str | None = None,
                 source_name: str | None = None, parse_when: ParseWhen | None = None,
                 notes: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.feed, self.mode = feed, mode
        initial = getattr(feed, "initial_position", None)
        self.set_reactive(MysqltopApp.position, initial() if initial is not None else Position(mode=mode))
        self.trend: tuple[Frame, ...] = ()
        self.deadlocks: DeadlocksAt | None = None           # the timeline's up to the frame shown
        self.deadlocks_read: DeadlocksRead | None = None    # a replay: how far its deadlocks are read
        self.address, self.source_name, self.parse_when = address, source_name, parse_when
        self.notes = notes                          # startup notes (capabilities), with their fixes
        self.started = time.monotonic()
        self.last_arrival: float | None = None     # monotonic time of the last frame
        self.last_good: float | None = None        # … of the last non-stale frame
        self.good_frame: Frame | None = None       # last non-stale frame, shown while stale
        self.collections = Collections()
        # one toast when the server stops giving data, one when it is back (and whether it restarted)
        self.outage = OutageNotes(lambda text: self.say(text, "warning", 8), doing="showing the last good numbers")

    def get_driver_class(self) -> type[Driver]:
        return terminal_driver(super().get_driver_class())   # a dropped session still ends it

    # -- layout ---------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # Kept as attributes, not queried: queries look at the active screen (help, goto).
        self.status_bar = StatusBar()
        self.panes = {n: PANES[n - 1](n) for n in GRID_ORDER}
        for pane in self.panes.values():
            if isinstance(pane, LocksPane):
                pane.holders_key = holders_key(self.mode)
        self.panes[4].first_gap = min(self.position.interval or FIRST_GAP, FIRST_GAP)  # type: ignore[attr-defined]
        self.grid = Container(*(self.panes[n] for n in GRID_ORDER), id="panes")
        yield self.status_bar
        yield self.grid
        yield KeyFooter()

    def on_mount(self) -> None:
        self.main_screen = self.screen
        self.paused = not self.position.playing
        if self.notes:
            # one line of each: the whole of them (long lists of settings) is on `i`
            self.say("\n".join(one_line(visible(n), 72) for n in self.notes), "warning", 10)
        # Textual's own escape (or the palette) may restore a zoomed pane: follow it.
        self.watch(self.main_screen, "maximized", self._maximized_changed, init=False)
        exit_on_terminate(self)
        self.feed.start(lambda event: self.post_message(to_message(event)))
        self.set_interval(0.25, self._status_tick)
        self.update_status()
        self.collections.start(self)

    def say(self, text: str, severity: SeverityLevel = "information", timeout: float = 4) -> None:
        """A toast of text that may be untrusted: controls made visible, never read as markup."""
        self.notify(visible(text), severity=severity, timeout=timeout, markup=False)

    # -- reactive state → the status bar and the zoom -------------------------------------
    def watch_paused(self) -> None:
        self.update_status()

    def watch_position(self) -> None:
        self.update_status()

    def watch_failure(self) -> None:
        self.update_status()

    def watch_replay(self, info: TimelineInfo | None) -> None:
        if info is not None and hasattr(self, "panes"):
            for pane in self.panes.values():
                pane.marks = info.bookmarks
        self.update_status()

    def watch_zoomed(self, old: int | None, new: int | None) -> None:
        if not hasattr(self, "panes"):
            return
        for n, pane in self.panes.items():
            pane.zoomed = n == new
        if new is None:
            if self.main_screen.maximized is not None:
                self.main_screen.minimize()
        else:
            pane = self.panes[new]
            self.main_screen.maximize(pane, container=False)
            pane.focus()

    def _maximized_changed(self, widget: Widget | None) -> None:
        zoomed = next((n for n, p in self.panes.items() if p is widget), None)
        if zoomed != self.zoomed:
            self.zoomed = zoomed

    def on_unmount(self) -> None:
        self.feed.stop()
        self.collections.stop()

    # -- data -----------------------------------------------------------------------------
    def on_frame_ready(self, message: FrameReady) -> None:
        event = message.event
        if event.position.live:
            self._polled(event.frame)
        # Set quietly: the frame's watcher redraws the status bar once for all three (their own
        # watchers would redraw it twice more, with the old frame, every frame).
        self.set_reactive(MysqltopApp.position, event.position)
        self.set_reactive(MysqltopApp.paused, not event.position.playing)
        self.trend = event.trend
        self.deadlocks = event.deadlocks
        self.frame = event.frame

    def on_live_tick(self, message: LiveTick) -> None:
        """Live, paused in history: polling goes on (why data stopped, when it is back; how far
        behind the moment on screen now is), the screen keeps its moment."""
        self._polled(message.event.frame)
        self.position = message.event.position

    def _polled(self, frame: Frame) -> None:
        self.outage.frame(frame)
        self.last_arrival = time.monotonic()
        if not frame.stale:
            self.last_good = self.last_arrival

    def watch_frame(self, frame: Frame | None) -> None:
        if frame is None:
            return
        if frame.stale and self.position.live:
            # Keep the last good server numbers on screen rather than a screen of dashes — dimmed
            # when the poll failed (a toast says why), as they are while a busy server's answer is
            # only late; the status bar says for how long. Host counters are local and keep their
            # own clock: the host pane shows this frame's.
            if frame.failure != WAITING:
                self.grid.add_class("-stale")          # the outage's own toast says why
            elif self.good_frame is not None and not self.grid.has_class("-stale"):
                # A busy server's late answer: the server panes already show the last good frame
                # and will show the answer when it comes; only the host's own counters are new.
                if frame.host is not None:
                    self.panes[HOST].show(replace(self.good_frame, host=frame.host), self.trend)
                self.update_status()
                return
            host = frame
            if self.good_frame is not None:
                host = replace(self.good_frame, host=frame.host) if frame.host is not None else self.good_frame
                frame = self.good_frame
        else:
            self.good_frame = host = frame
            self.grid.remove_class("-stale")
        for pane in self.panes.values():
            if isinstance(pane, AdvicePane):
                pane.judging = self.position.judging
            pane.show(host if isinstance(pane, HostPane) else frame, self.trend)
        top = self._top
        if isinstance(top, DeadlockScreen):
            top.show(frame, *self._deadlocks())
        elif isinstance(top, LoadScreen):
            top.show(frame, self.trend)
        self.update_status()

    def _deadlocks(self) -> tuple[Position, DeadlocksAt | None, DeadlocksRead | None]:
        return self.position, self.deadlocks, self.deadlocks_read

    def on_deadlocks_progress(self, message: DeadlocksProgress) -> None:
        """A replay read further: the deadlocks up to the moment shown, once it got there."""
        event = message.event
        self.deadlocks_read = event
        if event.deadlocks is not None and event.deadlocks.index == self.position.index:
            self.deadlocks = event.deadlocks
        top = self._top
        if isinstance(top, DeadlockScreen):
            top.show(self.good_frame or self.frame, *self._deadlocks())

    @property
    def _top(self) -> Screen[Any] | None:
        """The screen on top, None once the app is closing: the feed's last messages may still
        arrive then, and `self.screen` would raise on the empty stack."""
        stack = self.screen_stack
        return stack[-1] if stack else None

    def on_feed_opened(self, message: FeedOpened) -> None:
        self.replay = message.event.info

    def on_feed_notice(self, message: FeedNotice) -> None:
        self.say(message.event.text, message.event.severity, 4)  # type: ignore[arg-type]

    def on_feed_failed(self, message: FeedFailed) -> None:
        self.failure = message.event.text
        self.say(f"data feed stopped: {message.event.text}", "error", 10)

    # -- freshness and the status bar -----------------------------------------------------
    def alert(self, now: float) -> str | None:
        frame = self.frame
        if self.failure:
            return "FEED STOPPED"
        if not self.position.live:
            return self._recorded_alert(frame)
        interval = self.position.interval or 1.0
        since = self.last_good if self.last_good is not None else self.started
        silent = now - (self.last_arrival or self.started) > STALE_AFTER * interval
        if frame is None and not silent:
            return None
        if silent or (frame is not None and frame.stale):
            # Silent after a fresh frame: the poll is running and waited for (a busy server answers late).
            word = (ALERT_WORDS.get(frame.failure or "", "STALE") if frame is not None and frame.stale
                    else "LATE")
            return f"{word} {units.duration(now - since)}"
        return None

    def _recorded_alert(self, frame: Frame | None) -> str | None:
        """What the timeline says of the moment shown (a replay, or live history while paused): a
        silence in it (no samples for well over an interval) is a gap, not a late server; a
        recorded failure keeps its word."""
        gap = self.position.gap_s
        interval = (self.replay.interval if self.replay is not None else self.position.interval) or 1.0
        if gap is not None and gap > STALE_AFTER * interval:
            held = "recording" if self.mode is ViewMode.REPLAY else "history"
            return f"STALE: {units.duration(gap)} gap in the {held}"
        if frame is not None and frame.stale:
            return f"{ALERT_WORDS.get(frame.failure or '', 'STALE')} (recorded)"
        return None

    def _status_tick(self) -> None:
        """Four times a second: of what the status bar shows, only the alert moves with the clock
        (a silent feed, how long since good data); everything else comes with a frame or a state
        change, whose handlers redraw it. So the bar is rebuilt only when the alert changed."""
        if self.alert(time.monotonic()) != self.status_bar.state.alert:
            self.update_status()

    def update_status(self) -> None:
        if not hasattr(self, "status_bar"):
            return
        frame, replay = self.frame, self.replay
        # A failed poll knows only the address: keep naming the server the last good frame saw.
        shown = self.good_frame if frame is not None and frame.stale and self.good_frame is not None else frame
        server = shown.server if shown is not None else None
        self.status_bar.show(StatusState(
            mode=self.mode, address=(server.address if server else None) or self.address,
            flavor=server.flavor if server else None, version=server.version if server else None,
            uptime_s=frame.server.uptime_s if frame is not None else None, paused=self.paused, position=self.position,
            recording=self.position.recording, recording_stopped=self.position.recording_stopped,
            recording_paused=self.position.recording_paused, alert=self.alert(time.monotonic()),
            poll_s=shown.poll_s if shown is not None else None, late_s=shown.late_s if shown is not None else None,
            capped=tuple(dict.fromkeys(c.statement for c in frame.capped_reads)) if frame is not None else (),
            source=self.source_name or (replay.server if replay else None),
            clock=shown.time if shown is not None else None,
            server_clock=shown.server.time if shown is not None else None))

    # -- keys -----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        key = next((k for k in KEYS if k.action.split("(")[0] == action), None)
        return key is None or applies(key, self.mode)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            # built once and kept (installed): each `?` then only shows it again
            if not self.is_screen_installed("help"):
                self.install_screen(HelpScreen(self.mode.value, [p.TITLE for p in PANES], keys_for(self.mode)),
                                    "help")
            self.push_screen("help")

    def action_pause(self) -> None:
        """Replay: play / pause. Live: pause in the history / back to live. The feed confirms
        with the frame it shows; the status bar says so at once."""
        self.paused = not self.paused
        self.position = replace(self.position, playing=not self.paused)
        self.feed.send(Play(not self.paused))

    def action_to_end(self) -> None:
        self.feed.send(ToEnd())

    def action_finding(self, direction: int) -> None:
        self.feed.send(NextFinding(direction))

    def action_interval(self, direction: int) -> None:
        new = step_choice(INTERVALS, self.position.interval or 1.0, direction)
        self.position = replace(self.position, interval=new)
        self.feed.send(SetInterval(new))
        self.say(f"polling every {units.duration(new)}", timeout=2)

    def action_zoom(self, number: int) -> None:
        self.zoomed = None if self.zoomed == number else number

    def action_unzoom(self) -> None:
        self.zoomed = None

    def action_deadlocks(self) -> None:
        if not isinstance(self.screen, DeadlockScreen):
            self.push_screen(DeadlockScreen(self.good_frame or self.frame, *self._deadlocks()))

    def action_setup_notes(self) -> None:
        if not isinstance(self.screen, SetupNotesScreen):
            self.push_screen(SetupNotesScreen(setup_notes(self.notes, self.good_frame or self.frame)))

    def action_load(self) -> None:
        if not isinstance(self.screen, LoadScreen):
            self.push_screen(LoadScreen(self.good_frame or self.frame, self.trend))

    def action_kill_line(self) -> None:
        copy_kill_line(self, self.frame, holders_key(self.mode))

    def action_lock_holders(self) -> None:
        flavor = self.frame.server.flavor if self.frame is not None else None
        self.push_screen(LockHoldersScreen(*lock_holders_statement(flavor)),
                         lambda yes: self.feed.send(ListLockHolders()) if yes else None)

    def action_record(self) -> None:
        self.feed.send(ToggleRecord())

    def action_step(self, n: int) -> None:
        self.paused = True
        self.position = replace(self.position, playing=False)
        self.feed.send(Step(n))

    def action_jump(self, seconds: float) -> None:
        self.feed.send(Jump(seconds))

    def action_speed(self, direction: int) -> None:
        self.feed.send(Speed(direction))

    def action_bookmark(self) -> None:
        self.feed.send(NextBookmark())

    def action_goto(self) -> None:
        self.push_screen(GotoScreen(), self.goto)

    def goto(self, text: str | None) -> None:
        span = (self.replay.start, self.replay.end) if self.replay is not None else self.position.span
        if not text or span is None or self.parse_when is None:
            return
        start, end = span
        try:
            t = self.parse_when(text, start, end)
        except Exception as exc:   # a mistyped time: say why, keep the view where it is
            self.say(f"cannot go to {text!r}: {getattr(exc, 'message', exc)}", "warning", 5)
            return
        interval = (self.replay.interval if self.replay is not None else self.position.interval) or 1.0
        held = ("recording" if self.mode is ViewMode.REPLAY else "history in memory and the recording"
                if self.position.history_recorded else "history held in memory")
        outside = _outside(t, start, end, interval, held)
        if outside:
            self.say(f"{text} is {outside}", "warning", 5)
        self.feed.send(SeekTime(t))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for k in keys_for(self.mode):
            if k.action.startswith("app."):
                continue
            action = "zoom(1)" if k.action.startswith("zoom(") else k.action
            yield SystemCommand(k.help.capitalize(), f"key: {k.show}", _runner(self, action))


def _outside(t: float, start: float, end: float, interval: float, what: str) -> str | None:
    """Why a goto target is not in the recording or the live history held (it lands on the
    nearest end), or None."""
    from datetime import datetime

    def clock(x: float) -> str:
        return datetime.fromtimestamp(x).strftime("%H:%M:%S")

    if t < start - interval:
        return f"before the {what} (it starts at {clock(start)}): showing its first sample"
    if t > end + interval:
        return f"after the {what} (it ends at {clock(end)}): showing its last sample"
    return None


def _runner(app: App[Any], action: str) -> Callable[[], Any]:
    return lambda: app.run_action(action)


