"""4 KB of damage anywhere in a real recording costs the samples on the damaged pages (and those
coded against them, up to the next keyframe) and no more: the header survives, every other
sample reads back exactly, none reads wrong."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from mysqltop.core.sample import RawSample
from mysqltop.recording.reader import DamagedSample, RecordingReader
from mysqltop.recording.writer import RecordingWriter
from tests.support.sqlite_pages import row_pages

GALLERY = Path(__file__).resolve().parents[2] / "recordings"
DAMAGE = 4096
PAGE = 8192


class Clean:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = path.read_bytes()
        with RecordingReader(path) as r:
            self.samples: list[RawSample] = [r.sample(i) for i in range(len(r))]
            self.interval = r.meta.interval
            self.keyframes = set(r.keyframes(0, len(r) - 1))
        self.pages = row_pages(path, columns=6)          # the samples table's rows
        assert sorted(self.pages) == list(range(len(self.samples)))

    def allowed_loss(self, lo: int, hi: int) -> set[int]:
        """Samples with a byte in [lo, hi), and the ones coded against them up to a keyframe."""
        hit = set(range(lo // PAGE, (hi - 1) // PAGE + 1))
        lost = {seq for seq, pages in self.pages.items() if pages & hit}
        for seq in sorted(lost):
            nxt = seq + 1
            while nxt < len(self.samples) and nxt not in self.keyframes:
                lost.add(nxt)
                nxt += 1
        return lost


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Clean:
    """The gallery's row-lock incident written again by this version (with its copies)."""
    path = tmp_path_factory.mktemp("damage") / "clean.mtrec"
    with RecordingReader(GALLERY / "row-lock-idle-trx.mtrec") as r, \
            RecordingWriter(path, interval=r.meta.interval) as w:
        for i in range(len(r)):
            w.append(r.sample(i))
        for b in r.bookmarks:
            w.bookmark(b.time, b.trigger, b.value, b.note)
    return Clean(path)


def _damaged_copy(clean: Clean, tmp: Path, at: int, seed: int) -> Path:
    data = bytearray(clean.data)
    data[at:at + DAMAGE] = random.Random(seed).randbytes(len(data[at:at + DAMAGE]))
    path = tmp / f"damaged-{at}.mtrec"
    path.write_bytes(bytes(data))
    return path


def _check(clean: Clean, path: Path, at: int) -> int:
    """Open the damaged copy, read every sample; returns how many were lost."""
    allowed = clean.allowed_loss(at, at + DAMAGE)
    with RecordingReader(path) as r:
        meta = r.meta
        assert meta.format_version == 1 and meta.interval == clean.interval, at
        assert meta.mysqltop_version and meta.segments >= 1, at
        lost = set()
        for i in range(len(clean.samples)):
            try:
                got = r.sample(i)
            except (DamagedSample, IndexError):
                lost.add(i)
                continue
            assert got == clean.samples[i], (at, i)       # never a wrong sample
    assert lost <= allowed, (at, sorted(lost - allowed))
    return len(lost)


def test_4_kb_of_damage_on_any_page_costs_only_that_pages_samples(clean: Clean, tmp_path: Path) -> None:
    offsets = [p * PAGE + half for p in range(len(clean.data) // PAGE) for half in (0, PAGE - DAMAGE)]
    rng = random.Random(40)
    offsets += [rng.randrange(0, len(clean.data) - DAMAGE) for _ in range(12)]    # across page edges
    losses = []
    for n, at in enumerate(offsets):
        path = _damaged_copy(clean, tmp_path, at, seed=n)
        losses.append(_check(clean, path, at))
        path.unlink()
    assert len(offsets) >= 40
    # a page of samples holds ~15 of these samples; with its keyframe chain at most ~35
    assert max(losses) <= 45 and sum(losses) / len(losses) < 15, losses


def test_a_damaged_header_page_is_still_a_recording(clean: Clean, tmp_path: Path) -> None:
    """Garbage over the SQLite header and schema: it read as 'not a mysqltop recording'."""
    path = _damaged_copy(clean, tmp_path, 0, seed=1)
    with RecordingReader(path) as r:
        assert r.notice is not None and "damaged" in r.notice
        assert len(r) == len(clean.samples)
        assert [r.sample(i) for i in range(len(r))] == clean.samples
        assert [b.note for b in r.bookmarks] == ["onset: row-lock pile-up behind an idle transaction"]


def test_a_damaged_meta_page_reads_from_its_copy(clean: Clean, tmp_path: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(clean.path)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='meta'").fetchone()[0]
    conn.close()
    path = _damaged_copy(clean, tmp_path, (root - 1) * PAGE + PAGE - DAMAGE, seed=2)
    with RecordingReader(path) as r:
        assert len(r) == len(clean.samples) and r.sample(len(r) - 1) == clean.samples[-1]


def test_an_older_recording_without_the_copies_still_salvages(clean: Clean, tmp_path: Path) -> None:
    """The gallery's file (written before meta/segment copies) with its header page damaged."""
    old = tmp_path / "old.mtrec"
    shutil.copy(GALLERY / "row-lock-idle-trx.mtrec", old)
    data = bytearray(old.read_bytes())
    data[:DAMAGE] = random.Random(3).randbytes(DAMAGE)
    old.write_bytes(bytes(data))
    with RecordingReader(old) as r:
        assert len(r) == len(clean.samples) and r.sample(100) == clean.samples[100]


def test_a_foreign_sqlite_file_with_damage_is_not_called_a_recording(tmp_path: Path) -> None:
    import sqlite3

    from mysqltop.errors import UserError

    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (a INTEGER PRIMARY KEY, b BLOB)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, bytes(500)) for i in range(200)])
    conn.commit()
    conn.close()
    data = bytearray(path.read_bytes())
    data[:DAMAGE] = bytes(DAMAGE)
    path.write_bytes(bytes(data))
    with pytest.raises(UserError) as exc:
        RecordingReader(path)
    assert "not a mysqltop recording" in exc.value.message
