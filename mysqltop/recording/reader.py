"""RecordingReader: random access to a recording — by index or by time — for replay and the TUI.

Index i is the 0-based sample number. Seeking by time uses the index on `samples.t`, so it costs
a B-tree lookup however long the recording is; decoding sample i costs at most one keyframe chain
(≤ KEYFRAME_EVERY samples), and the last decoded samples are cached, so stepping either way is
cheap. `refresh()` picks up samples a live writer appended since.

Monotonic times are made continuous across segments: each later segment is shifted so that its
first sample has the same `mono` as the previous segment's last one. Within a segment Δt is
exactly what was recorded; at a segment start Δt = 0, so derived rates there are None, as for
the first sample of a recording (`pair()` returns no previous sample there either).

Damaged samples (CRC mismatch, undecodable payload, unreadable page) raise DamagedSample; every
damaged index found so far is summarised in `damaged` as ranges.
"""

from __future__ import annotations

import bisect
import functools
import os
import sqlite3
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from mysqltop.core.sample import RawSample, ServerIdentity
from mysqltop.core.when import format_clock
from mysqltop.errors import UserError
from mysqltop.recording import codec
from mysqltop.recording.db import open_readonly, usable_path
from mysqltop.recording.format import parse_sample_text, parse_state_json
from mysqltop.recording.format import SEGMENT_TABLES, STATE_TABLES
from mysqltop.recording.clock_steps import ClockStep, find_steps
from mysqltop.recording.recover import recover, salvage, truncation

_CACHE = 96     # decoded samples kept: more than one keyframe chain, so stepping back is cheap
# Fields are checked on read: a recording is a file anyone may have edited. A time outside
# 2000–2100 (e.g. 1e12, which no calendar can show) makes its sample damaged, not a crash, and
# such rows are left out of seeking by time and of the recording's span.
T_MIN, T_MAX = 946_684_800.0, 4_102_444_800.0
_T_OK = f"t BETWEEN {T_MIN!r} AND {T_MAX!r}"
MONO_MAX = 1e11          # monotonic seconds (boot time based): finite and far below this
DATA_MAX = 16 << 20      # one sample's payload; a live poll is a few KB to a few hundred KB
# A recording claims max(seq) + 1 samples; past this many times the rows it holds (plus slack for
# a short file) it is refused as not what it claims.
CLAIM_RATIO, CLAIM_SLACK = 16, 10_000


