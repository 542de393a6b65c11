"""`mysqltop record FILE [CONN]`: headless recording of raw samples.

Plain mode writes every sample. Trigger mode (`--trigger EXPR`) keeps the last `--before` of
samples in memory and writes only incident windows (`--before` history + `--after` follow-up),
each with a bookmark. `--max-size`/`--keep` bound the disk: FILE rotates to FILE.1 … FILE.N.
"""

from __future__ import annotations

import argparse
import re
import time

from mysqltop.core.sample import ServerIdentity

from mysqltop.arguments import add_answer_timeout, add_connection_arguments, open_live
from mysqltop.core.pacing import DEFAULT_INTERVAL

HELP = "record raw samples to FILE with no TUI (cron, incident scripts)"

DEFAULT_MAX_SIZE = "512M"
DEFAULT_KEEP = 4
MIN_MAX_SIZE = 1024 * 1024     # ~15 min of 1 KB samples beyond the empty file's ~72K of tables
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="recording file to create or append to")
    add_connection_arguments(p)
    p.add_argument("--interval", type=float, default=DEFAULT_INTERVAL,
                   help=f"seconds between polls (default {DEFAULT_INTERVAL:g})")
    add_answer_timeout(p)
    stop = p.add_mutually_exclusive_group()
    stop.add_argument("--duration", metavar="D", help="stop after D (e.g. 90s, 10m, 2h)")
    stop.add_argument("--count", type=int, metavar="N", help="stop after N samples")
    p.add_argument("--redact", action="store_true", help="strip SQL text from stored status output")
    g = p.add_argument_group("incident capture")
    g.add_argument("--trigger", metavar="EXPR",
                   help="write only windows around moments when EXPR holds, e.g. "
                        "'throughput.threads_running>32' or 'host.run_queue>2*host.cpus'")
    g.add_argument("--before", metavar="D", default="60s", help="history kept before a trigger (default 60s)")
    g.add_argument("--after", metavar="D", default="120s", help="recording kept after the trigger (default 120s)")
    d = p.add_argument_group("disk bound (a forgotten recorder never fills a disk)")
    d.add_argument("--max-size", metavar="SIZE", default=DEFAULT_MAX_SIZE,
                   help=f"rotate FILE to FILE.1 … when it reaches SIZE (default {DEFAULT_MAX_SIZE}; 0 = never)")
    d.add_argument("--keep", type=int, default=DEFAULT_KEEP, metavar="N",
                   help=f"rotated files kept, the oldest is deleted (default {DEFAULT_KEEP}; "
                        "disk used ≤ (N+1) × SIZE)")
    d.add_argument("--keep-going", action="store_true",
                   help="when the disk fills (or goes read-only), pause recording, keep polling, and resume "
                        "in a new segment once space is back (default: stop with exit 1)")


def parse_size(text: str) -> int | None:
    """Bytes from `512M`, `1G`, `100k`, `1048576`; None for 0 (no limit)."""
    from mysqltop.errors import UserError

    m = _SIZE.match(text)
    if not m:
        raise UserError(f"--max-size: bad size {text!r} (expected e.g. 100M, 1G)", 2)
    factor = 1024 ** " kmgt".index((m.group(2) or " ").lower())
    size = int(float(m.group(1)) * factor)
    return size or None


def _duration(flag: str, text: str) -> float:
    from mysqltop.core.when import WhenError, parse_duration
    from mysqltop.errors import UserError

    try:
        value = parse_duration(text)
    except WhenError as exc:
        raise UserError(f"{flag}: {exc}", 2) from None
    if value <= 0:
        raise UserError(f"{flag} must be more than 0", 2)
    return value


