"""Whether a path can take a recording, checked before connecting to a server."""

from __future__ import annotations

import os
from pathlib import Path

from mysqltop.errors import UserError


def check_writable(path: str) -> None:
    """Fail before connecting when FILE cannot be a recording (bad dir, not ours, newer format,
    another recorder on it)."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise UserError(f"{p} is a directory; give a file name for the recording", 2)
    if not parent.is_dir():
        raise UserError(f"cannot write recording {p}: directory {parent} does not exist", 2)
    if p.exists() and p.stat().st_size > 0:
        from mysqltop.recording.reader import RecordingReader
        from mysqltop.recording.writer import lock_recording

        RecordingReader(p).close()       # raises "not a recording" / "newer format"
        if not os.access(p, os.W_OK):
            raise UserError(f"cannot write recording {p}: permission denied", 2)
        os.close(lock_recording(p))      # another recorder on it: say so before connecting
    elif not os.access(parent, os.W_OK):
        raise UserError(f"cannot write recording {p}: directory {parent} is not writable", 2)
