"""`mysqltop [CONN]`: the live TUI."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from mysqltop.config import add_connection_arguments

HELP = "live TUI against a server (the default command)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    p.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    p.add_argument("--record", metavar="FILE", help="also record raw samples to FILE")


def check_record_path(path: str) -> None:
    """Fail before the screen opens, with one line, when FILE cannot be created."""
    from mysqltop.errors import UserError

    parent = Path(path).expanduser().resolve().parent
    if not parent.is_dir():
        raise UserError(f"--record {path}: directory {parent} does not exist", 2)
    if not os.access(parent, os.W_OK):
        raise UserError(f"--record {path}: cannot write in {parent}", 2)


def run(args: argparse.Namespace) -> int:
    from mysqltop.commands.checks import check_interval
    from mysqltop.errors import UserError

    check_interval(args.interval)
    if args.record:
        check_record_path(args.record)
    from mysqltop.sources.live import open_live_source

    try:
        source, caps = open_live_source(args)   # connects now: no TUI without a server
    except UserError as exc:
        hint = "" if "demo" in exc.message else "; try `mysqltop demo` to see the TUI on a recorded incident"
        raise UserError(exc.message + hint, exc.code) from None

    from mysqltop.core.pipeline import FramePipeline
    from mysqltop.engine import Engine
    from mysqltop.recording.writer import RecordingWriter
    from mysqltop.views.tui.app import MysqltopApp
    from mysqltop.views.tui.feeds import LiveFeed

    engine = Engine(source, FramePipeline())
    feed = LiveFeed(engine, args.interval, record_path=args.record,
                    open_recorder=lambda path: RecordingWriter(path, interval=feed.interval))
    app = MysqltopApp(feed, "live", interval=args.interval, address=caps.address, notes=tuple(caps.notes))
    app.run()
    return 0
