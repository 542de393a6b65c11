"""The one table of keys: it feeds the bindings, the `?` help screen and the command palette."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType

from mysqltop.views.tui.position import ViewMode

LIVE, REPLAY = ViewMode.LIVE, ViewMode.REPLAY


@dataclass(frozen=True)
class Key:
    keys: str          # Textual key names, comma-separated
    show: str          # how the help screen and footer print it
    action: str
    help: str
    mode: ViewMode | None = None   # the timeline it applies to (None: both)
    footer: bool = False
    label: str = ""    # short footer text (defaults to the help text)
    priority: bool = False   # before the focused pane's own binding of the key (a pane scrolls on end)


# It changes the live server: a replay has no server to change.
LOCK_HOLDERS = Key("m", "m", "lock_holders", "show the statement that makes the server list lock holders; run it "
                   "on y", LIVE)

KEYS: tuple[Key, ...] = (
    Key("question_mark", "?", "help", "show this help", footer=True, label="help"),
    Key("q,ctrl+c", "q", "quit", "quit (ctrl+c too)", footer=True, label="quit"),
    Key("p,space", "p space", "pause", "pause (live: step back through the last hour; p again: live) / "
        "play", footer=True, label="pause"),
    Key("plus,equals_sign", "+", "interval(1)", "poll less often (longer interval)", LIVE, label="slower"),
    Key("minus", "-", "interval(-1)", "poll more often (shorter interval)", LIVE, label="faster"),
    *(Key(str(n), "1…7" if n == 1 else str(n), f"zoom({n})", "zoom pane N, same key or esc to go back",
          footer=(n == 1), label="zoom") for n in range(1, 8)),
    Key("k", "k", "kill_line", "show and copy KILL <id> for the hottest lock blocker (never run by mysqltop)",
        footer=True, label="kill line"),
    LOCK_HOLDERS,
    Key("escape", "esc", "unzoom", "back from a zoomed pane"),
    Key("tab", "tab", "app.focus_next", "move focus to the next pane (shift+tab: previous)"),
    Key("r", "r", "record", "start / stop recording to mysqltop-<time>.mtrec", LIVE, footer=True,
        label="rec"),
    Key("left", "←", "step(-1)", "one sample back", footer=True, label="back"),
    Key("right", "→", "step(1)", "one sample forward"),
    Key("left_square_bracket", "[", "finding(-1)", "back to where the previous finding started"),
    Key("right_square_bracket", "]", "finding(1)", "on to where the next finding starts"),
    Key("left_curly_bracket,shift+left", "{", "jump(-60)", "jump a minute back (shift+← too)"),
    Key("right_curly_bracket,shift+right", "}", "jump(60)", "jump a minute forward (shift+→ too)"),
    Key("g", "g", "goto", "go to a time (14:05, -10m, +5m, ISO)"),
    Key("end", "end", "to_end", "live: back to live; replay: the last sample", priority=True),
    Key("less_than_sign", "<", "speed(-1)", "play slower", REPLAY),
    Key("greater_than_sign", ">", "speed(1)", "play faster", REPLAY),
    Key("b", "b", "bookmark", "next bookmark", REPLAY, footer=True, label="mark"),
    Key("d", "d", "deadlocks", "deadlocks: the latest as a story; the session's or the recording's up to the "
        "moment shown, by pattern", label="deadlocks"),
    Key("w", "w", "load", "load by wait class: active sessions stacked against the cores", label="load"),
    Key("i", "i", "setup_notes", "setup notes whole: what the server does not offer mysqltop (instruments off, "
        "a privilege missing) and the fix; the panes give each one line", label="setup"),
)


def bindings() -> list[BindingType]:
    out: list[BindingType] = []
    for k in KEYS:
        if k.action == "app.focus_next":
            continue  # Textual's own tab / shift+tab focus chain; listed for the help screen only
        out.append(Binding(k.keys, k.action, k.label or k.help, show=k.footer,
                           key_display=k.show.split()[0], priority=k.priority))
    return out


def applies(key: Key, mode: ViewMode) -> bool:
    return key.mode is None or key.mode is mode


def holders_key(mode: ViewMode) -> Key | None:
    """The key that makes the server list lock holders in this mode (None: there is none)."""
    return LOCK_HOLDERS if applies(LOCK_HOLDERS, mode) else None


def keys_for(mode: ViewMode) -> list[Key]:
    """Keys that apply in this mode, for the help screen and the palette (one entry per zoom)."""
    return [k for k in KEYS if applies(k, mode) and not (k.action.startswith("zoom(") and k.show != "1…7")]


def fleet_drill_keys() -> list[Key]:
    """The keys of the fleet's drill-down into one server (help and palette): the live view's help,
    zoom and kill-line keys, and esc back to the overview."""
    picked = [k for k in KEYS if k.action in ("help", "quit", "kill_line") or (k.action.startswith("zoom(")
                                                                             and k.show == "1…7")]
    return [*picked, Key("escape", "esc", "back", "back from a zoomed pane, then to the overview")]
