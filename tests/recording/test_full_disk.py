"""A disk that fills (or goes read-only) while recording, and a file cut short: every sample
the writer acknowledged, and every complete sample before a cut, reads back as written."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest

from mysqltop.errors import UserError
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter
from tests.recording.synthetic import series
from tests.support.sqlite_pages import row_pages
from tests.support.tmpfs import mounted

ROOT = Path(__file__).resolve().parents[2]


def _record_until_it_fails(path: Path, n: int) -> tuple[int, UserError]:
    """Append until the writer refuses; the number of samples it acknowledged, and why."""
    w = RecordingWriter(path, interval=1.0)
    acked = 0
    try:
        for s in series(n):
            try:
                w.append(s)
            except UserError as exc:
                return acked, exc
            acked += 1
    finally:
        w.close()
    raise AssertionError(f"the file system never filled ({acked} samples)")


def _assert_reads_back(path: Path, acked: int, n: int) -> None:
    expected = series(n)[:acked]
    with RecordingReader(path) as r:
        assert len(r) == acked, r.notice
        assert [r.sample(i) for i in range(acked)] == expected


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """A temporary directory of the test's own for the reader's recovered copies (other tests
    running beside it make their own in /tmp)."""
    d = tmp_path / "own-tmp"
    d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d


def test_every_acknowledged_sample_reads_back_after_the_disk_fills(tmp_path, own_tmp) -> None:  # type: ignore[no-untyped-def]
    """The checkpoint that ran out of space left FILE shorter than its header and the samples in
    FILE-wal: the reader took it for a truncated copy ('nothing in it is readable')."""
    with mounted("600k") as d:
        if d is None:
            pytest.skip("cannot mount a small tmpfs here (needs root and mount)")
        path = Path(d) / "full.mtrec"
        acked, exc = _record_until_it_fails(path, 2000)
        assert exc.code == 1 and "disk full" in exc.message and "\n" not in exc.message
        assert acked >= 5
        _assert_reads_back(path, acked, 2000)              # where it was written, the disk still full
        for name in os.listdir(d):                   # and a copy of what is there, elsewhere
            shutil.copyfile(Path(d) / name, tmp_path / name)
    (tmp_path / "full.mtrec-shm").unlink(missing_ok=True)
    _assert_reads_back(tmp_path / "full.mtrec", acked, 2000)
    assert not list(own_tmp.iterdir())                 # no recovered copy left behind


def _cut_cases(tmp_path: Path) -> list[Path]:
    two = tmp_path / "two-runs.mtrec"
    samples = series(300)
    for part in (samples[:170], samples[170:]):      # a file appended to: two segments
        with RecordingWriter(two, interval=1.0) as w:
            for s in part:
                w.append(s)
    return [ROOT / "mysqltop" / "data" / "incident.mtrec", two,
            ROOT / "recordings" / "metadata-lock.mtrec"]


@pytest.mark.parametrize("frac", [0.6, 0.3])
def test_a_cut_keeps_every_complete_sample_before_it(tmp_path, own_tmp, frac) -> None:  # type: ignore[no-untyped-def]
    """A sample is complete before the cut when its row (cell and overflow chain) and the rows
    it is coded against, back to its keyframe, lie on pages wholly before it."""
    for whole in _cut_cases(tmp_path):
        data = whole.read_bytes()
        page = int.from_bytes(data[16:18], "big")
        pages = row_pages(whole, 6)
        conn = sqlite3.connect(f"file:{whole}?mode=ro", uri=True)
        refs = dict(conn.execute("SELECT seq, ref FROM samples"))
        conn.close()
        with RecordingReader(whole) as r:
            expected = [r.sample(i) for i in range(len(r))]
        cut = int(len(data) * frac)
        whole_pages = cut // page

        def complete(seq: int | None) -> bool:
            while seq is not None:
                if seq not in pages or max(pages[seq]) >= whole_pages:
                    return False
                seq = refs[seq]
            return True

        want = [i for i in range(len(expected)) if complete(i)]
        part = tmp_path / f"cut-{whole.stem}.mtrec"
        part.write_bytes(data[:cut])
        if not want:
            continue
        with RecordingReader(part) as r:
            got = {}
            for i in range(len(r)):
                try:
                    got[i] = r.sample(i)
                except UserError:
                    pass
            assert r.notice and "truncated" in r.notice and "\n" not in r.notice
        missing = [i for i in want if got.get(i) != expected[i]]
        assert not missing, (whole.name, frac, len(want), missing[:10])
        assert all(expected[i] == s for i, s in got.items())
    assert not list(own_tmp.iterdir())                 # no recovered copy left behind
