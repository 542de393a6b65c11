"""`mysqltop record FILE [CONN]`: headless recording of raw samples."""

from __future__ import annotations

import argparse

from mysqltop.config import add_connection_arguments

HELP = "record raw samples to FILE with no TUI (cron, incident scripts)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="recording file to create or append to")
    add_connection_arguments(p)
    p.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    stop = p.add_mutually_exclusive_group()
    stop.add_argument("--duration", metavar="D", help="stop after D (e.g. 90s, 10m, 2h)")
    stop.add_argument("--count", type=int, metavar="N", help="stop after N samples")
    p.add_argument("--redact", action="store_true", help="strip SQL text from stored status output")


def run(args: argparse.Namespace) -> int:
    from mysqltop.errors import UserError

    raise UserError("record is not built yet", 1)
