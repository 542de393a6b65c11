"""`mysqltop demo`: replay the bundled incident, no server needed."""

from __future__ import annotations

import argparse

HELP = "TUI replay of the bundled incident recording (no server needed)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--speed", type=float, default=1.0, help="playback speed (default 1)")


def run(args: argparse.Namespace) -> int:
    from mysqltop.errors import UserError

    raise UserError("demo is not built yet", 1)
