"""`mysqltop serve [CONN] --listen ADDR:PORT`: a Prometheus endpoint over one or many servers.

Each server is polled by its own engine thread (views/fleet_poll.py); every scrape of /metrics
reads the newest frame of each (views/prometheus.py) and never waits on a poll. The HTTP side is
prometheus_client's: it answers in the Prometheus text format or OpenMetrics, as the scraper asks.
"""

from __future__ import annotations

import argparse

from mysqltop.config import add_connection_arguments
from mysqltop.core.pacing import DEFAULT_INTERVAL

HELP = "Prometheus/OpenMetrics endpoint for one or many servers (-h db1,db2:3307 or --hosts-file)"
DEFAULT_LISTEN = "127.0.0.1:9306"
DEFAULT_TOP_LATCHES = 10        # per server; bounds the series count (the rest: latch="other")


def add_arguments(p: argparse.ArgumentParser) -> None:
    from mysqltop.commands.fleet import add_fleet_arguments
    add_connection_arguments(p)
    add_fleet_arguments(p)
    p.add_argument("--listen", metavar="ADDR:PORT", default=DEFAULT_LISTEN,
                   help=f"where /metrics answers (default {DEFAULT_LISTEN}; :PORT for every interface)")
    p.add_argument("--interval", type=float, default=DEFAULT_INTERVAL,
                   help=f"seconds between polls of each server (default {DEFAULT_INTERVAL:g})")
    p.add_argument("--top", type=int, default=DEFAULT_TOP_LATCHES, metavar="N",
                   help=f"latches exported per server, the rest summed as latch=\"other\" (default {DEFAULT_TOP_LATCHES})")
    p.add_argument("--record", metavar="DIR", help="also record each server's raw samples to DIR/HOST_PORT.mtrec")


def parse_listen(text: str) -> tuple[str, int]:
    """`127.0.0.1:9306`, `:9306` (every interface), `[::1]:9306` → (address, port)."""
    from mysqltop.errors import UserError

    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--listen {text}: give ADDR:PORT, e.g. 127.0.0.1:9306 or :9306")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    return host or "0.0.0.0", int(port)


def check_record_dir(path: str) -> str:
    import os
    from pathlib import Path

    from mysqltop.errors import UserError

    d = Path(path).expanduser()
    if not d.is_dir():
        raise UserError(f"--record {path}: not a directory (each server is recorded to a file in it)")
    if not os.access(d, os.W_OK):
        raise UserError(f"--record {path}: directory is not writable")
    return str(d)


def run(args: argparse.Namespace) -> int:
    import signal
    import sys
    import threading
    import time
    from typing import Callable

    from mysqltop.core.pacing import check_interval
    from mysqltop.errors import UserError
    from mysqltop.sources.fleet import host_list, member_options, open_fleet

    check_interval(args.interval)
    if args.top < 0:
        raise UserError("--top must be 0 or more")
    addr, port = parse_listen(args.listen)
    record_dir = check_record_dir(args.record) if args.record else None
    # An exporter keeps running while its servers are down (mysqltop_up 0), as mysqld_exporter does.
    members = open_fleet(member_options(args, host_list(args, listing=True)), args.interval, require_one=False,
                         enable_instruments=args.enable_instruments)

    from prometheus_client import start_http_server
    from prometheus_client.registry import CollectorRegistry

    from mysqltop.recording.writer import RecordingWriter
    from mysqltop.views.fleet_poll import FleetPoller
    from mysqltop.views.prometheus import FleetCollector

    from mysqltop.views.outage import OutageNotes

    # One stderr line (the journal under systemd) when a server stops answering and one when it
    # answers again: mysqltop_up says it to Prometheus, this says why and for how long.
    said = threading.Lock()

    def say_for(name: str) -> Callable[[str], None]:
        def say(line: str) -> None:
            with said:
                print(f"mysqltop: {name}: {line}", file=sys.stderr, flush=True)
        return say

    outages = {m.name: OutageNotes(say_for(m.name), doing="mysqltop_up 0") for m in members}
    for m in members:
        if m.error:               # said below with the reason; the next line is when it answers
            outages[m.name].down_from(time.time())
    poller = FleetPoller(members, args.interval, record_dir=record_dir,
                         open_recorder=lambda path: RecordingWriter(path, interval=args.interval),
                         on_frame=lambda name, frame: outages[name].frame(frame))
    registry = CollectorRegistry(auto_describe=False)
    registry.register(FleetCollector(poller.states, args.interval, top=args.top))
    try:
        server, _thread = start_http_server(port, addr, registry=registry)
    except OSError as exc:
        poller.stop()
        raise UserError(f"cannot listen on {args.listen}: {exc.strerror or exc}") from None
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    poller.start()
    for m in members:
        for note in m.notes:
            print(f"mysqltop: {m.name}: {note}", file=sys.stderr)
        if m.error:
            print(f"mysqltop: {m.name}: {m.error} (retrying in the background)", file=sys.stderr)
    shown = f"[{addr}]" if ":" in addr else addr
    print(f"mysqltop: serving {len(members)} server{'s' if len(members) != 1 else ''} on "
          f"http://{shown}:{port}/metrics", file=sys.stderr, flush=True)
    try:
        while not done.wait(3600):
            pass
    finally:
        server.shutdown()
        poller.stop()
    return 0
