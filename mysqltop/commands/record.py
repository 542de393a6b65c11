"""`mysqltop record FILE [CONN]`: headless recording of raw samples.

Plain mode writes every sample. Trigger mode (`--trigger EXPR`) keeps the last `--before` of
samples in memory and writes only incident windows (`--before` history + `--after` follow-up),
each with a bookmark. `--max-size`/`--keep` bound the disk: FILE rotates to FILE.1 … FILE.N.
"""

from __future__ import annotations

import argparse
import math
import re
from typing import Any

from mysqltop.config import add_connection_arguments

HELP = "record raw samples to FILE with no TUI (cron, incident scripts)"

DEFAULT_MAX_SIZE = "512M"
DEFAULT_KEEP = 4
MIN_MAX_SIZE = 1024 * 1024     # ~15 min of 1 KB samples beyond the empty file's ~72K of tables
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="recording file to create or append to")
    add_connection_arguments(p)
    p.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
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

    from mysqltop.commands.checks import check_interval, check_writable
    from mysqltop.errors import UserError

    # Everything the user can get wrong is checked before connecting.
    check_interval(args.interval)
    if args.count is not None and args.count <= 0:
        raise UserError("--count must be 1 or more", 2)
    count = args.count
    if args.duration is not None:
        count = max(1, math.ceil(_duration("--duration", args.duration) / args.interval - 1e-9))
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

    from mysqltop.core.pipeline import FramePipeline
    from mysqltop.engine import Engine
    from mysqltop.recording.rotate import RotatingWriter
    from mysqltop.config import live_options
    from mysqltop.sources.live import open_live_source

    check_writable(args.file)
    source, caps = open_live_source(live_options(args))
    try:
        writer = RotatingWriter(args.file, max_size=max_size, keep=args.keep, interval=args.interval,
                                redact=args.redact, trigger=trigger.text if trigger else None,
                                before=before if trigger else None, after=after if trigger else None)
    except BaseException:
        source.close()
        raise
    recorder: Any = writer
    fires: list[float] = []
    pipeline = FramePipeline()
    engine_pipeline: Any = pipeline
    if trigger is not None:
        from mysqltop.core.frame import iso_utc
        from mysqltop.recording.capture import IncidentRecorder

        def fired(t: float, value: float | None) -> None:
            fires.append(t)
            print(f"mysqltop: {iso_utc(t)} {trigger.text} (value {trigger_value(value)}): recording the incident",
                  file=sys.stderr)

        recorder = IncidentRecorder(writer, trigger, before, after, on_fire=fired,
                                    derive=lambda raw: pipeline.push(raw).to_dict())
        engine_pipeline = _DerivedByRecorder(pipeline)

    failure: list[BaseException] = []
    stop = threading.Event()

    class _Guard:
        """Keeps the first recorder error (disk full …) and stops the engine: a recorder that
        cannot write must not keep polling."""

        def append(self, raw):  # type: ignore[no-untyped-def]
            try:
                recorder.append(raw)
            except BaseException as exc:
                failure.append(exc)
                stop.set()
                raise

        def close(self) -> None:
            recorder.close()

    engine = Engine(source, engine_pipeline, recorder=_Guard())
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    what = f"windows around `{trigger.text}`" if trigger else "every sample"
    until = _samples(count) if count else "Ctrl-C"
    print(f"mysqltop: recording {what} to {args.file} every {args.interval:g}s until {until}",
          file=sys.stderr)
    for note in getattr(caps, "notes", []) or []:
        print(f"mysqltop: note: {note}", file=sys.stderr)
    try:
        engine.run(args.interval, count, stop_event=stop)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        engine.close()
    if failure:
        first = failure[0]
        if isinstance(first, UserError):
            raise first
        raise UserError(f"recording {args.file} failed: {first}", 1)
    size = writer.size_bytes
    print(f"mysqltop: {_samples(writer.samples_written)} ({size / 1024:.0f} KiB) in {args.file}"
          + (f", {writer.rotations} rotations" if writer.rotations else "")
          + (f"; `{trigger.text}` never held, so nothing was recorded" if trigger and not fires else ""),
          file=sys.stderr)
    return 0


def _samples(n: int) -> str:
    return f"{n} sample" if n == 1 else f"{n} samples"


def trigger_value(value: float | None) -> str:
    """The measured value as a person reads it: 239.896, not 239.89633119939776."""
    if value is None:
        return "-"
    return f"{value:.6g}"


class _DerivedByRecorder:
    """Trigger mode: the incident recorder derives each sample's frame to test the trigger; the
    engine (which records first, then derives) takes that frame instead of deriving it again."""

    def __init__(self, pipeline: Any) -> None:
        self.pipeline = pipeline

    def push(self, raw: Any) -> Any:
        frame = self.pipeline.last
        return frame if frame is not None and frame.time == raw.wall else self.pipeline.push(raw)
