"""RotatingWriter: a RecordingWriter that never lets FILE grow past --max-size.

When FILE holds `max_size` bytes of recording (its pages, wherever the last samples sit: the
-wal is SQLite's scratch space, bounded on its own, and counting it closed files at a tenth of
the size) it is closed and renamed FILE.1 (FILE.1 → FILE.2 …), and a new FILE starts; only `keep`
old files are kept (the oldest is deleted; keep=0 keeps none). So the disk used is bounded by
about (keep + 1) × max_size. Rotating whole files keeps every file append-only and readable on
its own; in trigger mode a window that straddles a rotation simply continues in the new file.

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
                for p in _group(self.path):
                    p.unlink(missing_ok=True)
            else:
                for p in _group(old[-1]):
                    p.unlink(missing_ok=True)
                for k in range(self.keep - 1, 0, -1):
                    _move(old[k - 1], old[k])
                _move(self.path, old[0])
        except OSError as exc:
            raise UserError(f"cannot rotate {self.path}: {exc.strerror or exc}", 1) from None
        self.rotations += 1
        self.writer = RecordingWriter(self.path, **self.options)


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
