"""`mysqltop snapshot`: headless frames as text, JSON lines, CSV or OpenMetrics.

Counting: `--count N` is the number of frames printed, and every printed frame has rates. Rates
need two samples, so a live snapshot polls N+1 times (the first poll is the baseline, taken
`--interval` before the first printed frame): the default, one frame, takes one interval. With
`--replay`, every sample of the recording (or of --start/--end) is derived again, unpaced; the
sample just before the range (the range's `primer`) is the baseline, so every printed
frame has rates — from the very start of a recording the first sample is the baseline instead.
A recording holding a single sample prints that sample's rate-less frame.
"""

from __future__ import annotations

import argparse
import itertools
import os
import signal
import sys
import threading

from mysqltop.arguments import add_answer_timeout, add_connection_arguments, open_live, server_flag_given
from mysqltop.core.frame import Frame

HELP = "print frames headless (text, json, csv, openmetrics, prometheus) from a server or a recording"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_connection_arguments(p)
    p.add_argument("--replay", metavar="FILE", help="derive frames from a recording instead of a server")
    p.add_argument("--start", metavar="WHEN", help="with --replay: first sample time (ISO, HH:MM[:SS], "
                   "+5m from the start, --start=-10m before the end)")
    p.add_argument("--end", metavar="WHEN", help="with --replay: last sample time (same forms)")
    p.add_argument("--count", type=int, metavar="N",
                   help="frames to print, each with rates (live default 1: polls twice, one interval "
                        "apart; replay default: all)")
    p.add_argument("--interval", type=float, help="seconds between polls (default 1; live only: a "
                   "recording keeps the interval it was recorded at)")
    add_answer_timeout(p)
    p.add_argument("--format", choices=("text", "json", "csv", "openmetrics", "prometheus"), default="text",
                   help="text (one screen per frame), json (one object per line), csv (header + one row "
                        "per frame), openmetrics (each frame ends in `# EOF`), prometheus (the text format "
                        "promtool and node_exporter's textfile collector read)")


def _check(args: argparse.Namespace) -> None:
    from mysqltop.core.pacing import check_answer_timeout, check_interval
    from mysqltop.errors import UserError

    check_answer_timeout(args.answer_timeout)
    if args.count is not None and not 1 <= args.count <= sys.maxsize:
        raise UserError(f"--count must be between 1 and {sys.maxsize}", 2)
    if args.interval is not None:
        check_interval(args.interval)
    if args.replay:
        flag = server_flag_given(args)
        if flag:
            raise UserError(f"--replay reads a recording, not a server: drop {flag}", 2)
        if args.enable_instruments:
            raise UserError("--enable-instruments needs a live server, not --replay", 2)
        if args.interval is not None:
            raise UserError("--interval paces polls of a live server; --replay derives every recorded "
                            "sample (choose them with --start/--end, --count)", 2)
    elif args.start or args.end:
        raise UserError("--start/--end select samples of a recording: use them with --replay FILE", 2)


def _open_source(args: argparse.Namespace):
    """(source, is_live). Imports here keep `mysqltop --version` light."""
    if args.replay:
        from mysqltop.errors import UserError
        from mysqltop.timeline.range import Range

        if not os.path.exists(args.replay):
            raise UserError(f"no such recording: {args.replay}", 2)
        return Range(args.replay, start=args.start, end=args.end), False
    source, caps = open_live(args)
    for note in getattr(caps, "notes", ()):   # e.g. instruments disabled: say so once, with the fix
        print(f"mysqltop: note: {note}", file=sys.stderr)
    return source, True


def run(args: argparse.Namespace) -> int:
    from mysqltop.timeline.polled import PolledTimeline
    from mysqltop.engine import Engine
    from mysqltop.views.headless import writer_for

    from mysqltop.core.pacing import DEFAULT_INTERVAL

    _check(args)
    if args.interval is None:
        args.interval = DEFAULT_INTERVAL
    source, is_live = _open_source(args)
    out = sys.stdout
    writer = writer_for(args.format, width=_terminal_width(out))
    printed = 0
    baseline = None  # the first frame: printed only if nothing else comes
    last_stale: list = []   # the newest printed frame, when it had no fresh data

    def emit(frame) -> None:
        nonlocal printed
        if printed == 0:
            out.write(writer.header())
        out.write(writer.frame(frame))
        out.flush()
        printed += 1
        if is_live and frame.stale and not last_stale:
            # CSV/OpenMetrics only say stale=true: say why once per outage, where a person sees it
            print(f"mysqltop: {_clock(frame.time)} no fresh data: {_why(frame)}", file=sys.stderr)
        last_stale[:] = [frame] if frame.stale else []

    def on_frame(frame) -> None:
        nonlocal baseline
        if baseline is None:
            baseline = frame
            return
        emit(frame)

    engine = None if not is_live else Engine(source, PolledTimeline(),
                                             on_message=lambda m: print(f"mysqltop: {m}", file=sys.stderr))
    from mysqltop.process.stop_signals import set_soon, stop_signals

    interrupted = threading.Event()
    previous = signal.getsignal(signal.SIGINT)
    if engine is not None and signal.SIGINT in stop_signals(interrupt=True):
        # Ctrl-C ends a live run between polls (exit 130) rather than as a KeyboardInterrupt raised
        # wherever the main thread is, which can leave the source unable to close; a second one
        # does not wait.

        def on_interrupt(_sig: int, _frame: object) -> None:
            if interrupted.is_set():
                raise KeyboardInterrupt
            set_soon(interrupted)

        signal.signal(signal.SIGINT, on_interrupt)
    try:
        if engine is not None:
            engine.run(args.interval, count=(args.count or 1) + 1, on_frame=on_frame, stop_event=interrupted)
            if interrupted.is_set():
                return 130
        else:
            # The timeline cursor, as report and the replay TUI see each sample: rates and the
            # advice window from the samples before the range.
            frames = (frame for frame, _raw in source.frames())
            if source.primer is None:          # from the very start: the first sample is the baseline
                baseline = next(frames, None)
            for frame in itertools.islice(frames, args.count):
                emit(frame)
            if printed == 0 and baseline is not None:
                emit(baseline)
        out.write(writer.footer())
        out.flush()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `… | head`: the reader is gone, so are we; keep exit quiet
        _silence_stdout()
        return 0
    finally:
        signal.signal(signal.SIGINT, previous)
        try:
            (engine or source).close()
        except Exception:  # closing a dead connection must not hide the real outcome
            pass
    if printed == 0:
        from mysqltop.errors import UserError
        raise source.unreadable() if not is_live else UserError("no sample read", 1)
    if is_live and last_stale:
        # a cron job (`… > mysqltop.prom`) must learn that the server was not answering at the end
        from mysqltop.errors import UserError
        raise UserError(f"the server gave no fresh data for the last frame ({_why(last_stale[0])})", 1)
    return 0


def _why(frame: Frame) -> str:
    return frame.why_stale()


def _clock(epoch: float) -> str:
    from mysqltop.core.frame import iso_utc

    return iso_utc(epoch)


def _terminal_width(out) -> int | None:  # type: ignore[no-untyped-def]
    """Columns of the terminal stdout writes to; None for a pipe or a file (no folding)."""
    import shutil

    try:
        if not out.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return max(40, shutil.get_terminal_size().columns)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
