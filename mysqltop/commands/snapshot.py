"""`mysqltop snapshot`: headless frames as text, JSON lines, CSV or OpenMetrics."""

from __future__ import annotations

import argparse

from mysqltop.config import add_connection_arguments

HELP = "print frames headless (text, json, csv, openmetrics) from a server or a recording"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    p.add_argument("--replay", metavar="FILE", help="derive frames from a recording instead of a server")
    p.add_argument("--start", metavar="WHEN", help="with --replay: first sample time")
    p.add_argument("--end", metavar="WHEN", help="with --replay: last sample time")
    p.add_argument("--count", type=int, metavar="N", help="number of frames (live default 2)")
    p.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    p.add_argument("--format", choices=("text", "json", "csv", "openmetrics"), default="text")


def run(args: argparse.Namespace) -> int:
    from mysqltop.errors import UserError

    raise UserError("snapshot is not built yet", 1)
