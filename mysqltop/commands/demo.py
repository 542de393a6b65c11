"""`mysqltop demo`: replay the bundled incident, no server needed."""

from __future__ import annotations

import argparse
from pathlib import Path

from mysqltop.core.pacing import DEFAULT_SPEED

HELP = "TUI replay of the bundled incident recording (no server needed)"
NAME = "incident.mtrec"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--speed", type=float, default=DEFAULT_SPEED, help=f"playback speed (default {DEFAULT_SPEED:g})")
    p.add_argument("--start", metavar="WHEN", help="ISO time, HH:MM[:SS], -10m (from end), +5m (from start)")
    p.add_argument("--path", action="store_true",
                   help="print where the bundled recording is and exit, e.g. for "
                        "`mysqltop report $(mysqltop demo --path)`")


INCIDENT = Path(__file__).resolve().parents[1] / "data" / NAME     # package data (pyproject.toml)


def find_incident() -> Path | None:
    return INCIDENT if INCIDENT.is_file() else None


def run(args: argparse.Namespace) -> int:
    from mysqltop.views.tui.replay_app import replay_tui
    from mysqltop.errors import UserError

    path = find_incident()
    if path is None:
        raise UserError(f"the bundled incident recording is missing (expected {INCIDENT}); "
                        "reinstall mysqltop", 1)
    if args.path:
        print(path)
        return 0
    return replay_tui(str(path), start=args.start or lead_in(path), speed=args.speed, name=f"demo: {NAME}",
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
