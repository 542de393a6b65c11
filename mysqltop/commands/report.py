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
    p.add_argument("--format", choices=("text", "json", "md", "html"), default="text",
                   help="output (default text); html: one self-contained page (charts, no script, nothing fetched)")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write to OUT (replaced whole, or left as it was on failure) instead of stdout")


def run(args: argparse.Namespace) -> int:
    import sys

    from mysqltop.core.incident_report import compare
    from mysqltop.errors import UserError
    from mysqltop.views.report_text import render

    if args.format == "html" and not args.output and sys.stdout.isatty():
        raise UserError("--format html writes a page, not terminal text: give -o FILE.html or redirect "
                        "stdout to a file", 2)
    _not_a_directory(args.file)
    damaged: list[str] = []
    if args.compare:
        if args.start or args.end:
            raise UserError("--compare names its own windows: drop --start/--end "
                            "(e.g. --compare 02:10..02:15 02:20..02:25)", 2)
        a, b = (compare_window(args.file, w, damaged) for w in args.compare)
        result = compare(a, b)
    else:
        result = window_report(args.file, args.start, args.end, damaged=damaged)
    if args.format == "html":
        from mysqltop.recording.reader import RecordingReader
        from mysqltop.views.page.page_model import page
        from mysqltop.views.page.page_templates import render as render_page

        with RecordingReader(args.file) as reader:
            meta = reader.meta
        out = render_page(page(result, meta, damaged))
    else:
        out = render(result, args.format)
    if args.output:
        _write(args.output, out)
    else:
        sys.stdout.write(out)
    return 0


def _not_a_directory(path: str) -> None:
    """A fleet records one file per server into a directory: a report is of one of them."""
    import os

    from mysqltop.core.safe_text import visible
    from mysqltop.errors import UserError

    if not os.path.isdir(path):
        return
    files = sorted(f for f in os.listdir(path) if f.endswith(".mtrec"))
    if files:
        raise UserError(f"{visible(path)} is a directory of {len(files)} recording(s) (a fleet records one per "
                        f"server): report one at a time, e.g. mysqltop report {visible(os.path.join(path, files[0]))}",
                        2)
    raise UserError(f"{visible(path)} is a directory, not a recording", 2)


def _write(path: str, text: str) -> None:
    """OUT written whole or not at all: a temporary file beside it, renamed over it when complete."""
    import os
    import tempfile

    from mysqltop.core.safe_text import visible
    from mysqltop.errors import UserError

    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise UserError(f"cannot write {visible(path)}: {exc.strerror or exc}", 1) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644 & ~_umask())
        os.replace(tmp, path)
    except OSError as exc:
        os.unlink(tmp)
        raise UserError(f"cannot write {visible(path)}: {exc.strerror or exc}", 1) from None


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def split_window(text: str) -> tuple[str | None, str | None]:
    """'02:10..02:15' → ('02:10', '02:15'); an empty side means the recording's start or end."""
    from mysqltop.errors import UserError

    if ".." not in text:
        raise UserError(f"--compare: bad window {text!r} (expected WHEN..WHEN, e.g. 02:10..02:15 or -10m..-5m)", 2)
    start, end = text.split("..", 1)
    return start.strip() or None, end.strip() or None


def compare_window(path: str, window: str, damaged: list[str] | None = None):  # -> incident_report.Report
    """One --compare window; a bad time in it is named as --compare's, not as --start/--end."""
    from mysqltop.errors import UserError

    try:
        return window_report(path, *split_window(window), damaged=damaged)
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
                  max_points: int = MAX_POINTS,
                  damaged: list[str] | None = None):  # -> mysqltop.core.incident_report.Report
    """Frames [start, end] of the recording, as replay shows them (the timeline's range: rates
    from the sample before it, damaged samples stepped over and named once), summarised as they stream.
    Past `max_points` samples, over every k-th sample (see stride_for). `damaged`: the damaged
    ranges met are appended to it, in words."""
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
        if damaged is not None:
            damaged += [d.describe(str(src.reader.path)) for d in src.damaged]
    finally:
        src.close()
    return builder.build(variables, bookmarks=marks, samples=len(src), stride=stride)
