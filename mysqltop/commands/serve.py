"""`mysqltop serve [CONN] --listen ADDR:PORT`: a Prometheus endpoint over one or many servers.

Each server is polled by its own engine thread (mysqltop/fleet.py); every scrape of /metrics (all
servers) or /probe?target=HOST[:PORT] (one) reads the newest frame of each (views/prometheus.py)
and never waits on a poll. The HTTP side (mysqltop/serve/) answers in the Prometheus text
format or OpenMetrics, as the scraper asks, with TLS and basic auth from --web.config.file.
"""

from __future__ import annotations

import argparse

from mysqltop.arguments import add_connection_arguments, add_fleet_arguments, fleet_flags
from mysqltop.core.metrics import MAX_LATCH_SERIES, MAX_LOAD_SERIES
from mysqltop.core.pacing import DEFAULT_INTERVAL
from mysqltop.serve.targets import PROBE_IDLE_S

HELP = "Prometheus/OpenMetrics endpoint for one or many servers (-h db1,db2:3307 or --hosts-file)"
DEFAULT_LISTEN = "127.0.0.1:9306"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    add_fleet_arguments(p)
    p.add_argument("--listen", metavar="ADDR:PORT", default=DEFAULT_LISTEN,
                   help=f"where /metrics answers (default {DEFAULT_LISTEN}; :PORT for every interface)")
    p.add_argument("--interval", type=float, default=DEFAULT_INTERVAL,
                   help=f"seconds between polls of each server (default {DEFAULT_INTERVAL:g})")
    p.add_argument("--max-latch-series", type=int, default=MAX_LATCH_SERIES, metavar="N",
                   help="latches with a series of their own per server, first come; any latch after "
                        f"that counts in latch=\"other\" (default {MAX_LATCH_SERIES})")
    p.add_argument("--max-load-series", type=int, default=MAX_LOAD_SERIES, metavar="N",
                   help="users and schemas with a session-seconds series of their own per server, first come; "
                        f"any after that counts in user=\"other\" / schema=\"other\" (default {MAX_LOAD_SERIES})")
    p.add_argument("--record", metavar="DIR", help="also record each server's raw samples to DIR/HOST_PORT.mtrec")
    p.add_argument("--web.config.file", dest="web_config_file", metavar="FILE",
                   help="TLS and basic auth, in the Prometheus exporter-toolkit format (as node_exporter)")
    p.add_argument("--probe-any", action="store_true",
                   help="let /probe?target= watch a server not listed (from its first probe until "
                        f"{PROBE_IDLE_S // 60} minutes without one), with the user name but no password; "
                        "by default only the listed servers answer")
    p.add_argument("--probe-any-password", action="store_true",
                   help="with --probe-any: send the password to a probed server too, only over TLS with a "
                        "certificate --ssl-ca signed")


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

    from mysqltop.config import fleet_options, host_list
    from mysqltop.core.pacing import check_interval
    from mysqltop.errors import UserError
    from mysqltop.serve.targets import check_probe_flags
    from mysqltop.sources.fleet_sources import open_fleet

    check_interval(args.interval)
    if args.max_latch_series < 0:
        raise UserError("--max-latch-series must be 0 or more")
    if args.max_load_series < 0:
        raise UserError("--max-load-series must be 0 or more")
    addr, port = parse_listen(args.listen)
    record_dir = check_record_dir(args.record) if args.record else None
    from mysqltop.serve.web_config import load_web_config
    web = load_web_config(args.web_config_file) if args.web_config_file else None
    # An exporter keeps running while its servers are down (mysqltop_up 0), as mysqld_exporter does.
    flags = fleet_flags(args)
    fleet = fleet_options(flags, host_list(flags, listing=True))
    check_probe_flags(fleet.shared, args.probe_any, args.probe_any_password)
    members = open_fleet(list(fleet.members), fleet.interval, require_one=False,
                         enable_instruments=fleet.enable_instruments)

    from mysqltop.core.frame import Frame
    from mysqltop.fleet import FleetPoller
    from mysqltop.recording.pausing import PausingWriter
    from mysqltop.recording.writer import RecordingWriter
    from mysqltop.serve.endpoint import Endpoint, serve_forever_in_thread
    from mysqltop.serve.targets import ProbeTargets
    from mysqltop.sources.fleet_sources import Member
    from mysqltop.views.outage import OutageNotes
    from mysqltop.views.prometheus import Exposition

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
    exposition: Exposition | None = None

    def on_frame(name: str, frame: Frame) -> None:
        if name in outages:
            outages[name].frame(frame)
        if exposition is not None:
            exposition.prepare(name, frame)        # the scrape then only joins bytes

    poller = FleetPoller(members, fleet.interval, record_dir=record_dir,
                         open_recorder=lambda path: PausingWriter(lambda: RecordingWriter(path, interval=fleet.interval)),
                         on_frame=on_frame)
    exposition = Exposition(poller.states, fleet.interval, max_latches=args.max_latch_series,
                            max_load=args.max_load_series)

    def watch(name: str, member: Member) -> None:
        outages[name] = OutageNotes(say_for(name), doing="mysqltop_up 0")
        poller.add(member)

    targets = ProbeTargets(fleet, {m.name for m in members}, probe_any=args.probe_any,
                           probe_password=args.probe_any_password,
                           open_member=lambda o: open_fleet([o], fleet.interval, require_one=False)[0],
                           watch=watch, unwatch=poller.remove,
                           render=lambda name, openmetrics: exposition.render({name}, openmetrics))

    try:
        endpoint = Endpoint((addr, port), lambda openmetrics: exposition.render(None, openmetrics), targets.target, web)
    except OSError as exc:
        poller.stop()
        raise UserError(f"cannot listen on {args.listen}: {exc.strerror or exc}") from None
    from mysqltop.process.stop_signals import set_soon

    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: set_soon(done))
    poller.start()
    serve_forever_in_thread(endpoint)
    for m in members:
        for note in m.notes:
            print(f"mysqltop: {m.name}: {note}", file=sys.stderr)
        if m.error:
            print(f"mysqltop: {m.name}: {m.error} (retrying in the background)", file=sys.stderr)
    shown = f"[{addr}]" if ":" in addr else addr
    scheme = "https" if web is not None and web.tls is not None else "http"
    print(f"mysqltop: serving {len(members)} server{'s' if len(members) != 1 else ''} on "
          f"{scheme}://{shown}:{port}/metrics and /probe?target=HOST:PORT", file=sys.stderr, flush=True)
    if addr in ("0.0.0.0", "::") and (web is None or not web.auth):
        print("mysqltop: listening on every interface without basic auth: anyone who can reach this "
              "port reads every watched server's figures, session ids and latch names "
              "(see --web.config.file)", file=sys.stderr, flush=True)
    try:
        while not done.wait(30):
            targets.forget_idle()
    finally:
        endpoint.shutdown()
        endpoint.server_close()
        poller.stop()
    return 0
