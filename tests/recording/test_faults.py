"""Faults: kill -9 of a writer, damaged bytes, files that are not recordings, newer formats,
unwritable paths, a full disk."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mysqltop.errors import UserError
from mysqltop.recording.reader import DamagedSample, RecordingReader
from mysqltop.recording.writer import RecordingWriter
from mysqltop.sources.replay_source import ReplaySource
from tests.recording.synthetic import series

ROOT = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent("""
    import sys, time
    from mysqltop.recording.writer import RecordingWriter
    from tests.recording.synthetic import series
    w = RecordingWriter(sys.argv[1], interval=0.05)
    for i, s in enumerate(series(400)):
        w.append(s)
        print(i + 1, flush=True)          # acknowledged: this sample was committed
        time.sleep(0.01)
""")


def test_kill_9_loses_at_most_the_last_sample(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "killed.mtrec"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    acked = 0
    assert proc.stdout is not None
    for line in proc.stdout:
        acked = int(line)
        if acked >= 45:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    for line in proc.stdout:                       # acknowledged before the kill, not yet read here
        acked = int(line)
    assert os.path.exists(f"{path}-wal")           # killed mid-recording: WAL still there
    expected = series(400)
    with RecordingReader(path) as r:
        assert acked <= len(r) <= acked + 1          # every acknowledged sample survived
        for i in range(len(r)):
            assert r.sample(i) == expected[i]
    src = ReplaySource(path)
    n = sum(1 for _ in iter(src.read, None))
    src.close()
    assert n == len(r)
    # and the recorder can append to it again (a new segment)
    with RecordingWriter(path, interval=1.0) as w:
        w.append(series(1, start=1_800_000_000.0)[0])
    with RecordingReader(path) as r2:
        assert len(r2) == n + 1 and r2.segment_starts == [0, n]


def _corrupt_blob(path: Path, seq: int) -> None:
    conn = sqlite3.connect(path)
    blob = conn.execute("SELECT data FROM samples WHERE seq=?", (seq,)).fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    at = data.find(blob[:64])
    assert at > 0
    for k in range(at + 20, at + 40):
        data[k] ^= 0x5A
    path.write_bytes(bytes(data))


def test_damaged_blob_is_reported_once_and_the_rest_replays(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "damaged.mtrec"
    samples = series(100)
    with RecordingWriter(path, interval=1.0, keyframe_every=30) as w:
        for s in samples:
            w.append(s)
    _corrupt_blob(path, 40)                       # inside the chain of the keyframe at 30
    messages: list[str] = []
    src = ReplaySource(path, on_damage=messages.append)
    got = list(iter(src.read, None))
    src.close()
    # 40 is damaged, and 41–59 are deltas that depend on it; 60 is the next keyframe
    assert got == samples[:40] + samples[60:]
    assert len(messages) == 1
    assert "19 damaged samples 40–59" in messages[0] or "20 damaged samples 40–59" in messages[0]
    assert [(d.first, d.last) for d in src.damaged] == [(40, 59)]
    with RecordingReader(path) as r:
        with pytest.raises(DamagedSample):
            r.sample(45)
        assert r.pair(60) == (None, samples[60])   # the previous one is damaged: no rates here
        assert r.sample(61) == samples[61]
        assert [(d.first, d.last) for d in r.scan()] == [(40, 59)]


def _flip_bit(path: Path, table: str, seq: int, bit: int = 3) -> None:
    """One flipped bit in one row's payload, as a bad disk sector or a bad copy would leave it."""
    conn = sqlite3.connect(path)
    data = bytearray(conn.execute(f"SELECT data FROM {table} WHERE seq=?", (seq,)).fetchone()[0])
    data[len(data) // 2] ^= 1 << bit
    conn.execute(f"UPDATE {table} SET data=? WHERE seq=?", (bytes(data), seq))
    conn.commit()
    conn.close()


def _dictionary_recording(path: Path, n: int = 240) -> list:  # type: ignore[type-arg]
    samples = series(n)
    with RecordingWriter(path, interval=1.0, keyframe_every=20) as w:
        for s in samples:
            w.append(s)
    return samples


@pytest.mark.parametrize("table", ["dicts", "dict_copies"])
def test_a_flipped_bit_in_the_dictionary_costs_no_sample(tmp_path, table) -> None:  # type: ignore[no-untyped-def]
    """Every keyframe decodes against the dictionary: it is kept twice, so one flipped bit in
    either copy loses nothing (it used to make all 240 samples damaged)."""
    path = tmp_path / "dict.mtrec"
    samples = _dictionary_recording(path)
    _flip_bit(path, table, 0)
    messages: list[str] = []
    src = ReplaySource(path, on_damage=messages.append)
    assert list(iter(src.read, None)) == samples and messages == []


def test_both_dictionary_copies_damaged(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Damage in both copies costs the samples coded against them, named once; a command that
    then reads nothing fails and says why (report used to exit 0: "nothing to summarise")."""
    from mysqltop.commands.report import window_report

    path = tmp_path / "dict.mtrec"
    _dictionary_recording(path, 40)
    _flip_bit(path, "dicts", 0)
    _flip_bit(path, "dict_copies", 0, bit=5)
    messages: list[str] = []
    src = ReplaySource(path, on_damage=messages.append)
    assert list(iter(src.read, None)) == []
    assert messages == [f"{path}: 40 damaged samples 0–39 (" + messages[0].split("(", 1)[1]]
    with pytest.raises(UserError) as exc:
        window_report(str(path), None, None)
    assert exc.value.code == 1
    assert exc.value.message == f"{path}: none of the 40 samples in range could be read (damaged: dictionary 0 is damaged); nothing to show"
    proc = subprocess.run([sys.executable, "-m", "mysqltop", "snapshot", "--replay", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "none of the 40 samples in range could be read" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_older_recording_without_dictionary_copies_reads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Files written before the copies existed have no dict_copies table: read as before, and a
    recorder appending to one adds the table (all additive: the format version stays)."""
    path = tmp_path / "old.mtrec"
    samples = _dictionary_recording(path, 30)
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE dict_copies")
    conn.commit()
    conn.close()
    with RecordingReader(path) as r:
        assert [r.sample(i) for i in range(30)] == samples and r.meta.format_version == 1
    with RecordingWriter(path, interval=1.0) as w:
        w.append(series(31)[30])
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM dict_copies").fetchone()[0] == 1
    conn.close()


@pytest.mark.parametrize("content, words", [
    (b"", "empty"),
    (b"hello, this is a text file\n" * 50, "not a mysqltop recording"),
    (None, "not a mysqltop recording"),           # an SQLite file of someone else
])
def test_not_a_recording(tmp_path, content, words) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "x.mtrec"
    if content is None:
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE t (a)")
        conn.commit()
        conn.close()
    else:
        path.write_bytes(content)
    with pytest.raises(UserError) as exc:
        RecordingReader(path)
    assert words in exc.value.message and exc.value.code == 2
    if content:                                   # the writer refuses too (never clobbers)
        with pytest.raises(UserError) as exc:
            RecordingWriter(path)
        assert "not a mysqltop recording" in exc.value.message


def test_newer_format_is_refused_with_a_clear_message(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "new.mtrec"
    with RecordingWriter(path) as w:
        w.append(series(1)[0])
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version=7")
    conn.commit()
    conn.close()
    for opener in (RecordingReader, RecordingWriter):
        with pytest.raises(UserError) as exc:
            opener(path)
        assert "newer mysqltop (recording format 7" in exc.value.message and exc.value.code == 2


def test_missing_and_unwritable_paths(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UserError) as exc:
        RecordingReader(tmp_path / "nope.mtrec")
    assert "no such recording" in exc.value.message
    with pytest.raises(UserError) as exc:
        RecordingWriter(tmp_path / "no-dir" / "x.mtrec")
    assert "cannot write recording" in exc.value.message and exc.value.code == 2
    with pytest.raises(UserError) as exc:
        RecordingWriter(tmp_path)
    assert "is a directory" in exc.value.message
    if os.geteuid() != 0:                          # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        with pytest.raises(UserError) as exc:
            RecordingWriter(ro / "x.mtrec")
        assert "cannot write recording" in exc.value.message


def test_full_disk_is_one_line_exit_1_and_keeps_what_was_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "full.mtrec"
    samples = series(200)
    w = RecordingWriter(path, interval=1.0)
    w.append(samples[0])
    pages = w._conn.execute("PRAGMA page_count").fetchone()[0]
    w._conn.execute(f"PRAGMA max_page_count={pages + 12}")   # the disk fills up a few samples later
    with pytest.raises(UserError) as exc:
        for s in samples[1:]:
            w.append(s)
    w.close()
    assert exc.value.code == 1 and "disk full" in exc.value.message
    with RecordingReader(path) as r:
        assert 2 <= len(r) < 200
        assert r.sample(len(r) - 1) == samples[len(r) - 1]


def test_reader_open_is_fast_on_a_damaged_index_free_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Opening does not read samples: a recording whose blobs are all damaged still opens."""
    path = tmp_path / "all-bad.mtrec"
    with RecordingWriter(path) as w:
        for s in series(20):
            w.append(s)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE samples SET crc = crc + 1")
    conn.commit()
    conn.close()
    t0 = time.perf_counter()
    with RecordingReader(path) as r:
        assert len(r) == 20 and r.meta.samples == 20
    assert time.perf_counter() - t0 < 0.5


def test_damaged_pages_in_the_middle_never_crash(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Garbage over whole pages (not just a blob): replay skips what it cannot read, reports it,
    and either keeps going or stops with one line — never a traceback."""
    path = tmp_path / "pages.mtrec"
    samples = series(150)
    with RecordingWriter(path, interval=1.0) as w:
        for s in samples:
            w.append(s)
    data = bytearray(path.read_bytes())
    page = 8192
    mid = (len(data) // page // 2) * page
    data[mid:mid + 2 * page] = bytes((i * 7 + 3) % 256 for i in range(2 * page))
    path.write_bytes(bytes(data))
    messages: list[str] = []
    try:
        src = ReplaySource(path, on_damage=messages.append)
        got = list(iter(src.read, None))
        src.close()
    except UserError as exc:                      # the damage hit the time index or the header
        assert "damaged" in exc.message and "\n" not in exc.message
        return
    assert 0 < len(got) < 150 and len(messages) >= 1
    assert all(g in samples for g in got)


def test_truncated_copy_opens_read_only_with_its_readable_prefix(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A copy holding 90 % of the bytes was refused whole ('truncated', 0 of 243 samples)."""
    whole = Path(__file__).resolve().parents[2] / "mysqltop" / "data" / "incident.mtrec"
    data = whole.read_bytes()
    with RecordingReader(whole) as r:
        expected = [r.sample(i) for i in range(len(r))]
    for frac in (0.9, 0.34):
        part = tmp_path / f"partial-{frac}.mtrec"
        part.write_bytes(data[:int(len(data) * frac)])
        with RecordingReader(part) as r:
            n = len(r)
            assert n >= len(expected) * frac * 0.5
            assert [r.sample(i) for i in range(n)] == expected[:n]      # every sample of the prefix
            assert r.notice is not None and "\n" not in r.notice
            assert f"truncated ({part.stat().st_size:,} of {len(data):,} bytes" in r.notice
            assert f"the {n} complete samples before the cut" in r.notice
    out = subprocess.run([sys.executable, "-m", "mysqltop", "report", str(part)], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert len(out.stderr.splitlines()) == 1 and "is truncated" in out.stderr and "samples" in out.stdout
    tiny = tmp_path / "tiny.mtrec"
    tiny.write_bytes(data[:9000])
    with pytest.raises(UserError) as exc:
        RecordingReader(tiny)
    assert "truncated" in exc.value.message and "\n" not in exc.value.message


def test_a_copy_of_the_file_alone_while_recording_holds_the_samples(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`cp db1.mtrec elsewhere` (without db1.mtrec-wal) while the recorder runs, or after kill -9:
    the copy was 'not a mysqltop recording' because everything sat in the WAL."""
    import shutil

    from mysqltop.recording.writer import CHECKPOINT_EVERY

    path, copy = tmp_path / "live.mtrec", tmp_path / "copy.mtrec"
    expected = series(CHECKPOINT_EVERY + 5)
    w = RecordingWriter(path, interval=1.0)
    w.append(expected[0])
    shutil.copyfile(path, copy)
    with RecordingReader(copy) as r:
        assert len(r) == 1 and r.sample(0) == expected[0]
    for s in expected[1:]:
        w.append(s)
    assert os.path.exists(f"{path}-wal")                       # still recording
    copy.unlink()
    shutil.copyfile(path, copy)
    with RecordingReader(copy) as r:
        assert len(r) >= CHECKPOINT_EVERY and r.sample(CHECKPOINT_EVERY - 1) == expected[CHECKPOINT_EVERY - 1]
    w.close()


def test_an_empty_sqlite_copy_says_what_is_missing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    empty = tmp_path / "early.mtrec"
    sqlite3.connect(empty).execute("PRAGMA journal_mode=WAL").close()     # header only, as an early copy
    with pytest.raises(UserError, match=r"holds no samples yet: a copy taken while it was being recorded, "
                                        r"without early.mtrec-wal\?") as exc:
        RecordingReader(empty)
    assert exc.value.code == 1


def test_a_second_recorder_on_the_same_file_is_refused_and_the_first_goes_on(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "one.mtrec"
    samples = series(4)
    first = RecordingWriter(path, interval=1.0)
    first.append(samples[0])
    with pytest.raises(UserError, match="is being written by another recorder: record to another file") as exc:
        RecordingWriter(path, interval=1.0)
    assert exc.value.code == 2
    first.append(samples[1])                 # used to fail here: "being written by another recorder"
    first.close()
    with RecordingWriter(path, interval=1.0) as again:     # the lock goes with the recorder
        again.append(samples[2])
    with RecordingReader(path) as r:
        assert len(r) == 3
