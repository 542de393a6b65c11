"""PausingWriter: a recorder that waits out a full disk instead of ending.

When the file system refuses a sample for want of space (full, over quota, remounted read-only,
or a write error), the writer is closed — every sample it acknowledged stays readable — and
recording is *paused*: the samples polled meanwhile are counted, not written, and every `retry`
seconds (monotonic) the next sample tries again by opening FILE anew. The first sample that
goes in starts a new segment (no rate across the hole), so nothing downstream reads the pause
as continuous. Other failures (the file removed or damaged, another recorder) end recording as
before: they do not mend themselves.

`paused` says why (a RecordingStopped) while paused; at each pause and resume `changes` counts
one more, `last_change` holds the line and `on_change(line)` is told. Fits the engine's recorder interface and IncidentRecorder's writer interface.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable

from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.recording.stopped import SPACE_REASONS, RecordingStopped, recording_stopped

RETRY_S = 10.0
ROOM = 256 * 1024      # free bytes before a retry: a few samples and a checkpoint's worth
# A write error may be a full disk the driver could not name (EDQUOT reads as an I/O error).
_WAITABLE = SPACE_REASONS | {"I/O error"}


class PausingWriter:
    def __init__(self, open_writer: Callable[[], Any], *, retry: float = RETRY_S,
                 clock: Callable[[], float] = time.monotonic,
                 on_change: Callable[[str], None] | None = None) -> None:
        self.open_writer = open_writer
        self.retry = retry
        self.clock = clock
        self.on_change = on_change
        self.writer: Any | None = open_writer()      # a file that cannot be opened at all: say so now
        self.paused: RecordingStopped | None = None
        self.pauses = 0
        self.skipped = 0               # samples polled while paused (not in the file)
        self.samples_written = 0
        self._rotations = 0            # of the writers closed so far
        self._kept: list[Any] = []      # incident files they moved aside
        self._next_try = 0.0
        self._skipped_in_pause = 0
        self.changes = 0
        self.last_change: str | None = None
        self.path = getattr(self.writer, "path", None)

    def append(self, raw: RawSample, frame: Frame | None = None) -> None:
        if self.writer is None:
            if self.clock() < self._next_try:
                self._skip()
                return
            if not self._room():
                self._next_try = self.clock() + self.retry
                self._skip()
                return
            try:
                self.writer = self.open_writer()
            except Exception as exc:
                self._pause(exc)
                self._skip()
                return
        try:
            self.writer.append(raw)
        except Exception as exc:
            self._pause(exc)
            self._skip()
            return
        self.samples_written += 1
        if self.paused is not None:
            was, self.paused = self.paused, None
            n = self._skipped_in_pause
            self._changed(f"recording resumed in a new segment ({was.reason} cleared; "
                          f"{n} sample{'s' if n != 1 else ''} not recorded)")

    def _changed(self, line: str) -> None:
        self.changes += 1
        self.last_change = line
        if self.on_change:
            self.on_change(line)

    def _room(self) -> bool:
        """Whether the file system looks writable again: not read-only, ROOM bytes free. A write
        that fits in the slack SQLite already holds would resume, then pause again at once."""
        if self.path is None:
            return True
        try:
            st = os.statvfs(os.path.dirname(os.path.abspath(self.path)) or ".")
        except OSError:
            return True                    # cannot tell: let the write say
        return not st.f_flag & os.ST_RDONLY and st.f_bavail * st.f_frsize >= ROOM

    def _skip(self) -> None:
        self.skipped += 1
        self._skipped_in_pause += 1

    def _pause(self, exc: Exception) -> None:
        stopped = recording_stopped(exc)
        if stopped.reason not in _WAITABLE:
            raise exc
        self._close_writer()
        self._next_try = self.clock() + self.retry
        if self.paused is None:
            self.pauses += 1
            self._skipped_in_pause = 0
            detail = stopped.detail.replace("recording stopped", "recording paused", 1)
            self.paused = RecordingStopped(stopped.reason, f"{detail}; retrying every {self.retry:g} s, "
                                                           "live data goes on")
            self._changed(self.paused.detail)

    def _close_writer(self) -> None:
        writer, self.writer = self.writer, None
        if writer is None:
            return
        self._rotations += getattr(writer, "rotations", 0)
        self._kept += getattr(writer, "kept", [])
        try:
            writer.close()
        except Exception:
            pass          # a full disk may refuse the close's checkpoint: the -wal holds the samples

    # -- the writer interface IncidentRecorder uses -------------------------------------------
    def bookmark(self, t: float, trigger: str | None, value: float | None, note: str | None = None) -> None:
        if self.writer is None:
            return                        # the window's samples are not in the file either
        try:
            self.writer.bookmark(t, trigger, value, note)
        except Exception as exc:
            self._pause(exc)

    def break_segment(self) -> None:
        if self.writer is not None:
            self.writer.break_segment()    # (a writer opened after a pause starts a segment anyway)

    def close(self) -> None:
        self._close_writer()

    @property
    def rotations(self) -> int:
        return self._rotations + (getattr(self.writer, "rotations", 0) if self.writer is not None else 0)

    @property
    def kept(self) -> list[Any]:
        return self._kept + (list(getattr(self.writer, "kept", [])) if self.writer is not None else [])

    @property
    def size_bytes(self) -> int:
        if self.writer is not None:
            return int(self.writer.size_bytes)
        total = 0
        for name in ((f"{self.path}", f"{self.path}-wal") if self.path is not None else ()):
            try:
                total += os.stat(name).st_size
            except OSError:
                pass
        return total