def _is_seq(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**62


def valid_time(t: object) -> bool:
    return isinstance(t, (int, float)) and T_MIN <= t <= T_MAX


def _parse_state(data: object) -> tuple[ServerIdentity, dict[str, str]] | None:
    try:
        return parse_state_json(zlib.decompress(data).decode())      # type: ignore[arg-type]
    except (zlib.error, ValueError, TypeError, AttributeError):
        return None


def _wal_frames(path: Path) -> bool:
    try:
        return os.stat(f"{path}-wal").st_size > 32
    except OSError:
        return False


def valid_mono(m: object) -> bool:
    return isinstance(m, (int, float)) and -MONO_MAX <= m <= MONO_MAX


class FalseClaim(UserError):
    """The file's sample numbers claim far more samples than it holds (see _check_claim)."""


class DamagedSample(UserError):
    def __init__(self, path: Path, index: int, reason: str) -> None:
        super().__init__(f"{path}: sample {index} is damaged ({reason})", 1)
        self.index = index
        self.reason = reason


@dataclass(frozen=True)
class RecordingMeta:
    path: str
    format_version: int
    mysqltop_version: str | None      # of the first recorder run
    server: ServerIdentity            # of the first sample
    recorder_host: str | None         # machine that ran the recorder
    interval: float | None            # of the first recorder run (seconds)
    start: float | None               # epoch of the first / last sample; None when empty
    end: float | None
    samples: int
    segments: int
    redacted: bool
    trigger: str | None


@dataclass(frozen=True)
class Bookmark:
    index: int
    time: float
    trigger: str | None
    value: float | None
    note: str | None = None


@dataclass(frozen=True)
class DamagedRange:
    first: int
    last: int
    start: float | None
    end: float | None

    def describe(self, path: str) -> str:
        when = ""
        if self.start is not None and self.end is not None:
            when = f" ({format_clock(self.start)} – {format_clock(self.end)})"
        n = self.last - self.first + 1
        return f"{path}: {n} damaged sample{'s' if n > 1 else ''} {self.first}–{self.last}{when} skipped"


def _locked(method):  # type: ignore[no-untyped-def]
    """The TUI reads from a worker thread and the UI thread: one call at a time."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        with self._lock:
            try:
                return method(self, *args, **kwargs)
            except sqlite3.DatabaseError as exc:     # a damaged page outside the sample blobs
                if self._salvage():
                    try:
                        return method(self, *args, **kwargs)
                    except sqlite3.DatabaseError:
                        pass
                raise UserError(f"{self.path} is damaged ({exc})", 1) from None
    return wrapper


class RecordingReader:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._lock = threading.RLock()
        self.path = Path(path)
        usable_path(self.path)
        # A truncated file (a partial copy) opens read-only with the samples of its readable
        # prefix, recovered into a temporary file; `notice` says how much is missing.
        self.notice: str | None = None
        self._recovered: Path | None = None
        self.rotated = False          # FILE was rotated away since it was opened (see refresh)
        self._ino = self._inode()
        self._salvaged = False        # read from the rows of its pages (see _salvage), once
        self._decoded: OrderedDict[int, codec.Decoded] = OrderedDict()
        self._samples: OrderedDict[int, RawSample] = OrderedDict()
        self._states: dict[int, tuple[ServerIdentity, dict[str, str]]] = {}
        self._dicts: dict[int, codec.Decoded] = {}
        self._bad: set[int] = set()
        self._why: dict[int, str] = {}      # why a damaged sample could not be decoded, when known
        self._steps: list[ClockStep] = []   # clock steps found so far, among samples below _step_from
        self._step_from = 0
        self._step_last: tuple[int, float, float] | None = None
        self._held = 0                      # sample rows counted (see _check_claim) …
        self._counted_to = 0                # … those numbered below this
        cut = truncation(self.path) if self.path.is_file() else None
        if cut is not None and _wal_frames(self.path) and self._open_with_wal():
            cut = None          # the pages the header promises are in the -wal: a whole recording
        elif cut is None:
            try:
                self._conn = open_readonly(self.path)
                self.refresh()
            except UserError as first:
                # A damaged header or schema page: the rows on every other page are still there.
                if getattr(self, "_conn", None) is not None:
                    self._conn.close()
                if isinstance(first, FalseClaim):
                    raise                   # its rows read fine: rebuilding them changes no number
                if not self.path.is_file() or not self._salvage(opening=True):
                    raise first from None
        else:
            self._recovered, n = recover(self.path)
            try:
                if n == 0:
                    raise UserError("nothing recovered", 1)
                self._conn = open_readonly(self._recovered)
            except UserError:
                raise UserError(f"{self.path} is truncated ({cut.size:,} of {cut.expected:,} bytes; a partial "
                                "copy?) and nothing in it is readable: copy the whole file again", 1) from None
            finally:
                self._drop_recovered()       # open (or not): the name is needed no more
            missing = 100.0 * (cut.expected - cut.size) / cut.expected
            self.notice = (f"{self.path} is truncated ({cut.size:,} of {cut.expected:,} bytes, {missing:.0f} % "
                           f"missing): read-only, the {n} complete sample{'s' if n != 1 else ''} before the cut")
        try:
            self.refresh()
            # Samples whose times are all out of range (a wrong clock, a damaged or forged file)
            # leave no span to seek in: say so here, not as a failed assertion in a reader of it.
            if self._len and not self._any_valid_time():
                raise UserError(f"{self.path}: none of its {self._len:,} samples has a time between 2000 and "
                                "2100 (a wrong clock where it was recorded, or a damaged file): nothing to read", 1)
        except BaseException:
            self.close()
            raise

    def _open_with_wal(self) -> bool:
        """Open a file shorter than its header says through SQLite, when its -wal holds the rest:
        a recorder whose disk filled during a checkpoint leaves FILE part-written and every
        committed sample in FILE-wal. True when every page reads (quick_check), else the file
        is read as a truncated one."""
        try:
            conn = open_readonly(self.path)
        except UserError:
            return False
        try:
            ok = conn.execute("PRAGMA quick_check(1)").fetchone()
        except sqlite3.DatabaseError:
            ok = None
        if not ok or ok[0] != "ok":
            conn.close()
            return False
        self._conn = conn
        return True

    # -- shape ------------------------------------------------------------------------------
    def _inode(self) -> int | None:
        try:
            return os.stat(self.path).st_ino
        except OSError:
            return None

    @_locked
    def refresh(self) -> int:
        """Re-read the sample count and segments (a live writer may have appended). Returns len.

        When the recorder rotated FILE away (a new file under the name), this reader stays on
        the file it opened, now complete, and sets `rotated`: a follower reads to its end, then
        opens FILE again for what comes next, so time never goes backwards."""
        if self._ino is not None and self._inode() != self._ino:
            self.rotated = True
        try:
            row = self._conn.execute("SELECT max(seq) FROM samples").fetchone()
            self._len = 0 if row[0] is None else row[0] + 1
            segs, self._meta_rows = self._segments()
            self._format = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
            state_seqs = self._state_rows()
            self._dict_tables = ("dicts", "dict_copies") if self._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='dict_copies'").fetchone() else ("dicts",)
            dict_seqs = self._dict_rows()
            # The time index is a B-tree of its own: a newer sample in it than the table's last
            # means the table's rightmost pages are damaged (the rows are still on their pages).
            try:
                newest = self._conn.execute("SELECT seq FROM samples INDEXED BY samples_t "
                                            "ORDER BY t DESC LIMIT 1").fetchone()
            except sqlite3.OperationalError as exc:      # (a file made by hand, without the index)
                if "no such index" not in str(exc):
                    raise
                newest = None
            if newest is not None and _is_seq(newest[0]) and newest[0] >= self._len and self._salvage():
                return self._len
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise UserError(f"{self.path} is a damaged recording ({exc})", 1) from None
        if not _is_seq(self._len):
            raise UserError(f"{self.path} is a damaged recording (sample numbers unreadable)", 1)
        self._check_claim()
        # a damaged page can hand back NULL or text where a number was written: left out
        self._state_seqs = state_seqs
        self._dict_seqs = dict_seqs
        starts = sorted({r[0] for r in segs if _is_seq(r[0]) and r[0] < self._len} | ({0} if self._len else set()))
        self._segment_starts = starts
        self._offsets = self._mono_offsets(starts)
        return self._len

    def _check_claim(self) -> None:
        """A file whose sample numbers claim far more samples than it holds (a row numbered
        10^12 among a few hundred) is not what it claims: every reader would walk the claimed
        length — `report` striding over the real samples, `snapshot --replay` stepping through
        a trillion missing ones. One line, before anything is read or written. Damage loses rows
        but never numbers them higher, so a damaged file holds at least a good part of its claim;
        the rows are counted once and then only those appended since."""
        try:
            new = self._conn.execute("SELECT count(*), max(seq) FROM samples WHERE seq >= ?",
                                     (self._counted_to,)).fetchone()
        except sqlite3.DatabaseError:
            return
        if new[0]:
            self._held += int(new[0])
            self._counted_to = int(new[1]) + 1 if _is_seq(new[1]) else self._counted_to
        if self._len > CLAIM_RATIO * self._held + CLAIM_SLACK:
            raise FalseClaim(f"{self.path} claims {self._len:,} samples but holds {self._held:,}: it is not what it "
                            "claims (a damaged or forged recording), so nothing is read from it", 1)

    @_locked
    def _any_valid_time(self) -> bool:
        return self._conn.execute(f"SELECT 1 FROM samples WHERE {_T_OK} LIMIT 1").fetchone() is not None

    def _dict_rows(self) -> list[int]:
        """Dictionary numbers: those a row with a good checksum holds, or both tables name (a row
        lost with its page is still known by its copy; a number read off a damaged page is not)."""
        return self._numbered(self._dict_tables, "crc, data", lambda crc, data: (
            isinstance(data, bytes) and isinstance(crc, int) and zlib.crc32(data) == crc))

    def _state_rows(self) -> list[int]:
        """State numbers: those a row that inflates and parses holds, or both tables name."""
        return self._numbered(self._copies(STATE_TABLES), "data", lambda data: _parse_state(data) is not None)

    def _numbered(self, tables: tuple[str, ...], columns: str, sound: Callable[..., bool]) -> list[int]:
        """The numbers (`seq`) a row of `tables` holds whose `columns` are `sound`, or that every
        one of `tables` names; a table that cannot be read names none."""
        good: set[int] = set()
        named: list[set[int]] = []
        for table in tables:
            seen: set[int] = set()
            try:
                for seq, *rest in self._conn.execute(f"SELECT seq, {columns} FROM {table}"):
                    if not _is_seq(seq):
                        continue
                    seen.add(seq)
                    if sound(*rest):
                        good.add(seq)
            except sqlite3.DatabaseError:
                pass
            named.append(seen)
        both = set.intersection(*named) if len(named) > 1 else (named[0] if named else set())
        return sorted(good | both)

    def _copies(self, tables: tuple[str, ...]) -> tuple[str, ...]:
        """The tables of `tables` this file has (older files lack the copies)."""
        try:
            have = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError:
            return tables[:1]
        return tuple(t for t in tables if t in have) or tables[:1]

    def _segments(self) -> tuple[list, tuple | None]:
        """Segment starts and the first segment's fields, from `segments`, else from its copy."""
        failure: sqlite3.DatabaseError | None = None
        for table in SEGMENT_TABLES:
            try:
                segs = self._conn.execute(f"SELECT first_seq FROM {table} ORDER BY first_seq").fetchall()
                first = self._conn.execute(
                    "SELECT mysqltop_version, recorder_host, interval, redacted, trigger FROM "
                    f"{table} ORDER BY first_seq LIMIT 1").fetchone()
            except sqlite3.DatabaseError as exc:       # (an older file has no copy)
                failure = failure or exc
                continue
            if segs or table == SEGMENT_TABLES[-1]:
                return segs, first
        assert failure is not None
        raise failure

    def _salvage(self, *, opening: bool = False) -> bool:
        """Read on from a copy rebuilt from the rows of every readable page, once, when SQLite
        meets a damaged page: a damaged B-tree interior page would otherwise cost every row
        under it, a damaged header page the whole file. True when the reader switched to it.

        Not while a recorder appends (a -wal with frames), on opening too: a file opened between
        its creation and its first commit looks damaged, and its copy would stop growing."""
        if self._salvaged or self._recovered is not None:
            return False
        self._salvaged = True
        if _wal_frames(self.path):
            return False
        found = salvage(self.path)
        if found is None:
            return False
        try:
            conn = open_readonly(found.path)
        except UserError:
            return False
        finally:
            found.path.unlink(missing_ok=True)   # the open connection keeps it; nothing is left behind
        if not opening:
            self._conn.close()
        self._conn, self._recovered = conn, found.path
        self._bad.clear()
        self._why.clear()
        self._dicts.clear()
        self._states.clear()
        self._held = self._counted_to = 0          # rows of the copy, counted afresh
        self.refresh()
        self._len = max(self._len, found.last)
        lost = self._len - found.samples
        self.notice = (f"{self.path} is damaged: read-only, its {found.samples:,} readable sample"
                       f"{'s' if found.samples != 1 else ''} read from the intact pages"
                       + (f" ({lost:,} lost with the damaged ones)" if lost else ""))
        return True

    def __len__(self) -> int:
        return self._len

    @property
    def first(self) -> int:
        """The oldest index (a file keeps every sample; the live ring drops old ones)."""
        return 0

    @property
    def segment_starts(self) -> list[int]:
        return list(self._segment_starts)

    def is_segment_start(self, i: int) -> bool:
        k = bisect.bisect_left(self._segment_starts, i)
        return k < len(self._segment_starts) and self._segment_starts[k] == i

    @property
    @_locked
    def meta(self) -> RecordingMeta:
        start = end = None
        if self._len:
            start, end = self._conn.execute(f"SELECT min(t), max(t) FROM samples WHERE {_T_OK}").fetchone()
        version, host, interval, redacted, trigger = self._meta_rows or (None, None, None, 0, None)
        server = self._state(0)[0] if self._len else ServerIdentity()
        return RecordingMeta(str(self.path), self._format, version, server, host, interval, start, end,
                             self._len, len(self._segment_starts), bool(redacted), trigger)

    @property
    @_locked
    def bookmarks(self) -> list[Bookmark]:
        rows = self._conn.execute("SELECT seq, t, trigger, value, note FROM bookmarks ORDER BY t, id")
        return [Bookmark(*r) for r in rows]

    @property
    @_locked
    def damaged(self) -> list[DamagedRange]:
        """Ranges of damaged samples found so far (by reading them, or by `scan()`)."""
        out: list[DamagedRange] = []
        for i in sorted(self._bad):
            if out and out[-1].last == i - 1:
                out[-1] = DamagedRange(out[-1].first, i, out[-1].start, self.time_or_none(i))
            else:
                out.append(DamagedRange(i, i, self.time_or_none(i), self.time_or_none(i)))
        return out

    @_locked
    def scan(self) -> list[DamagedRange]:
        """Decode every sample once (slow on long recordings) and return all damaged ranges."""
        for i in range(self._len):
            try:
                self._decode(i)
            except DamagedSample:
                pass
        return self.damaged

    # -- time -------------------------------------------------------------------------------
    @_locked
    def time_at(self, i: int) -> float:
        self._check_index(i)
        try:
            row = self._conn.execute("SELECT t FROM samples WHERE seq=?", (i,)).fetchone()
        except sqlite3.DatabaseError:
            row = None
        if row is None and self._salvage():
            return self.time_at(i)
        if row is None:
            self._bad.add(i)
            raise DamagedSample(self.path, i, "row missing")
        if not valid_time(row[0]):
            self._bad.add(i)
            raise DamagedSample(self.path, i, f"bad time {str(row[0])[:40]}")
        return float(row[0])

    @_locked
    def index_at(self, t: float) -> int:
        """The last sample at or before t (the first sample when t is earlier than the start)."""
        row = self._conn.execute(
            f"SELECT seq FROM samples WHERE t <= ? AND {_T_OK} ORDER BY t DESC, seq DESC LIMIT 1", (t,)).fetchone()
        if row is None:
            return 0
        return int(row[0])

    @_locked
    def first_at_or_after(self, t: float) -> int | None:
        row = self._conn.execute(
            f"SELECT seq FROM samples WHERE t >= ? AND {_T_OK} ORDER BY t, seq LIMIT 1", (t,)).fetchone()
        return None if row is None else int(row[0])

    # -- samples ----------------------------------------------------------------------------
    @_locked
    def sample(self, i: int) -> RawSample:
        self._check_index(i)
        raw = self._samples.get(i)
        if raw is not None:
            self._samples.move_to_end(i)
            return raw
        decoded = self._decode(i)
        try:
            t, mono = self._conn.execute("SELECT t, mono FROM samples WHERE seq=?", (i,)).fetchone()
        except (sqlite3.DatabaseError, TypeError):
            self._bad.add(i)
            raise DamagedSample(self.path, i, "row unreadable") from None
        if not valid_time(t) or not valid_mono(mono):
            self._bad.add(i)
            raise DamagedSample(self.path, i, f"bad time {str(t)[:40]} / {str(mono)[:40]}")
        server, variables = self._state(i)
        try:
            raw = parse_sample_text(decoded.text, float(t), float(mono) + self._offset(i), server, variables)
        except (ValueError, TypeError) as exc:
            self._bad.add(i)
            raise DamagedSample(self.path, i, f"bad sample text: {exc}") from None
        self._samples[i] = raw
        if len(self._samples) > 8:
            self._samples.popitem(last=False)
        return raw

    @_locked
    def clock_steps(self) -> list[ClockStep]:
        """Where the recorder's wall clock stepped (recording/clock_steps.py), oldest first;
        found once, then only among the samples appended since."""
        found, self._step_last = find_steps(self._conn, self._segment_starts, self._step_from, self._step_last,
                                            lambda t, m: valid_time(t) and valid_mono(m))
        self._steps += found
        if self._step_last is not None:
            self._step_from = self._step_last[0] + 1
        return list(self._steps)

    @_locked
    def first_run(self, t0: float | None, t1: float | None) -> tuple[int, int] | None:
        """The first run of consecutive samples whose times lie in [t0, t1], in recorded order:
        where the clock stepped back, a window's times come twice, and this is the first time."""
        lo_t, hi_t = (T_MIN if t0 is None else t0), (T_MAX if t1 is None else t1)
        row = self._conn.execute("SELECT min(seq) FROM samples WHERE t BETWEEN ? AND ?", (lo_t, hi_t)).fetchone()
        if row is None or not _is_seq(row[0]):
            return None
        out = self._conn.execute("SELECT min(seq) FROM samples WHERE seq > ? AND NOT (t BETWEEN ? AND ?)",
                                 (row[0], lo_t, hi_t)).fetchone()
        return int(row[0]), (int(out[0]) - 1 if out and _is_seq(out[0]) else self._len - 1)

    @_locked
    def mono_shift(self, i: int) -> float:
        """What sample(i).mono adds to the monotonic time recorded (segments made continuous)."""
        return self._offset(i)

    @_locked
    def keyframes(self, lo: int, hi: int) -> list[int]:
        """Indexes of the keyframes in [lo, hi]: each decodes without its predecessors."""
        try:
            rows = self._conn.execute(
                "SELECT seq FROM samples WHERE seq BETWEEN ? AND ? AND ref IS NULL ORDER BY seq", (lo, hi))
            return [int(r[0]) for r in rows]
        except sqlite3.DatabaseError:
            return []

    @_locked
    def pair(self, i: int) -> tuple[RawSample | None, RawSample]:
        """(previous sample of the same segment or None, sample i): what derive() needs."""
        cur = self.sample(i)
        if i == 0 or self.is_segment_start(i):
            return None, cur
        try:
            return self.sample(i - 1), cur
        except DamagedSample:
            return None, cur

    def close(self) -> None:
        self._conn.close()
        self._drop_recovered()

    def _drop_recovered(self) -> None:
        """Remove the temporary copy's name (its open connection keeps reading it): a reader
        never closed, or a process killed, leaves no file behind. `_recovered` stays set: the
        reader reads a copy, which is never salvaged again."""
        if self._recovered is not None:
            self._recovered.unlink(missing_ok=True)

    def __enter__(self) -> "RecordingReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------------------------
    def _check_index(self, i: int) -> None:
        if not 0 <= i < self._len:
            raise IndexError(f"sample {i} out of range 0..{self._len - 1}")

    @_locked
    def time_or_none(self, i: int) -> float | None:
        try:
            row = self._conn.execute("SELECT t FROM samples WHERE seq=?", (i,)).fetchone()
        except sqlite3.DatabaseError:
            return None
        return float(row[0]) if row is not None and valid_time(row[0]) else None

    def _decode(self, i: int) -> codec.Decoded:
        hit = self._decoded.get(i)
        if hit is not None:
            self._decoded.move_to_end(i)
            return hit
        if i in self._bad:
            raise DamagedSample(self.path, i, self._why.get(i, "damaged"))
        chain = self._chain(i)        # rows from a keyframe or a cached sample up to i
        ref: codec.Decoded | None = None
        first_seq, first_ref = chain[0][0], chain[0][1]
        if first_ref is not None:
            ref = self._decoded.get(first_ref)
        for seq, rref, crc, data in chain:
            try:
                if not isinstance(data, bytes) or len(data) > DATA_MAX:
                    raise codec.CodecError("bad payload size")
                if not isinstance(crc, int) or zlib.crc32(data) != crc:
                    raise codec.CodecError("checksum mismatch")
                if rref is None:
                    ref = self._dict_for(seq)
                elif ref is None:
                    raise codec.CodecError(f"its reference sample {rref} is damaged")
                ref = codec.decode(data, ref)
            except codec.CodecError as exc:
                bad = range(seq, i + 1)
                self._bad.update(bad)
                self._why.update(dict.fromkeys(bad, str(exc)))
                raise DamagedSample(self.path, i, str(exc)) from None
            self._decoded[seq] = ref
            if len(self._decoded) > _CACHE:
                self._decoded.popitem(last=False)
        assert ref is not None and first_seq <= i
        return ref

    def _chain(self, i: int) -> list[tuple[int, int | None, int, bytes | None]]:
        """Rows i, ref(i), ref(ref(i)) … back to a keyframe or a cached sample, oldest first."""
        rows: dict[int, tuple[int, int | None, int, bytes | None]] = {}
        chain = []
        cur: int | None = i
        while cur is not None:
            if cur in self._bad:
                self._bad.update(range(cur, i + 1))
                raise DamagedSample(self.path, i, f"its reference sample {cur} is damaged")
            if cur not in rows:
                self._fetch(cur, cur, rows)      # a keyframe (strided reads) needs no more
                ref = rows[cur][1] if cur in rows else None
                if ref is not None and ref not in self._decoded:
                    self._fetch(max(0, cur - 63), cur - 1, rows)
            row = rows.get(cur)
            if row is None and self._salvage():     # a row the writer wrote, lost with a page
                return self._chain(i)
            if row is None:
                self._bad.update(range(cur, i + 1))
                raise DamagedSample(self.path, i, f"sample {cur} is missing")
            chain.append(row)
            ref = row[1]
            if ref is None or ref in self._decoded:
                break
            if not isinstance(ref, int) or ref >= cur or ref < 0:
                self._bad.add(i)
                raise DamagedSample(self.path, i, "bad reference")
            cur = ref
        chain.reverse()
        return chain

    def _fetch(self, lo: int, hi: int, rows: dict) -> None:
        try:
            for row in self._conn.execute(
                    "SELECT seq, ref, crc, data FROM samples WHERE seq BETWEEN ? AND ?", (lo, hi)):
                rows[row[0]] = row
        except sqlite3.DatabaseError:
            if self._salvage():
                self._fetch(lo, hi, rows)
                return
            # A damaged page: read the rows one by one and leave out the unreadable ones.
            for seq in range(lo, hi + 1):
                try:
                    row = self._conn.execute(
                        "SELECT seq, ref, crc, data FROM samples WHERE seq=?", (seq,)).fetchone()
                except sqlite3.DatabaseError:
                    continue
                if row:
                    rows[seq] = row

    def _dict_for(self, seq: int) -> codec.Decoded | None:
        """The dictionary a keyframe at `seq` was coded against (None: coded alone)."""
        k = bisect.bisect_right(self._dict_seqs, seq) - 1
        if k < 0:
            return None
        dseq = self._dict_seqs[k]
        hit = self._dicts.get(dseq)
        if hit is None:
            hit = self._dicts[dseq] = self._read_dict(dseq)
        return hit

    def _read_dict(self, dseq: int) -> codec.Decoded:
        """Dictionary `dseq` from its row, else from its copy (older files have none)."""
        why = f"dictionary {dseq} is damaged"
        for table in self._dict_tables:
            try:
                row = self._conn.execute(f"SELECT crc, data FROM {table} WHERE seq=?", (dseq,)).fetchone()
            except sqlite3.DatabaseError as exc:
                why = f"dictionary {dseq} unreadable: {exc}"
                continue
            if row is None or not isinstance(row[1], bytes) or zlib.crc32(row[1]) != row[0]:
                continue
            try:
                return codec.decode(row[1], None)
            except codec.CodecError:
                continue
        raise codec.CodecError(why)

    def _state(self, i: int) -> tuple[ServerIdentity, dict[str, str]]:
        k = bisect.bisect_right(self._state_seqs, i) - 1
        if k < 0:
            return ServerIdentity(), {}
        seq = self._state_seqs[k]
        hit = self._states.get(seq)
        if hit is None:
            for table in self._copies(STATE_TABLES):       # the row, else its copy
                try:
                    row = self._conn.execute(f"SELECT data FROM {table} WHERE seq=?", (seq,)).fetchone()
                except sqlite3.DatabaseError:
                    continue
                hit = _parse_state(row[0]) if row else None
                if hit is not None:
                    break
            hit = hit or (ServerIdentity(), {})     # lost state: the samples themselves are still good
            self._states[seq] = hit
        return hit

    def _mono_offsets(self, starts: list[int]) -> list[float]:
        offsets = [0.0]
        for k in range(1, len(starts)):
            try:
                last = self._conn.execute("SELECT mono FROM samples WHERE seq=?", (starts[k] - 1,)).fetchone()
                first = self._conn.execute("SELECT mono FROM samples WHERE seq=?", (starts[k],)).fetchone()
            except sqlite3.DatabaseError:
                last = first = None
            if last is None or first is None or not (valid_mono(last[0]) and valid_mono(first[0])):
                offsets.append(offsets[-1])
            else:
                offsets.append(offsets[-1] + float(last[0]) - float(first[0]))
        return offsets

    def _offset(self, i: int) -> float:
        k = bisect.bisect_right(self._segment_starts, i) - 1
        return self._offsets[k] if k >= 0 else 0.0
