"""`mysqltop [CONN]`: the live TUI."""

from __future__ import annotations

import argparse

from mysqltop.config import add_connection_arguments

HELP = "live TUI against a server (the default command)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    p.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    p.add_argument("--record", metavar="FILE", help="also record raw samples to FILE")


def run(args: argparse.Namespace) -> int:
    from mysqltop.errors import UserError

    raise UserError("the live TUI is not built yet; try `mysqltop snapshot`", 1)
