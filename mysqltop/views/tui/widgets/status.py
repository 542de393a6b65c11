"""The one-line status bar: where, what, which mode and whether the data is fresh."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rich.text import Text
from textual.widgets import Static

from mysqltop.core import units
from mysqltop.views.tui.messages import Position
from mysqltop.views.tui.widgets.render import DIM, HOT, OK, WARM

SEP = " │ "


@dataclass(frozen=True)
class StatusState:
    mode: str = "live"                  # live | replay
    address: str | None = None
    flavor: str | None = None
    version: str | None = None
    uptime_s: float | None = None
    paused: bool = False
    position: Position | None = None
    recording: str | None = None
    alert: str | None = None            # "STALE 12s", "DISCONNECTED 40s", "waiting for first sample"
    source: str | None = None           # replay: the file name


def short_version(version: str | None) -> str | None:
    return version.split("-")[0] if version else None


def segments(s: StatusState) -> list[tuple[int, Text]]:
    """(priority, text) in display order; higher priority survives on narrow screens."""
    p = s.position
    out: list[tuple[int, Text]] = []
    if s.mode == "replay" and s.source:
        out.append((3, Text(s.source, style=DIM)))
    if s.address:
        out.append((6, Text(s.address, style="bold")))
    ident = " ".join(x for x in (s.flavor, short_version(s.version)) if x)
    if ident:
        out.append((5, Text(ident)))
    if s.uptime_s is not None:
        out.append((2, Text(f"up {units.duration(s.uptime_s)}")))
    if s.mode == "live":
        out.append((7, Text(f"every {units.duration(p.interval if p else None)}")))
        badge = ("PAUSED", WARM) if s.paused else ("LIVE", OK)
        out.append((10, Text(badge[0], style=f"bold reverse {badge[1]}")))
    else:
        playing = bool(p and p.playing and not p.ended)
        state = "END" if p and p.ended else "▶" if playing else "PAUSED"
        speed = f" ×{p.speed:g}" if p else ""
        out.append((10, Text(f"REPLAY {state}{speed}", style=f"bold reverse {OK if playing else WARM}")))
        if p and p.sample_time is not None:
            when = datetime.fromtimestamp(p.sample_time).strftime("%H:%M:%S")
            out.append((9, Text(f"{when} {p.index + 1 if p.index is not None else '?'}/{p.count}")))
    if s.recording:
        out.append((9, Text("● REC", style=f"bold {HOT}")))
    if s.alert:
        out.append((10, Text(s.alert, style=f"bold reverse {HOT}")))
    return out


def status_line(s: StatusState, width: int) -> Text:
    segs = segments(s)

    def length(items: list[tuple[int, Text]]) -> int:
        return sum(len(t) for _, t in items) + len(SEP) * max(0, len(items) - 1)

    while len(segs) > 1 and length(segs) > width:
        victim = min(range(len(segs)), key=lambda i: (segs[i][0], -i))
        segs.pop(victim)
    line = Text(no_wrap=True, overflow="ellipsis")
    for n, (_, t) in enumerate(segs):
        if n:
            line.append(SEP, style=DIM)
        line.append_text(t)
    return line


class StatusBar(Static):
    def __init__(self) -> None:
        super().__init__("", id="status", markup=False)
        self.state = StatusState()
        self._shown: Text | None = None

    def show(self, state: StatusState) -> None:
        self.state = state
        self._redraw()

    def _redraw(self) -> None:
        line = status_line(self.state, max(20, self.size.width or 80))
        if self._shown is None or line.plain != self._shown.plain:   # repaint only on change
            self._shown = line
            self.update(line)

    def on_resize(self) -> None:
        self._shown = None
        self._redraw()
