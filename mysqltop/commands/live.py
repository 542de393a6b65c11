"""`mysqltop [CONN]`: the live TUI."""

from __future__ import annotations

import argparse
from pathlib import Path

from mysqltop.arguments import add_answer_timeout, add_connection_arguments, add_fleet_arguments, fleet_flags, open_live
from mysqltop.config import FleetFlags, Host
from mysqltop.core.pacing import DEFAULT_INTERVAL

HELP = "live TUI against a server (the default command)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    p.add_argument("--interval", type=float, default=DEFAULT_INTERVAL,
                   help=f"seconds between polls (default {DEFAULT_INTERVAL:g})")
    add_answer_timeout(p)
    p.add_argument("--record", metavar="FILE", help="also record raw samples to FILE (several servers: "
                   "a directory, one file per server)")
    p.add_argument("--raise-priority", action="store_true",
                   help="run this terminal session (the shell too) at nice -10 while the TUI runs, "
                   "restored at exit; needs root or CAP_SYS_NICE (keys stay quicker on a saturated box)")
    # the old opt-out: leaving the priority alone is the default now
    p.add_argument("--keep-priority", action="store_true", help=argparse.SUPPRESS)
    add_fleet_arguments(p)


def check_record_path(path: str) -> None:
    """Fail before the screen opens, with one line, when FILE cannot be a recording (a missing or
    read-only directory, a directory, an existing file that is not a recording)."""
    from mysqltop.recording.target import check_writable
    from mysqltop.errors import UserError

    try:
        check_writable(str(Path(path).expanduser()))
    except UserError as exc:
        raise UserError(f"--record {path}: {exc.message}", exc.code) from None


def _with_demo_hint(exc: BaseException, message: str) -> str:
    """No server to talk to: a newcomer without one may want the demo. An access or privilege
    error needs the fix in the message, not a suggestion to look elsewhere."""
    from mysqltop.core.sample import Failure
    from mysqltop.sources.failure import classify

    if "demo" in message or classify(exc) not in (Failure.UNREACHABLE, Failure.TIMEOUT):
        return message
    return message.rstrip(" ;.") + "; or try `mysqltop demo` to see the TUI on a recorded incident"


def run(args: argparse.Namespace) -> int:
    from mysqltop.process.priority import raised_priority

    with raised_priority(args.raise_priority):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from mysqltop.core.pacing import check_answer_timeout, check_interval
    from mysqltop.views.terminal import check_terminal
    from mysqltop.errors import UserError

    from mysqltop.config import host_list

    fleet = fleet_flags(args)
    hosts = host_list(fleet)          # -h db1,db2 / --hosts-file / hosts=: the fleet overview
    if hosts is not None:
        return _run_fleet(args, fleet, hosts)
    check_interval(args.interval)
    check_answer_timeout(args.answer_timeout)
    if args.record:
        check_record_path(args.record)
    # No TUI without a server: connect first. Then the first poll runs in the feed's thread while
    # this one loads Textual (~0.35 s of CPU to import, as much to start), and the first poll's
    # values are drawn as text (first_look) the moment they arrive, before the App is up.
    try:
        source, caps = open_live(args, host_clock=True)
    except UserError as exc:
        raise UserError(_with_demo_hint(exc, exc.message), exc.code) from None
    try:
        check_terminal("")
    except UserError:
        source.close()
        raise

    from mysqltop.core.pacing import FIRST_GAP
    from mysqltop.core.when import parse_when
    from mysqltop.engine import Engine
    from mysqltop.timeline.polled import live_timeline
    from mysqltop.recording.pausing import PausingWriter
    from mysqltop.recording.writer import RecordingWriter
    from mysqltop.views.first_look import FirstLook
    from mysqltop.views.tui.feeds import LiveFeed
    from mysqltop.views.tui.position import ViewMode

    # The last hour of samples, in memory, for `p` / `←` (bench/history: its size).
    engine = Engine(source, live_timeline(args.interval))
    look = FirstLook(rates_in=min(FIRST_GAP, args.interval))
    feed = LiveFeed(engine, args.interval, record_path=args.record, first_look=look.show,
                    open_recorder=lambda path: PausingWriter(lambda: RecordingWriter(path, interval=feed.interval)))
    feed.begin()
    try:
        from mysqltop.views.tui.app import MysqltopApp

        app = MysqltopApp(feed, ViewMode.LIVE, address=caps.address, notes=tuple(caps.notes), parse_when=parse_when)
    except BaseException:               # Ctrl-C while loading: the normal screen back, no thread left
        look.abandon()
        feed.stop()
        raise
    look.hand_over()
    app.run()
    return 0


def _run_fleet(args: argparse.Namespace, flags: FleetFlags, hosts: list[Host]) -> int:
    """`mysqltop -h db1,db2:3307,db3` (or --hosts-file, or hosts= in [mysqltop]): the fleet
    overview; `--record DIR` records each server into DIR/HOST_PORT.mtrec."""
    from mysqltop.core.pacing import check_interval
    from mysqltop.views.terminal import check_terminal
    from mysqltop.config import fleet_options
    from mysqltop.fleet import FleetPoller, fleet_record_dir
    from mysqltop.sources.fleet_sources import open_fleet

    check_interval(args.interval)
    directory = fleet_record_dir(args.record) if args.record else None
    check_terminal("")
    fleet = fleet_options(flags, hosts)
    members = open_fleet(list(fleet.members), fleet.interval, enable_instruments=fleet.enable_instruments)

    from mysqltop.recording.pausing import PausingWriter
    from mysqltop.recording.writer import RecordingWriter
    from mysqltop.views.tui.fleet_app import FleetApp

    poller = FleetPoller(members, fleet.interval, record_dir=directory,
                         open_recorder=lambda path: PausingWriter(lambda: RecordingWriter(path, interval=fleet.interval)),
                         latch_counters=False)          # the overview exports nothing
    notes = tuple(f"{m.name}: {note}" for m in members for note in m.notes)
    notes += tuple(f"{m.name}: {m.error} (retrying)" for m in members if m.error)
    notes += tuple(f"{s.name}: {s.recording_error}" for s in poller.states() if s.recording_error)
    FleetApp(poller, fleet.interval, notes=notes).run()
    return 0
