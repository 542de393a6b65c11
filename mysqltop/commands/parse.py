"""`mysqltop parse FILE...`: parse saved SHOW ENGINE INNODB STATUS / MUTEX / P_S / status output."""

from __future__ import annotations

import argparse
import codecs
import sys
from typing import BinaryIO

HELP = "parse saved SHOW ENGINE INNODB STATUS / MUTEX, performance_schema or status output"
MAX_BYTES = 50 * 1024 * 1024    # far above any status output (InnoDB caps its own at ~1 MB); a bigger file is not one


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="saved output in any mysql client form; - reads stdin")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: a summary per section; json: one object per file, one per line")


def _read(path: str) -> str:
    from mysqltop.errors import UserError

    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
        else:
            with _open(path) as f:
                data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise UserError(f"{path}: {(exc.strerror or str(exc)).lower()}", 2) from None
    except ValueError:                      # a NUL byte in the name
        raise UserError(f"{path}: not a file name", 2) from None
    if not data and path != "-" and _is_fifo(path):
        raise UserError(f"{path}: a named pipe with no writer, so nothing to read; start what writes "
                        "to it first, or save the output to a file and parse that", 2)
    if len(data) > MAX_BYTES:
        raise UserError(f"{path}: larger than {MAX_BYTES // 2**20} MiB: not a saved status output", 2)
    if data.startswith(b"SQLite format 3\x00"):    # most likely a recording given to the wrong command
        raise UserError(f"{path}: an SQLite file (a mysqltop recording?), not saved status output: "
                        f"read recordings with `mysqltop report {path}` or `mysqltop snapshot --replay {path}`", 2)
    return _decode(data)


def _open(path: str) -> BinaryIO:
    """The file, opened for reading without blocking on a FIFO that has no writer.

    `parse <(mysql -e …)` and a named pipe being written are fine (the read waits for the
    writer to finish), but open() on a FIFO nobody writes to would wait forever: opened
    non-blocking it succeeds at once and reads as empty, which the caller then reports."""
    import os
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _is_fifo(path: str) -> bool:
    import os
    import stat

    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _decode(data: bytes) -> str:
    """UTF-8 (binary junk becomes U+FFFD and is then simply not recognised); a UTF-16 BOM
    (PowerShell's `>` redirect) or a UTF-8 BOM is honoured."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def parse_file(path: str) -> dict:
    """The docs/json.md object for one file (plus "file"); UserError with a one-line reason."""
    from mysqltop.core.detect import UnknownOutput, parse_any
    from mysqltop.errors import UserError

    text = _read(path)
    try:
        obj = parse_any(text)
    except UnknownOutput as exc:
        raise UserError(f"{path}: {exc}", 2) from None
    except Exception as exc:  # noqa: BLE001 — a parser bug must still be one line, not a traceback
        raise UserError(f"{path}: parser failed ({type(exc).__name__}: {exc}); please report it", 1) from None
    return {**obj, "file": path}


def run(args: argparse.Namespace) -> int:
    from mysqltop.core.safe_text import json_text, visible
    from mysqltop.errors import UserError
    from mysqltop.views.parse_text import render

    code = 0
    for i, path in enumerate(args.files):
        try:
            obj = parse_file(path)
        except UserError as exc:     # report and go on: every file gets its line
            sys.stdout.flush()
            print(f"mysqltop: {visible(exc.message)}", file=sys.stderr)
            code = max(code, exc.code)
            continue
        if args.format == "json":
            print(json_text(obj))
        else:
            print(("\n" if i else "") + render(path, obj))
    return code
