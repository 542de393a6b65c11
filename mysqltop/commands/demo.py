"""`mysqltop demo [NAME]`: replay an incident of the gallery (or the older bundled one), no server needed.

The default is the row-lock pile-up behind an idle transaction: the locks pane and the stall
finding are the flagship view, and it starts where the finding is first on screen.

The gallery is recordings/ at the repository root (recordings/README.md); the package carries it
whole as mysqltop/data/gallery (a symlink to recordings/ in the checkout, files in the wheel):
seven incidents of a few minutes are ~1.2 MB, less than a download step would cost a new user.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mysqltop.core.pacing import DEFAULT_SPEED

HELP = "TUI replay of a bundled incident recording (no server needed); --list names them"
NAME = "incident.mtrec"
INCIDENT_NAME = "incident"          # the oldest recording: recorded before lock-wait capture
DEFAULT = "row-lock-idle-trx"       # a gallery incident that shows the lock tree and the stall finding


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", metavar="NAME", help=f"which incident (default {DEFAULT}; see --list)")
    p.add_argument("--list", action="store_true", help="list the bundled incidents and exit")
    p.add_argument("--speed", type=float, default=DEFAULT_SPEED, help=f"playback speed (default {DEFAULT_SPEED:g})")
    p.add_argument("--start", metavar="WHEN", help="ISO time, HH:MM[:SS], -10m (from end), +5m (from start)")
    p.add_argument("--path", action="store_true",
                   help="print where the recording is and exit, e.g. for "
                        "`mysqltop report $(mysqltop demo ahi-latch --path)`")


DATA = Path(__file__).resolve().parents[1] / "data"            # package data (pyproject.toml)
INCIDENT = DATA / NAME
GALLERY = DATA / "gallery"


def find_incident() -> Path | None:
    return INCIDENT if INCIDENT.is_file() else None


def gallery() -> dict[str, dict[str, object]]:
    """name → its entry in gallery.json (title, finding, onset_s, samples), files present only."""
    try:
        entries = json.loads((GALLERY / "gallery.json").read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(entries, dict):
        return {}
    return {str(k): v for k, v in entries.items()
            if isinstance(v, dict) and (GALLERY / f"{k}.mtrec").is_file()}


def incidents() -> dict[str, tuple[Path, str]]:
    """Every bundled incident: name → (file, one-line description)."""
    out: dict[str, tuple[Path, str]] = {}
    if INCIDENT.is_file():
        out[INCIDENT_NAME] = (INCIDENT, "contention storm: row locks, a tiny buffer pool and a small redo log at once "
                                  "(recorded before lock-wait capture)")
    for name, entry in gallery().items():
        out[name] = (GALLERY / f"{name}.mtrec", str(entry.get("title") or ""))
    return out


def run(args: argparse.Namespace) -> int:
    from mysqltop.views.tui.replay_app import replay_tui
    from mysqltop.errors import UserError

    known = incidents()
    if args.list:
        width = max((len(n) for n in known), default=8)
        for name, (_path, title) in known.items():
            print(f"{name:{width}}  {title}{'  (the default)' if name == DEFAULT else ''}")
        return 0
    name = args.name or DEFAULT
    if name not in known:
        if name in (DEFAULT, INCIDENT_NAME):
            expected = INCIDENT if name == INCIDENT_NAME else GALLERY / f"{name}.mtrec"
            raise UserError(f"the bundled incident recording is missing (expected {expected}); reinstall mysqltop", 1)
        raise UserError(f"no bundled incident named {name!r} (`mysqltop demo --list` names them: "
                        f"{', '.join(known) or 'none installed'})", 2)
    path = known[name][0]
    if args.path:
        print(path)
        return 0
    label = NAME if name == INCIDENT_NAME else f"{name}.mtrec"
    start = args.start or opening(name, path, at_finding=args.name is None)
    return replay_tui(str(path), start=start, speed=args.speed, name=f"demo: {label}", command="demo")


def opening(name: str, path: Path, *, at_finding: bool) -> str | None:
    """Where the demo of `name` starts: `demo` alone where the incident's finding is on screen
    (a first look shows the point at once); `demo NAME` shortly before the onset bookmark, to
    watch it build up (the README's walk-through)."""
    finding = gallery().get(name, {}).get("finding") if at_finding else None
    return (finding_start(path, str(finding)) if finding else None) or lead_in(path)


def lead_in(path: Path, seconds: float = 30.0) -> str | None:
    """Start the demo shortly before the first bookmark (the incident), not at quiet minute one."""
    from mysqltop.views.tui.replay_app import open_recording

    reader = open_recording(str(path))
    try:
        marks = reader.bookmarks
        return f"@{max(reader.time_at(0), marks[0].time - seconds):.3f}" if marks else None
    finally:
        reader.close()


def finding_start(path: Path, finding: str, tries: int = 120) -> str | None:
    """The first moment after the onset bookmark at which a replay started there shows `finding`
    (a rule id) on its first screen; None when none does within `tries` samples."""
    from mysqltop.timeline.cursor import Cursor
    from mysqltop.views.tui.replay_app import open_recording

    reader = open_recording(str(path))
    try:
        marks = reader.bookmarks
        lo = reader.index_at(marks[0].time) if marks else 0
        for i in range(lo, min(len(reader), lo + tries)):
            # judged from i on, as the replay TUI started at i judges (Cursor floor)
            if reader.time_or_none(i) is not None and any(
                    a.id == finding for a in Cursor(reader, floor=i).frame_at(i).advice):
                return f"@{reader.time_at(i)!r}"     # exact: a rounded time seeks the sample before
        return None
    finally:
        reader.close()