def run(args: argparse.Namespace) -> int:
    import signal
    import sys
    import threading

    from mysqltop.core.pacing import check_answer_timeout, check_interval
    from mysqltop.recording.target import check_writable
    from mysqltop.errors import UserError

    # Everything the user can get wrong is checked before connecting.
    check_interval(args.interval)
    check_answer_timeout(args.answer_timeout)
    if args.count is not None and args.count <= 0:
        raise UserError("--count must be 1 or more", 2)
    # A duration is wall time: a busy server's late samples do not stretch it.
    duration = _duration("--duration", args.duration) if args.duration is not None else None
    trigger = None
    if args.trigger is not None:
        from mysqltop.core.trigger import TriggerError, parse_trigger

        try:
            trigger = parse_trigger(args.trigger)
        except TriggerError as exc:
            raise UserError(f"--trigger {args.trigger!r}: {exc}", 2) from None
    before = _duration("--before", args.before)
    after = _duration("--after", args.after)
    max_size = parse_size(args.max_size)
    if max_size is not None and max_size < MIN_MAX_SIZE:
        raise UserError("--max-size must be at least 1M (or 0 for no limit): a recording's tables take "
                        "~72K before the first sample, so a smaller file would rotate at every sample", 2)
    if args.keep < 0:
        raise UserError("--keep must be 0 or more", 2)

    from mysqltop.timeline.polled import PolledTimeline
    from mysqltop.engine import Engine, Recorder
    from mysqltop.recording.pausing import RETRY_S, PausingWriter
    from mysqltop.recording.rotate import RotatingWriter

    check_writable(args.file)
    source, caps = open_live(args, host_clock=True)
    try:
        check_same_server(args.file, caps.identity())
        def open_writer() -> RotatingWriter:
            return RotatingWriter(args.file, max_size=max_size, keep=args.keep, interval=args.interval,
                                  redact=args.redact, trigger=trigger.text if trigger else None,
                                  before=before if trigger else None, after=after if trigger else None)

        writer: RotatingWriter | PausingWriter
        if args.keep_going:
            # a retry costs one open and one write: often enough to lose little once space is back
            writer = PausingWriter(open_writer, retry=max(1.0, min(RETRY_S, 5 * args.interval)),
                                   on_change=lambda line: print(f"mysqltop: {line}", file=sys.stderr, flush=True))
        else:
            writer = open_writer()
    except BaseException:
        source.close()
        raise
    recorder: Recorder = writer
    fires: list[float] = []
    if trigger is not None:
        from mysqltop.core.frame import iso_utc
        from mysqltop.recording.capture import IncidentRecorder

        def fired(t: float, value: float | None) -> None:
            fires.append(t)
            print(f"mysqltop: {iso_utc(t)} {trigger.text} (value {trigger_value(value)}): recording the incident",
                  file=sys.stderr)

        recorder = IncidentRecorder(writer, trigger, before, after, on_fire=fired)

    stop = threading.Event()
    # A recorder that cannot write (disk full …) ends the run: a recorder must not keep polling.
    engine = Engine(source, PolledTimeline(), recorder=recorder, stop_on_recording_error=True)
    from mysqltop.process.stop_signals import leave_terminal, set_soon, stop_signals

    def stopped(sig: int, _frame: object) -> None:
        leave_terminal(sig)
        set_soon(stop)

    # Ctrl-C too ends the run through the stop event, between polls: a KeyboardInterrupt raised
    # wherever the main thread happens to be (inside a lock, mid-packet) can leave the source
    # unable to close.
    previous = {sig: signal.signal(sig, stopped) for sig in stop_signals(interrupt=True)}
    what = f"windows around `{trigger.text}`" if trigger else "every sample"
    until = (f"{_clock(time.time() + duration)} ({args.duration})" if duration is not None
             else _samples(args.count) if args.count else "Ctrl-C")
    print(f"mysqltop: recording {what} to {args.file} every {args.interval:g}s until {until}",
          file=sys.stderr)
    for note in getattr(caps, "notes", []) or []:
        print(f"mysqltop: note: {note}", file=sys.stderr)
    timer = threading.Timer(duration, stop.set) if duration is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    from mysqltop.views.outage import OutageNotes

    outages = OutageNotes(lambda line: print(f"mysqltop: {line}", file=sys.stderr))
    try:
        engine.run(args.interval, args.count, on_frame=outages.frame, stop_event=stop)
    except KeyboardInterrupt:
        pass
    finally:
        if timer is not None:
            timer.cancel()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        engine.close()
    ended = engine.recording_stopped
    if ended is not None:
        from mysqltop.recording.stopped import SPACE_REASONS

        if ended.reason in SPACE_REASONS:
            raise UserError(f"{args.file}: recording stopped ({ended.reason}) after "
                            f"{_samples(writer.samples_written)}, all readable; free space, or bound the "
                            "recording with --max-size/--keep, or --keep-going to wait for space", 1)
        raise UserError(f"{args.file}: {ended.detail}", 1)
    size = writer.size_bytes
    paused = ""
    if isinstance(writer, PausingWriter) and writer.pauses:
        paused = (f", paused {writer.pauses} time{'s' if writer.pauses != 1 else ''} for space "
                  f"({_samples(writer.skipped)} not recorded)")
    print(f"mysqltop: {_samples(writer.samples_written)} ({size / 1024:.0f} KiB) in {args.file}"
          + (f", {writer.rotations} rotations" if writer.rotations else "") + paused
          + (f"; {len(writer.kept)} incident file{'s' if len(writer.kept) != 1 else ''} kept out of the rotation "
             f"(never deleted by it), the newest {writer.kept[-1]}" if writer.kept else "")
          + (f"; `{trigger.text}` never held, so nothing was recorded" if trigger and not fires else ""),
          file=sys.stderr)
    return 0


def _clock(epoch: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(epoch))


def check_same_server(path: str, server: ServerIdentity) -> None:
    """Appending samples of another server would mix two servers under one label: refuse, and
    say which server the file holds. The same server after a restart or an upgrade (another
    version) is the same server; so is its socket for its TCP address when @@hostname matches.
    Two servers on one host (other ports) are two servers."""
    from pathlib import Path

    from mysqltop.errors import UserError
    from mysqltop.recording.reader import RecordingReader

    p = Path(path)
    if not p.exists() or p.stat().st_size == 0:
        return
    with RecordingReader(p) as reader:
        if len(reader) == 0:
            return
        held = reader.sample(len(reader) - 1).server
    via_socket = any((a or "").startswith("/") for a in (held.address, server.address))
    same = held.address == server.address or (
        via_socket and bool(held.hostname) and held.hostname == server.hostname)
    if not same:
        raise UserError(f"{path} holds samples of {_who(held)}, not of {_who(server)}: record this server "
                        "to another file (one recording, one server)", 2)


def _who(s: ServerIdentity) -> str:
    what = " ".join(x for x in (s.flavor, (s.version or "").split("-")[0]) if x)
    host = f"host {s.hostname}" if s.hostname else ""
    extra = ", ".join(x for x in (what, host) if x)
    return f"{s.address or 'an unknown server'}" + (f" ({extra})" if extra else "")


def _samples(n: int) -> str:
    return f"{n} sample" if n == 1 else f"{n} samples"


def trigger_value(value: float | None) -> str:
    """The measured value as a person reads it: 239.896, not 239.89633119939776."""
    if value is None:
        return "-"
    return f"{value:.6g}"


