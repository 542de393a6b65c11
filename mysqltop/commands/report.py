"""`mysqltop report FILE`: incident summary of a recording."""

from __future__ import annotations

import argparse

HELP = "incident report of a recording: timeline, hotspots, peaks, advice with evidence"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="recording")
    p.add_argument("--start", metavar="WHEN")
    p.add_argument("--end", metavar="WHEN")
    p.add_argument("--compare", nargs=2, metavar="WHEN..WHEN", help="two windows side by side")
    p.add_argument("--format", choices=("text", "json", "md"), default="text")


def run(args: argparse.Namespace) -> int:
    from mysqltop.errors import UserError

    raise UserError("report is not built yet", 1)
