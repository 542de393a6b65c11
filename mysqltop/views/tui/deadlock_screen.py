"""The `d` key: the latest deadlock as a story (who held what, who waited for what, the victim)
and the timeline's deadlocks up to the moment shown, grouped by pattern with their counts and first
and last times, and the server's count against those captured.

The list is the feed's DeadlockHistory looked up at the moment (timeline/deadlock_history): live,
the whole session, folded as each frame is made; paused in the history, the session up to the
sample shown; replaying, the recording from its first sample up to it, read in the feed thread
once — until that reading has got there, one line says how far it is, and the view fills in as
it goes. The story is always the moment's own frame. Every line comes from views/deadlocks_text
(controls made visible) and is put in a Text, never read as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Static

from mysqltop.core.deadlocks import summarise
from mysqltop.core.frame import Frame
from mysqltop.core.safe_text import visible
from mysqltop.timeline.deadlock_history import DeadlocksAt
from mysqltop.views import deadlocks_text as dt
from mysqltop.views.tui.feed_events import DeadlocksRead
from mysqltop.views.tui.position import Position, ViewMode

PATTERNS = 8           # patterns listed, most frequent first
LISTED = 20            # single deadlocks listed, newest first


def _span(position: Position) -> str:
    if position.live:
        return "this session"
    held = "the recording" if position.mode is ViewMode.REPLAY else "this session"
    return f"{held} up to the moment shown"


def deadlock_text(frame: Frame | None, width: int, position: Position, deadlocks: DeadlocksAt | None,
                  read: DeadlocksRead | None = None) -> Text:
    out = Text()

    def line(s: str, style: str = "") -> None:
        out.append(s + "\n", style=style)        # the Static wraps long lines at words

    d = frame.deadlock if frame is not None else None
    if d is None:
        line("the server shows no deadlock (none since it started, or its InnoDB status was not read)", "dim")
    else:
        line("LATEST DEADLOCK", "bold")
        for s in dt.story(d):
            line(s, "bold red" if "ROLLED BACK" in s or s.startswith("the server rolled") else "")
    line("")
    span = _span(position)
    if deadlocks is None and position.mode is ViewMode.REPLAY:
        got = f" ({read.read:,} of {read.total:,} samples read)" if read is not None else ""
        line(f"DEADLOCKS OF {span.upper()}: reading the recording from its first sample{got}; "
             "the list follows", "bold")
        return out
    if deadlocks is None:
        line(f"DEADLOCKS OF {span.upper()}: no sample yet", "bold")
        return out
    book = deadlocks.book
    line(f"DEADLOCKS {span.upper()} ({deadlocks.samples} SAMPLES SINCE {dt.clock(deadlocks.since)} UTC): "
         f"{book.counts_line()}", "bold")
    for i, p in enumerate(summarise(book, PATTERNS).patterns, 1):
        line(visible(dt.pattern_line(i, p)))
        for fix in p.fixes[:2]:
            line(f"   fix: {fix}", "dim")
    seen = [(s.seen, s.deadlock, s.prior) for s in book.seen[-LISTED:]]
    if seen:
        hidden = len(book.seen) + book.dropped - len(seen)
        line("")
        line("each one, newest first (\"before\": already shown at the first sample)"
             + (f": the newest {len(seen)}, {hidden:,} older not shown" if hidden else ""), "bold")
        for s in dt.list_lines(seen, width):
            line(s)
    elif book.dropped:
        line("")
        line(f"each one: {book.dropped:,} not listed at this moment (the list keeps the session's newest few "
             "hundred; the patterns above count them all)", "bold")
    return out


class DeadlockScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,d", "app.pop_screen", "close", show=False)]

    def __init__(self, frame: Frame | None, position: Position, deadlocks: DeadlocksAt | None,
                 read: DeadlocksRead | None = None) -> None:
        super().__init__(id="deadlocks")
        self.first = (frame, position, deadlocks, read)

    def on_mount(self) -> None:
        self.show(*self.first)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="deadlock-box"):
            yield Static(Text("Deadlocks  (d, esc or q closes)", style="bold"), id="deadlock-title")
            yield Static(Text(""), id="deadlock-body")

    def show(self, frame: Frame | None, position: Position, deadlocks: DeadlocksAt | None,
             read: DeadlocksRead | None = None) -> None:
        self.first = (frame, position, deadlocks, read)
        try:
            body = self.query_one("#deadlock-body", Static)
        except NoMatches:           # pushed, not composed yet: on_mount shows the latest
            return
        body.update(deadlock_text(frame, max(20, self.app.size.width - 6), position, deadlocks, read))
