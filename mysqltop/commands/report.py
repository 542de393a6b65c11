"""`mysqltop report FILE`: incident summary of a recording."""

from __future__ import annotations

import argparse

HELP = "incident report of a recording: timeline, hotspots, peaks, advice with evidence"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="recording")
    p.add_argument("--start", metavar="WHEN",
                   help="first sample: ISO time, HH:MM[:SS], +5m (after the start), -10m (before the end)")
    p.add_argument("--end", metavar="WHEN", help="last sample (same forms as --start)")
    p.add_argument("--compare", nargs=2, metavar="WHEN..WHEN",
                   help="two windows side by side, e.g. --compare 02:10..02:15 02:20..02:25 (an empty side "
                        "is the recording's start or end)")
    p.add_argument("--format", choices=("text", "json", "md"), default="text", help="output (default text)")


def run(args: argparse.Namespace) -> int:
    import sys

    from mysqltop.core.incident_report import compare
    from mysqltop.errors import UserError
    from mysqltop.views.report_text import render

    if args.compare:
        if args.start or args.end:
            raise UserError("--compare names its own windows: drop --start/--end "
                            "(e.g. --compare 02:10..02:15 02:20..02:25)", 2)
        a, b = (compare_window(args.file, w) for w in args.compare)
        out = render(compare(a, b), args.format)
    else:
        out = render(window_report(args.file, args.start, args.end), args.format)
    sys.stdout.write(out)
    return 0


def split_window(text: str) -> tuple[str | None, str | None]:
    """'02:10..02:15' → ('02:10', '02:15'); an empty side means the recording's start or end."""
    from mysqltop.errors import UserError

    if ".." not in text:
        raise UserError(f"--compare: bad window {text!r} (expected WHEN..WHEN, e.g. 02:10..02:15 or -10m..-5m)", 2)
    start, end = text.split("..", 1)
    return start.strip() or None, end.strip() or None


def compare_window(path: str, window: str):  # -> mysqltop.core.incident_report.Report
    """One --compare window; a bad time in it is named as --compare's, not as --start/--end."""
    from mysqltop.errors import UserError

    try:
        return window_report(path, *split_window(window))
    except UserError as exc:
        message = exc.message
        for flag in ("--start: ", "--end: "):
            if message.startswith(flag):
                message = message[len(flag):]
        raise UserError(f"--compare {window}: {message}" if message != exc.message else message, exc.code) from None


# Windows up to this many samples are summarised sample by sample (an hour at 1 s, both ends
# included); longer ones over every k-th sample, k a multiple of the keyframe spacing, so at most
# about this many frames are derived (a 24 h report reads 2,160 keyframes, not 86,400 samples).
MAX_POINTS = 3601


def stride_for(samples: int, max_points: int = MAX_POINTS) -> int:
    """1 (every sample) up to max_points, else the smallest multiple of the keyframe spacing that
    keeps the frames at or under max_points."""
    from mysqltop.recording.format import KEYFRAME_EVERY

    if samples <= max_points:
        return 1
    return KEYFRAME_EVERY * -(-samples // (KEYFRAME_EVERY * max_points))


def window_report(path: str, start: str | None, end: str | None,
                  max_points: int = MAX_POINTS):  # -> mysqltop.core.incident_report.Report
    """Frames [start, end] of the recording, as replay shows them (the timeline's range: rates
    from the sample before it, damaged samples stepped over and named once), summarised as they stream.
    Past `max_points` samples, over every k-th sample (see stride_for)."""
    from mysqltop.core.report_builder import ReportBuilder
    from mysqltop.timeline.range import Range

    src = Range(path, start, end)
    builder = ReportBuilder()
    variables: dict[str, str] = {}
    stride = stride_for(len(src), max_points)
    try:
        marks = [{"time": b.time, "trigger": b.trigger, "value": b.value, "note": b.note}
                 for b in src.reader.bookmarks]
        frames = (src.frames() if stride == 1 else src.strided_frames(stride))
        read = 0
        for frame, raw in frames:
            builder.add(frame)             # streamed: memory does not grow with the recording
            variables = raw.variables or variables
            read += 1
        if read == 0:
            raise src.unreadable()
    finally:
        src.close()
    return builder.build(variables, bookmarks=marks, samples=len(src), stride=stride)
