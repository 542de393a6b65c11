"""The `d` key: the latest deadlock as a story (who held what, who waited for what, the victim)
and the session's deadlocks, grouped by pattern.

Live and following, the list is the whole session's: the feed folds every frame as it makes it
(session_deadlocks). Paused in the history or replaying, it is folded from the frames the
timeline hands the App for its charts (the last browse.TREND samples up to the moment shown), so
it lists what that stretch holds; the story is always the moment's own frame. Every line comes from
views/deadlocks_text (controls made visible) and is put in a Text, never read as markup.
"""

from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from mysqltop.core.deadlocks import DeadlockBook, fixes, summary
from mysqltop.core.frame import Frame
from mysqltop.core.safe_text import visible
from mysqltop.views import deadlocks_text as dt
from mysqltop.views.tui.session_deadlocks import SessionDeadlocks


def deadlock_text(frame: Frame | None, trend: Sequence[Frame], width: int,
                  session: SessionDeadlocks | None = None) -> Text:
    book = session.book if session is not None else DeadlockBook.of(trend)
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
    span = (f"this session ({session.samples} samples since {dt.clock(session.since)})" if session is not None
            else f"in the last {len(trend)} samples" if trend else "on screen")
    line("")
    line(f"DEADLOCKS {span.upper()}: {book.counts_line()}", "bold")
    for i, p in enumerate(book.ranked()[:8], 1):
        line(visible(f"{i}. {p.count}× {summary(p.example)}"))
        for fix in fixes(p.example)[:2]:
            line(f"   fix: {fix}", "dim")
    seen = [(s.seen, s.deadlock, s.prior) for s in book.seen]
    if seen:
        line("")
        line("each one, newest first (\"before\": already shown when this stretch starts)", "bold")
        for s in dt.list_lines(seen[-20:], width):
            line(s)
    return out


class DeadlockScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,d", "app.pop_screen", "close", show=False)]

    def __init__(self, frame: Frame | None, trend: Sequence[Frame], session: SessionDeadlocks | None = None) -> None:
        super().__init__(id="deadlocks")
        self.first = (frame, trend, session)

    def on_mount(self) -> None:
        self.show(*self.first)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="deadlock-box"):
            yield Static(Text("Deadlocks  (d, esc or q closes)", style="bold"), id="deadlock-title")
            yield Static(Text(""), id="deadlock-body")

    def show(self, frame: Frame | None, trend: Sequence[Frame], session: SessionDeadlocks | None = None) -> None:
        width = max(20, self.app.size.width - 6)
        self.query_one("#deadlock-body", Static).update(deadlock_text(frame, trend, width, session))
