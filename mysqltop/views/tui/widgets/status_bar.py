"""The one-line status bar: where, what, which mode, the clock of the data and whether it is fresh.

Every name in it (address, version string, recording file, error words) may come from a hostile
server or file: shown through `visible()`, as plain Text (never markup)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rich.style import Style
from rich.text import Text

from mysqltop.core import units
from mysqltop.core.safe_text import visible
from mysqltop.views.tui.position import Position, ViewMode
from mysqltop.views.tui.widgets.lines import Lines
from mysqltop.views.tui.widgets.render import DEFAULT_PALETTE, Palette, StyleType
from mysqltop.views.tui.widgets.themed import component_classes, follow_theme

SEP = " │ "


@dataclass(frozen=True)
class StatusState:
    mode: ViewMode = ViewMode.LIVE
    address: str | None = None
    flavor: str | None = None
    version: str | None = None
    uptime_s: float | None = None
    paused: bool = False
    position: Position | None = None
    recording: str | None = None
    recording_stopped: str | None = None
    recording_paused: str | None = None   # recording waits for space (it resumes by itself)
    alert: str | None = None            # "STALE 12s", "DISCONNECTED 40s", "waiting for first sample"
    source: str | None = None           # replay: the file name
    clock: float | None = None          # epoch of the sample on screen (live: when it was polled)
    server_clock: float | None = None   # live: the server's own clock at that poll, when read
    poll_s: float | None = None         # how long the poll behind it took
    late_s: float | None = None         # … and how much longer than the interval, when it was late
    capped: tuple[str, ...] = ()        # reads of that poll a server-side bound cut, or skipped while it backs off


def short_version(version: str | None) -> str | None:
    return version.split("-")[0] if version else None


_BADGE = Style(bold=True, reverse=True)


def _badge(style: StyleType) -> Style:
    return _BADGE + (Style.parse(style) if isinstance(style, str) else style)


def segments(s: StatusState, palette: Palette = DEFAULT_PALETTE) -> list[tuple[int, Text]]:
    """(priority, text) in display order; higher priority survives on narrow screens."""
    p = s.position
    DIM, HOT, OK, WARM = palette.dim, palette.hot, palette.ok, palette.warm
    out: list[tuple[int, Text]] = []
    if s.mode is ViewMode.REPLAY and s.source:
        out.append((3, Text(visible(s.source), style=DIM)))
    if s.address:
        # Which endpoint answered: a socket path may be another server than the port in mind.
        where = f"socket {s.address}" if s.address.startswith("/") else s.address
        out.append((6, Text(visible(where), style=palette.strong)))
    ident = visible(" ".join(x for x in (s.flavor, short_version(s.version)) if x))
    if ident:
        out.append((5, Text(ident)))
    if s.uptime_s is not None:
        out.append((2, Text(f"up {units.duration(s.uptime_s)}")))
    if s.mode is ViewMode.LIVE:
        if s.server_clock is not None:
            out.append((4, Text(f"server {datetime.fromtimestamp(s.server_clock).strftime('%H:%M:%S')}")))
        elif s.clock is not None:
            out.append((4, Text(datetime.fromtimestamp(s.clock).strftime("%H:%M:%S"))))
        out.append((7, Text(f"every {units.duration(p.interval if p else None)}")))
        if s.paused:
            # Paused in the live history: how far behind live the moment shown is, and where.
            behind = p.behind_s if p is not None else None
            badge = "PAUSED" if not behind else f"PAUSED −{units.duration(behind)}"
            out.append((10, Text(badge, style=_badge(WARM))))
            if p is not None and p.index is not None and p.count is not None:
                held = p.count - p.first
                out.append((3, Text(f"{p.index - p.first + 1}/{held} held, end: live", style=DIM)))
        elif not s.alert:                   # with no fresh data the alert is the badge, never LIVE
            out.append((10, Text("LIVE", style=_badge(OK))))
    else:
        playing = bool(p and p.playing and not p.ended)
        state = "END" if p and p.ended else "▶" if playing else "PAUSED"
        speed = f" ×{p.speed:g}" if p else ""
        out.append((10, Text(f"REPLAY {state}{speed}", style=_badge(OK if playing else WARM))))
        if p and p.sample_time is not None:
            when = datetime.fromtimestamp(p.sample_time).strftime("%H:%M:%S")
            out.append((9, Text(f"{when} {p.index + 1 if p.index is not None else '?'}/{p.count}")))
    if s.poll_s is not None:
        poll = f"poll {units.duration(s.poll_s)}"
        if s.late_s:
            out.append((8, Text(f"{poll}, late +{units.duration(s.late_s)}", style=WARM)))
        else:
            out.append((1, Text(poll, style=DIM)))
    if s.capped:
        # a read the statement cap (or lock wait / answer size bound) cut: that part of the screen
        # is missing or older, not zero
        out.append((8, Text(visible(f"CAPPED {', '.join(s.capped)}"), style=_badge(WARM))))
    if s.recording and s.recording_paused:
        out.append((10, Text(visible(f"REC paused: {s.recording_paused}"), style=_badge(HOT))))
    elif s.recording:
        out.append((9, Text("● REC", style=HOT)))
    elif s.recording_stopped:
        out.append((10, Text(visible(f"REC stopped: {s.recording_stopped}"), style=_badge(HOT))))
    if s.alert:
        out.append((10, Text(visible(s.alert), style=_badge(HOT))))
    return out


def status_line(s: StatusState, width: int, palette: Palette = DEFAULT_PALETTE) -> Text:
    segs = segments(s, palette)

    def length(items: list[tuple[int, Text]]) -> int:
        return sum(len(t) for _, t in items) + len(SEP) * max(0, len(items) - 1)

    while len(segs) > 1 and length(segs) > width:
        victim = min(range(len(segs)), key=lambda i: (segs[i][0], -i))
        segs.pop(victim)
    line = Text(no_wrap=True, overflow="ellipsis")
    for n, (_, t) in enumerate(segs):
        if n:
            line.append(SEP, style=palette.dim)
        line.append_text(t)
    return line


class StatusBar(Lines):
    """One Lines row: redrawn only when its text changes, and cut to Strips straight from the
    Text (a Static's content pipeline cost ~2 ms per redraw, every second)."""
    COMPONENT_CLASSES = component_classes("status")

    def __init__(self) -> None:
        super().__init__(id="status")
        self.state = StatusState()
        self.palette = DEFAULT_PALETTE
        self._drawn = False

    def on_mount(self) -> None:
        follow_theme(self, "status", self._set_palette)

    def _set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self._redraw()

    @property
    def text(self) -> str:
        return self.plain

    def show(self, state: StatusState) -> None:
        if state == self.state and self._drawn:
            return                              # asked four times a second: mostly the same
        self.state = state
        self._redraw()

    def _redraw(self) -> None:
        self._drawn = True
        width = max(20, self.size.width or 80)
        line = status_line(self.state, width, self.palette)
        line.truncate(width, overflow="ellipsis")       # one segment alone may run past the width
        self.set_lines([line])

    def on_resize(self) -> None:
        self._redraw()
