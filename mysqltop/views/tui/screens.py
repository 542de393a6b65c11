"""Modal screens: the `?` key help, the `i` setup notes, the `g` go-to-time prompt and the `m`
confirmation."""

from __future__ import annotations

from typing import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from mysqltop.core.frame import Frame
from mysqltop.core.rules.instruments import SETUP_FINDINGS
from mysqltop.core.safe_text import visible
from mysqltop.views.tui.keymap import Key


def help_table(panes: Sequence[str], keys: Sequence[Key]) -> Table:
    """The keys of the screen (the timeline's, or the fleet drill-down's) and the panes."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for k in keys:
        table.add_row(k.show, k.help)
    table.add_row("", "")
    table.add_row("panes", Text("  ".join(f"{n} {t}" for n, t in enumerate(panes, 1))))
    table.add_row("mouse", "click a pane to focus it, double-click to zoom, wheel scrolls")
    table.add_row("ctrl+p", "command palette (every key above is there by name)")
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "close", show=False)]

    def __init__(self, title: str, panes: Sequence[str], keys: Sequence[Key]) -> None:
        super().__init__(id="help")
        self.title_text, self.panes, self.keys = title, panes, keys

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(Text(f"mysqltop keys ({self.title_text})", style="bold"), id="help-title")
            yield Static(help_table(self.panes, self.keys), id="help-body")
            yield Static(Text("esc, q or ? closes", style="dim"))

    def on_click(self) -> None:
        self.app.pop_screen()


def setup_notes(startup: Sequence[str], frame: Frame | None) -> list[str]:
    """What the `i` screen shows: the notes of the connect, the frame's notes on its sources, and
    the setup findings (core.rules.instruments.SETUP_FINDINGS) with their evidence."""
    notes = list(startup)
    if frame is not None:
        notes += [n for n in frame.notes if n not in notes]
        notes += [f"{a.message} (evidence: {a.evidence})" for a in frame.advice if a.id in SETUP_FINDINGS]
    return notes


class SetupNotesScreen(ModalScreen[None]):
    """The setup notes whole (what the server does not offer mysqltop, each with its fix): the
    panes give each one line. Every text may come from the server: plain Text, made visible."""

    BINDINGS = [Binding("escape,q,i", "app.pop_screen", "close", show=False)]

    def __init__(self, notes: Sequence[str]) -> None:
        super().__init__(id="setup-notes")
        self.notes = notes

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="setup-box"):
            yield Static(Text("Setup notes: what this server does not offer mysqltop, and the fix", style="bold"))
            if not self.notes:
                yield Static(Text("none: the server offers every source mysqltop reads", style="dim"))
            for note in self.notes:
                yield Static(Text(visible(note)), classes="setup-note")
            yield Static(Text("esc, q or i closes", style="dim"))

    def on_click(self) -> None:
        self.app.pop_screen()


class GotoScreen(ModalScreen[str | None]):
    """Asks for a WHEN (same forms as `--start`); dismisses with the text or None."""

    BINDINGS = [Binding("escape", "cancel", "cancel", show=False)]

    def compose(self) -> ComposeResult:
        with Vertical(id="goto-box"):
            yield Static("Go to time: HH:MM[:SS], ISO time, -10m (from end), +5m (from start)")
            yield Input(placeholder="14:05", id="goto-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class LockHoldersScreen(ModalScreen[bool]):
    """Shows the one statement that makes the server list lock holders, what it costs, and runs
    it only on a yes: dismisses with True (run) or False. Plain Text: nothing read as markup."""

    BINDINGS = [Binding("escape,n", "answer(False)", "no", show=False), Binding("y", "answer(True)", "yes", show=False)]

    def __init__(self, statement: str, cost: str) -> None:
        super().__init__(id="holders")
        self.statement, self.cost = statement, cost

    def compose(self) -> ComposeResult:
        with Vertical(id="holders-box"):
            yield Static(Text("Make the server list who holds each lock?", style="bold"))
            yield Static(Text(self.statement), id="holders-statement")
            yield Static(Text(self.cost))
            yield Static(Text("mysqltop runs it on the server now, once (y), or not (n / esc).", style="dim"))
            with Horizontal(id="holders-buttons"):
                yield Button("Run it (y)", id="holders-run", variant="warning")
                yield Button("Cancel (n)", id="holders-cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "holders-run")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
