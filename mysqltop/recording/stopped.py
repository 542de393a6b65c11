"""Why a recorder stopped writing, classified once for every writer and every view."""

from __future__ import annotations

import errno
from dataclasses import dataclass


@dataclass(frozen=True)
class RecordingStopped:
    """Why recording stopped: `reason` is short, for a badge ("disk full"); `detail` the line."""

    reason: str
    detail: str


_SQLITE_REASONS = {13: "disk full", 8: "read-only", 5: "file locked", 6: "file locked", 10: "I/O error",
                   14: "cannot open file", 11: "file damaged", 26: "file damaged"}
_ERRNO_REASONS = {errno.ENOSPC: "disk full", errno.EDQUOT: "disk quota exceeded", errno.EROFS: "read-only",
                  errno.EACCES: "permission denied", errno.EPERM: "permission denied",
                  errno.ENOENT: "file removed", errno.EIO: "I/O error"}


def recording_stopped(exc: BaseException) -> RecordingStopped:
    """Classify a recorder error by SQLite result code or errno along the exception chain."""
    reason = "write error"
    cur: BaseException | None = exc
    for _ in range(8):
        if cur is None:
            break
        code = getattr(cur, "sqlite_errorcode", None)
        if isinstance(code, int):
            reason = _SQLITE_REASONS.get(code & 0xFF, reason)
            break
        if isinstance(cur, OSError) and cur.errno is not None:
            reason = _ERRNO_REASONS.get(cur.errno, reason)
            break
        cur = cur.__cause__ or cur.__context__
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return RecordingStopped(reason, f"recording stopped ({reason}): {message}")

# Reasons a recorder may wait out (space freed, the file system remounted read-write) instead of
# ending: everything else (a removed file, damage, a lock) will not mend itself.
SPACE_REASONS = frozenset({"disk full", "disk quota exceeded", "read-only"})
