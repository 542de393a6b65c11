"""`mysqltop parse FILE...`: parse saved SHOW ENGINE INNODB STATUS / MUTEX / P_S / status output."""

from __future__ import annotations

import argparse

HELP = "parse saved SHOW ENGINE INNODB STATUS / MUTEX, performance_schema or status output"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from mysqltop.errors import UserError

    raise UserError("parse is not built yet", 1)
