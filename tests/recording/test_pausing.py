"""PausingWriter: a full disk pauses recording (live data goes on), space coming back resumes it
in a new segment; every sample written either side reads back."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from mysqltop.errors import UserError
from mysqltop.recording.pausing import PausingWriter
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter
from tests.recording.synthetic import series


class Disk:
    """A disk that fills on demand: each writer opened while `full` cannot grow its file (SQLite's
    own page limit, so the error is the one a real full disk gives: SQLITE_FULL)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.full = False
        self.writer: RecordingWriter | None = None

    def open(self) -> RecordingWriter:
        w = RecordingWriter(self.path, interval=1.0)
        if self.full:
            self.limit(w)
        self.writer = w
        return w

    def limit(self, w: RecordingWriter) -> None:
        pages = w._conn.execute("PRAGMA page_count").fetchone()[0]
        w._conn.execute(f"PRAGMA max_page_count={pages}")

    def fill(self) -> None:
        self.full = True
        assert self.writer is not None
        self.limit(self.writer)


def test_a_full_disk_pauses_and_space_resumes_in_a_new_segment(tmp_path) -> None:  # type: ignore[no-untyped-def]
    disk = Disk(tmp_path / "p.mtrec")
    now = [0.0]
    lines: list[str] = []
    w = PausingWriter(disk.open, retry=10.0, clock=lambda: now[0], on_change=lines.append)
    samples = series(300)
    written: list[int] = []

    def feed(i: int) -> None:
        before = w.samples_written
        w.append(samples[i])
        if w.samples_written > before:
            written.append(i)
        now[0] += 1.0

    for i in range(40):
        feed(i)
    disk.fill()
    for i in range(40, 120):                      # full: the page limit bites within a few samples
        feed(i)
        if i == 119:
            assert w.paused is not None and w.paused.reason == "disk full"
    assert w.pauses == 1 and len(lines) == 1
    assert lines[0].startswith("recording paused (disk full)") and "retrying every 10 s" in lines[0]
    assert "\n" not in lines[0]
    disk.full = False                              # space is back
    for i in range(120, 160):
        feed(i)
    assert w.paused is None and w.pauses == 1 and len(lines) == 2
    assert lines[1].startswith("recording resumed in a new segment (disk full cleared;")
    w.close()
    assert w.skipped == 160 - len(written)
    with RecordingReader(disk.path) as r:
        assert len(r) == len(written)
        # (the reader shifts a later segment's monotonic clock to follow on from the one before)
        assert [replace(r.sample(k), mono=0) for k in range(len(r))] == [replace(samples[i], mono=0) for i in written]
        resumed = written.index(next(i for i in written if i >= 120))
        assert resumed in r.segment_starts                 # no rate across the hole


def test_other_failures_still_end_recording(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "gone.mtrec"
    w = PausingWriter(lambda: RecordingWriter(path, interval=1.0))
    w.append(series(1)[0])
    w.writer._conn.close()                         # type: ignore[union-attr]  # not a space problem
    with pytest.raises(UserError, match="cannot write recording"):
        w.append(series(2)[1])
    assert w.paused is None


def test_a_file_that_cannot_be_opened_at_all_is_said_at_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UserError):
        PausingWriter(lambda: RecordingWriter(tmp_path / "no-dir" / "x.mtrec"))


def test_pauses_and_resumes_leave_no_file_handle_behind(tmp_path) -> None:  # type: ignore[no-untyped-def]
    disk = Disk(tmp_path / "fds.mtrec")
    now = [0.0]
    w = PausingWriter(disk.open, retry=1.0, clock=lambda: now[0])
    samples = series(200)
    fds = []
    for cycle in range(5):
        for s in samples[40 * cycle:40 * cycle + 20]:
            w.append(s)
            now[0] += 1.0
        fds.append(len(os.listdir("/proc/self/fd")))
        disk.fill()
        for s in samples[40 * cycle + 20:40 * cycle + 40]:
            w.append(s)
            now[0] += 1.0
        assert w.paused is not None
        disk.full = False
    w.close()
    assert w.pauses == 5 and len(set(fds)) == 1, fds
