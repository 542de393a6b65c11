"""`mysqltop replay FILE`: the TUI over a recording."""

from __future__ import annotations

import argparse

from mysqltop.core.pacing import DEFAULT_SPEED

HELP = "TUI replay of a recording: pause, step, seek, speed"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="recording made by `mysqltop record` or --record")
    p.add_argument("--start", metavar="WHEN", help="ISO time, HH:MM[:SS], -10m (from end), +5m (from start)")
    p.add_argument("--speed", type=float, default=DEFAULT_SPEED, help=f"playback speed (default {DEFAULT_SPEED:g})")


def run(args: argparse.Namespace) -> int:
    from mysqltop.views.tui.replay_app import replay_tui

    return replay_tui(args.file, start=args.start, speed=args.speed)
