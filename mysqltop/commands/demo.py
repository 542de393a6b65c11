"""`mysqltop demo [NAME]`: replay the bundled incident or one of the gallery's, no server needed.

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
DEFAULT = "incident"


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
        out[DEFAULT] = (INCIDENT, "contention storm: row locks, a tiny buffer pool and a small redo log at once "
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
            print(f"{name:{width}}  {title}")
        return 0
    name = args.name or DEFAULT
    if name not in known:
        if name == DEFAULT:
            raise UserError(f"the bundled incident recording is missing (expected {INCIDENT}); reinstall mysqltop", 1)
        raise UserError(f"no bundled incident named {name!r} (`mysqltop demo --list` names them: "
                        f"{', '.join(known) or 'none installed'})", 2)
    path = known[name][0]
    if args.path:
        print(path)
        return 0
    label = NAME if name == DEFAULT else f"{name}.mtrec"
    return replay_tui(str(path), start=args.start or lead_in(path), speed=args.speed, name=f"demo: {label}",
                      command="demo")


def lead_in(path: Path, seconds: float = 30.0) -> str | None:
    """Start the demo shortly before the first bookmark (the incident), not at quiet minute one."""
    from mysqltop.views.tui.replay_app import open_recording

    reader = open_recording(str(path))
    try:
        marks = reader.bookmarks
        return f"@{max(reader.time_at(0), marks[0].time - seconds):.3f}" if marks else None
    finally:
        reader.close()
