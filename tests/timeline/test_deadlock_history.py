"""A timeline's deadlocks as of each moment: the DeadlockBook fold kept at each change, looked up
for any moment folded; a recording read into it a slice at a time."""

from __future__ import annotations

from pathlib import Path

from mysqltop.core.deadlocks import DeadlockBook
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter
from mysqltop.timeline.deadlock_history import DeadlockHistory
from mysqltop.timeline.deadlock_reading import DeadlockReading
from tests.support.deadlock_frames import folded, frames, with_status

MADE = Path(__file__).resolve().parents[1] / "fixtures" / "deadlocks"
TWO_ROW = (MADE / "mariadb-10.11__two-row.txt").read_text()
GAP = (MADE / "mariadb-10.11__gap-insert.txt").read_text()


def test_each_moment_has_the_book_up_to_it_untouched_by_later_folds() -> None:
    later = TWO_ROW.replace("01:35:", "01:33:")
    fs = frames(with_status([TWO_ROW, GAP, GAP, later, later]))
    history = folded(fs[:3])
    second = history.at(2)
    assert second is not None and (second.book.captured, second.samples, second.index) == (1, 3, 2)
    for i in (3, 4):
        history.add(i, fs[i])
    assert history.folded == 4 and history.at(5) is None              # not folded that far
    first, last = history.at(0), history.at(4)
    assert first is not None and last is not None
    assert (first.book.captured, len(first.book.seen), first.samples) == (0, 1, 1)     # the one there before
    assert last.book.captured == 2 and [p.count for p in last.book.ranked()] == [1, 1]
    assert second.book.captured == 1 and len(second.book.seen) == 2                  # as handed out
    assert [p.count for p in second.book.ranked()] == [1]
    assert history.at(4).book is last.book            # type: ignore[union-attr]  # built once per change


def test_forgetting_moments_before_the_history_keeps_the_book_there() -> None:
    again = TWO_ROW.replace("01:35:", "01:36:")
    fs = frames(with_status([TWO_ROW, again, GAP, GAP, GAP]))
    history = folded(fs)
    history.forget_before(3)
    at = history.at(4)
    assert at is not None and at.book.captured == 2 and at.samples == 5


def test_a_recording_read_in_slices_gives_the_book_report_folds(tmp_path: Path) -> None:
    again = TWO_ROW.replace("01:35:", "01:36:")
    raws = with_status([TWO_ROW, again, again, GAP, GAP, again.replace("01:36:", "01:37:")])
    path = tmp_path / "d.mtrec"
    with RecordingWriter(path, interval=1.0) as w:
        for r in raws:
            w.append(r)
    history = DeadlockHistory()
    with RecordingReader(path) as reader:
        reading = DeadlockReading(reader, history)
        assert (reading.read, reading.total, reading.pending) == (0, 6, True)
        reading.step(0.0)                        # one sample at least, however short the slice
        assert reading.read == 1 and history.folded == 0 and history.at(1) is None
        while reading.pending:
            reading.step(0.0)
        whole = DeadlockBook.of(frames(raws))
    at = history.at()
    assert at is not None and (at.samples, at.index, history.folded) == (6, 5, 5)
    assert at.book.captured == whole.captured == 3 and at.book.counts_line() == whole.counts_line()
    assert [(p.signature, p.count) for p in at.book.ranked()] == [(p.signature, p.count) for p in whole.ranked()]
