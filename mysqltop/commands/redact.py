"""`mysqltop redact IN OUT`: a shareable copy of a recording (docs/recording.md, "Shareable copies")."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mysqltop.recording.redaction import Pseudonyms

HELP = "shareable copy of a recording: statement text dropped, user/host/schema/table names pseudonymous"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="IN", help="recording to copy")
    p.add_argument("output", metavar="OUT", help="the redacted copy (must not exist)")
    p.add_argument("--keep-server-host", action="store_true",
                   help="keep the server's host name and address (replaced by default)")


def run(args: argparse.Namespace) -> int:
    import os
    import sqlite3
    import sys
    from pathlib import Path

    from mysqltop.core.safe_text import visible
    from mysqltop.errors import UserError
    from mysqltop.recording.reader import RecordingReader
    from mysqltop.recording.redaction import Pseudonyms, found_in, redact_sample, survivors
    from mysqltop.recording.writer import RecordingWriter

    src, out = Path(args.input), Path(args.output)
    if out.exists():
        raise UserError(f"{out}: already exists (redact writes a new file; remove it or pick another name)", 2)
    if src.resolve() == out.resolve():
        raise UserError("IN and OUT are the same file", 2)
    tmp = out.with_name(f".{out.name}.redacting")
    leftovers = [tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")]
    for p in leftovers:
        p.unlink(missing_ok=True)
    names = Pseudonyms(keep_server_host=args.keep_server_host)
    try:
        with RecordingReader(src) as r:
            n = len(r)
            for i in range(n):                 # first pass: every name, so free text anywhere is covered
                redact_sample(r.sample(i), names)
            with RecordingWriter(tmp, interval=r.meta.interval, redact=True, trigger=_text(names, r.meta.trigger)) as w:
                for i in range(n):
                    if i and r.is_segment_start(i):
                        w.break_segment()
                    w.append(redact_sample(r.sample(i), names))
                    for b in r.bookmarks:
                        if b.index == i:
                            w.bookmark(b.time, _text(names, b.trigger), b.value, _text(names, b.note))
        conn = sqlite3.connect(tmp)            # the machine that made the copy is not the recorder's
        try:
            with conn:
                conn.execute("UPDATE segments SET recorder_host = NULL")
        finally:
            conn.close()
        # the check: no original name anywhere in what was written
        found: set[str] = set()
        with RecordingReader(tmp) as check:
            for i in range(len(check)):
                found.update(survivors(check.sample(i), names))
            for b in check.bookmarks:
                found.update(found_in(f"{b.note or ''} {b.trigger or ''}", names))
            found.update(found_in(check.meta.trigger or "", names))
        if found:
            raise UserError(f"refusing to finish: {len(found)} original name(s) survive in the copy "
                            f"({', '.join(visible(x) for x in sorted(found)[:5])}); nothing written", 1)
        os.replace(tmp, out)
    finally:
        for p in leftovers:
            p.unlink(missing_ok=True)
    print(f"mysqltop: wrote {visible(str(out))}: {n} samples, {len(names.originals)} names replaced, "
          "statement text and paths dropped; checked: none of the original names remains, "
          "not even inside another word", file=sys.stderr)
    if names.kept:                       # a name that is also part of the server's own words
        shown = "; ".join(f"{visible(n)} in {', '.join(visible(w) for w in sorted(ws)[:3])}"
                          for n, ws in sorted(names.kept.items())[:5])
        print(f"mysqltop: note: {len(names.kept)} name(s) also stand inside words the server prints, "
              f"kept there (replaced everywhere else): {shown}", file=sys.stderr)
    return 0


def _text(names: Pseudonyms, value: str | None) -> str | None:
    """Free text of the recording (a trigger, a note) with names and paths replaced."""
    return str(names.text(value)) if value else value
