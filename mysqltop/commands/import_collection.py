"""`mysqltop import PATH… -o OUT.mtrec`: a pt-stalk collection (or saved outputs) as a recording."""

from __future__ import annotations

import argparse

HELP = "turn a pt-stalk collection or saved SHOW ENGINE INNODB STATUS / mysqladmin ext outputs into a recording"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="a pt-stalk directory, files of one collection, or saved outputs (docs/import.md)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.mtrec", help="recording to write (must not exist)")
    p.add_argument("--prefix", metavar="YYYY_MM_DD_HH_MM_SS",
                   help="import only this collection (a directory holding several imports them all, oldest first)")
    p.add_argument("--partial", action="store_true",
                   help="leave out a file that cannot be used (cut short, too large, binary, not what its name says) "
                        "and import the rest")
    p.add_argument("--follow-hardlinks", action="store_true",
                   help="read a file that has other names (a hard link) even when it is not the collection's "
                        "owner's own file (refused by default: it may be any file on this host)")
    p.add_argument("--at", metavar="ISO",
                   help="time of the first sample of a plain mysqladmin series (it carries none), "
                        "e.g. 2024-05-01T10:00:00Z")


def run(args: argparse.Namespace) -> int:
    from mysqltop.sources.collection_files import FOLLOW_HARDLINKS

    token = FOLLOW_HARDLINKS.set(bool(args.follow_hardlinks))
    try:
        return _run(args)
    finally:
        FOLLOW_HARDLINKS.reset(token)


def _run(args: argparse.Namespace) -> int:
    import datetime
    import os
    import signal
    import sys
    from pathlib import Path

    from mysqltop.core.safe_text import visible
    from mysqltop.errors import UserError
    from mysqltop.recording.writer import RecordingWriter
    from mysqltop.sources.collection_reader import ImportedSample, plan, run_import
    from mysqltop.process.stop_signals import stop_signals

    out = Path(args.output)
    if out.exists():
        raise UserError(f"{out}: already exists (import writes a new recording; remove it or pick another name)", 2)
    start = None
    if args.at:
        try:
            when = datetime.datetime.fromisoformat(args.at.replace("Z", "+00:00"))
        except ValueError:
            raise UserError(f"--at: bad time {args.at!r} (expected ISO, e.g. 2024-05-01T10:00:00Z)", 2) from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
        start = when.timestamp()
    what = plan(args.paths, args.prefix)
    tmp = out.with_name(f".{out.name}.importing")
    leftovers = (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm"), Path(f"{tmp}-journal"))
    for p in leftovers:
        p.unlink(missing_ok=True)
    count = 0
    last = None
    previous = {sig: signal.getsignal(sig) for sig in stop_signals()}

    def stop(sig: int, _frame: object) -> None:
        for s in previous:                       # the clean-up below runs once, uninterrupted
            signal.signal(s, signal.SIG_IGN)
        raise UserError(f"import stopped by {signal.Signals(sig).name}: nothing written", 1)

    try:
        for sig in previous:
            signal.signal(sig, stop)
        with RecordingWriter(tmp, interval=1.0) as writer:
            def take(item: ImportedSample) -> None:
                nonlocal count, last
                if last is not None and item.raw.wall <= last:
                    return                       # out of order (a clock step, a repeated page): dropped
                if item.new_segment:
                    writer.break_segment()
                writer.append(item.raw)
                for note in item.bookmarks:
                    writer.bookmark(item.raw.wall, None, None, note)
                count += 1
                last = item.raw.wall

            imp = run_import(what, take, partial=args.partial, start=start)
        if count == 0:
            raise UserError(f"{' '.join(args.paths)}: no samples found in {what.label}", 1)
        for sig in previous:                     # complete now: a signal must not undo the rename
            signal.signal(sig, signal.SIG_IGN)
        os.replace(tmp, out)
    except BaseException:
        for sig in previous:
            signal.signal(sig, signal.SIG_IGN)
        for p in leftovers:
            p.unlink(missing_ok=True)
        raise
    finally:
        for sig, handler in previous.items():
            if handler is not None:              # None: set outside Python, cannot be put back
                signal.signal(sig, handler)
    for note in imp.notes:
        print(f"mysqltop: note: {visible(note)}", file=sys.stderr)
    print(f"mysqltop: wrote {visible(str(out))} ({count} samples from {visible(what.label)})", file=sys.stderr)
    return 0
