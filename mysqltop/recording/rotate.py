"""RotatingWriter: a RecordingWriter that never lets FILE grow past --max-size.

When FILE holds `max_size` bytes of recording (its pages, wherever the last samples sit: the
-wal is SQLite's scratch space, bounded on its own, and counting it closed files at a tenth of
the size) it is closed and renamed FILE.1 (FILE.1 → FILE.2 …), and a new FILE starts; only `keep`
old files are kept (the oldest is deleted; keep=0 keeps none). So the disk used is bounded by
about (keep + 1) × max_size. Rotating whole files keeps every file append-only and readable on
its own; in trigger mode a window that straddles a rotation simply continues in the new file.
The oldest file is deleted only when no trigger marked it: a file holding a trigger's window is
the only copy of that incident, so it is moved aside under a name of its own instead (the disk
then holds the rotation's bound plus the incidents kept).

A reader may have FILE open while it rotates: when its -wal/-shm outlive the writer's close
(a reader held them), they move with FILE to FILE.1, so the new FILE never starts on the old
one's -wal (a reader saw "damaged sample (trailing data)" and time going backwards).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.errors import UserError
from mysqltop.recording.writer import RecordingWriter


class RotatingWriter:
    def __init__(self, path: str | os.PathLike[str], *, max_size: int | None, keep: int, **options: Any) -> None:
        if max_size is not None and max_size < 64 * 1024:
            raise UserError("--max-size must be at least 64K", 2)
        if keep < 0:
            raise UserError("--keep must be 0 or more", 2)
        self.path = Path(path)
        self.max_size = max_size
        self.keep = keep
        self.options = options
        self.rotations = 0
        self.samples_written = 0
        self.kept: list[Path] = []       # incident files moved aside instead of deleted
        self.writer = RecordingWriter(self.path, **options)

    def append(self, raw: RawSample, frame: Frame | None = None) -> None:
        """Write the raw sample (the engine's frame is not stored: recordings are raw-only)."""
        if self.max_size is not None and self.writer.data_bytes >= self.max_size:
            self._rotate()
        self.writer.append(raw)
        self.samples_written += 1

    def bookmark(self, t: float, trigger: str | None, value: float | None, note: str | None = None) -> None:
        self.writer.bookmark(t, trigger, value, note)

    def break_segment(self) -> None:
        self.writer.break_segment()

    def close(self) -> None:
        self.writer.close()

    @property
    def size_bytes(self) -> int:
        return self.writer.size_bytes

    def _rotate(self) -> None:
        self.writer.close()
        try:
            old = [Path(f"{self.path}.{k}") for k in range(1, self.keep + 1)]
            if self.keep == 0:
                self._drop(self.path)
            else:
                self._drop(old[-1])
                for k in range(self.keep - 1, 0, -1):
                    _move(old[k - 1], old[k])
                _move(self.path, old[0])
        except OSError as exc:
            raise UserError(f"cannot rotate {self.path}: {exc.strerror or exc}", 1) from None
        self.rotations += 1
        self.writer = RecordingWriter(self.path, **self.options)


    def _drop(self, path: Path) -> None:
        """Delete the oldest file, unless it holds an incident a trigger marked: that one is the
        only copy of the window, so it moves aside (FILE-STEM.incident-START.SUFFIX), out of the
        rotation, and is never deleted by it."""
        if not path.exists():
            return
        if _marked(path):
            aside = _aside_name(self.path, path)
            _move(path, aside)
            self.kept.append(aside)
            return
        for p in _group(path):
            p.unlink(missing_ok=True)


def _marked(path: Path) -> bool:
    """Whether the recording holds a window a trigger marked (a bookmark a trigger wrote, or a
    segment recorded under one). A file that cannot be read to tell counts as marked: it may
    be the only copy of one."""
    import sqlite3

    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT EXISTS (SELECT 1 FROM bookmarks WHERE trigger IS NOT NULL) "
                                "OR EXISTS (SELECT 1 FROM segments WHERE trigger IS NOT NULL)").fetchone()[0] == 1
        finally:
            conn.close()
    except sqlite3.Error:
        return True


def _aside_name(base: Path, path: Path) -> Path:
    """FILE's name with the UTC time its oldest sample was taken, unique in the directory."""
    import sqlite3
    import time

    stamp = "unknown"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            t = conn.execute("SELECT min(t) FROM samples").fetchone()[0]
        finally:
            conn.close()
        if isinstance(t, (int, float)) and 0 < t < 4_102_444_800:
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(t))
    except sqlite3.Error:
        pass
    name = base.with_name(f"{base.stem}.incident-{stamp}{base.suffix}")
    k = 2
    while name.exists():
        name = base.with_name(f"{base.stem}.incident-{stamp}-{k}{base.suffix}")
        k += 1
    return name


def _group(path: Path) -> list[Path]:
    return [path, Path(f"{path}-wal"), Path(f"{path}-shm")]


def _move(src: Path, dst: Path) -> None:
    """Rename a recording with its -wal/-shm (a stale -wal left at the old name would be taken
    for the next file's); a side file the source lacks is removed at the destination."""
    if not src.exists():
        return
    for a, b in zip(_group(src), _group(dst)):
        if a.exists():
            os.replace(a, b)
        else:
            b.unlink(missing_ok=True)
