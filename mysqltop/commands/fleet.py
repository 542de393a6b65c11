"""`mysqltop -h db1,db2:3307,db3` (or --hosts-file, or hosts= in [mysqltop]): the fleet overview.

Reached from the live command when a host list is given; `--record DIR` records each server into
DIR/HOST_PORT.mtrec.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mysqltop.sources.fleet import Host


def add_fleet_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hosts-file", metavar="FILE",
                        help="servers to watch, one host[:port] per line (also -h db1,db2:3307 "
                             "or hosts= in the [mysqltop] option-file section)")


def record_dir(path: str) -> str:
    """--record in a fleet names a directory (made when its parent exists): one file per server."""
    import os
    from pathlib import Path

    from mysqltop.errors import UserError

    d = Path(path).expanduser()
    if d.exists() and not d.is_dir():
        raise UserError(f"--record {path}: with several servers --record names a directory "
                        "(one file per server), and this is a file")
    if not d.exists():
        if not d.parent.is_dir():
            raise UserError(f"--record {path}: directory {d.parent} does not exist")
        try:
            d.mkdir()
        except OSError as exc:
            raise UserError(f"--record {path}: cannot create it: {exc.strerror or exc}") from None
    if not os.access(d, os.W_OK):
        raise UserError(f"--record {path}: directory is not writable")
    return str(d)


def run_fleet(args: argparse.Namespace, hosts: "list[Host]") -> int:
    from mysqltop.core.pacing import check_interval
    from mysqltop.views.terminal import check_terminal
    from mysqltop.sources.fleet import member_options, open_fleet

    check_interval(args.interval)
    directory = record_dir(args.record) if args.record else None
    check_terminal("")
    members = open_fleet(member_options(args, hosts), args.interval,
                         enable_instruments=bool(getattr(args, "enable_instruments", False)))

    from mysqltop.recording.writer import RecordingWriter
    from mysqltop.views.fleet_poll import FleetPoller
    from mysqltop.views.tui.fleet import FleetApp

    poller = FleetPoller(members, args.interval, record_dir=directory,
                         open_recorder=lambda path: RecordingWriter(path, interval=args.interval))
    notes = tuple(f"{m.name}: {note}" for m in members for note in m.notes)
    notes += tuple(f"{m.name}: {m.error} (retrying)" for m in members if m.error)
    notes += tuple(f"{s.name}: {s.recording_error}" for s in poller.states() if s.recording_error)
    FleetApp(poller, args.interval, notes=notes).run()
    return 0
