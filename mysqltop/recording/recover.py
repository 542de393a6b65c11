"""Rebuild a recording from its pages when SQLite cannot read it whole.

Two cases. A truncated file (a partial copy, a full disk mid-copy): SQLite cannot open a file
whose B-tree pages past the cut are missing, and the interior pages that lead to the rows are
often the newest, so the whole recording read as lost; `recover` keeps the readable prefix. A
damaged file (a bad sector, a stray write over its header page or over a B-tree interior page):
a few KB cost the whole file, or every row under the damaged interior page; `salvage` keeps
every row still readable anywhere, so only the rows on the damaged pages are lost.

Both read the file page by page (the SQLite file format: table leaf pages, their cells and
overflow chains), recognise our tables' rows by their column shapes, and write them into a fresh
temporary recording that the ordinary reader opens. Every sample and dictionary carries its
crc32 and a state row must inflate and parse, so a row read from a stale or damaged page can
only be skipped as damaged, never read wrong.
"""

from __future__ import annotations

import json
import mmap
import os
import sqlite3
import stat
import struct
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mysqltop.recording.format import APPLICATION_ID, FORMAT_VERSION, MAGIC, SCHEMA

_LEAF_TABLE = 13
_PAGE_TYPES = (2, 5, 10, 13)       # index interior, table interior, index leaf, table leaf
_PAGE_SIZES = tuple(1 << k for k in range(9, 17))
_WAL_MAGIC = (0x377F0682, 0x377F0683)


@dataclass
class Truncation:
    size: int          # bytes in the file
    expected: int      # bytes its header promises


def truncation(path: Path) -> Truncation | None:
    """The file's size against what its SQLite header promises, when it is shorter."""
    try:
        with open(path, "rb") as f:
            head = f.read(100)
        size = path.stat().st_size
    except OSError:
        return None
    if len(head) < 100 or head[:16] != b"SQLite format 3\x00":
        return None
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    if page < 512 or not pages or size >= pages * page:
        return None
    return Truncation(size, pages * page)


def _varint(buf: bytes, at: int) -> tuple[int, int]:
    v = 0
    for k in range(8):
        b = buf[at + k]
        v = (v << 7) | (b & 0x7F)
        if not b & 0x80:
            return v, at + k + 1
    return (v << 8) | buf[at + 8], at + 9


def _record(payload: bytes) -> list[object] | None:
    """The columns of one record, or None when it does not parse."""
    try:
        hsize, at = _varint(payload, 0)
        types = []
        while at < hsize:
            t, at = _varint(payload, at)
            types.append(t)
        out: list[object] = []
        pos = hsize
        for t in types:
            if t == 0:
                out.append(None)
            elif 1 <= t <= 6:
                n = (1, 2, 3, 4, 6, 8)[t - 1]
                out.append(int.from_bytes(payload[pos:pos + n], "big", signed=True))
                pos += n
            elif t == 7:
                out.append(struct.unpack(">d", payload[pos:pos + 8])[0])
                pos += 8
            elif t in (8, 9):
                out.append(t - 8)
            elif t >= 12:
                n = (t - 12) // 2
                chunk = payload[pos:pos + n]
                if len(chunk) != n:
                    return None
                out.append(bytes(chunk) if t % 2 == 0 else chunk.decode("utf-8", "replace"))
                pos += n
            else:
                return None
        if pos > len(payload):
            return None
        return out
    except (IndexError, struct.error):
        return None


def _rows(data, page: int, usable: int, pages: Iterator[tuple[int, bytes | None]] | None = None,  # type: ignore[no-untyped-def]
          newer: dict[int, bytes] | None = None):
    """(rowid, columns) of every cell of every table leaf page in `data` (the file's bytes), or
    of `pages` ((page number, its bytes or None to read it from `data`)) when given. An overflow
    page is read from `newer` (page number → bytes, the -wal's committed frames) when it is there."""
    n_pages = len(data) // page
    newer = newer or {}
    max_local = usable - 35
    min_local = ((usable - 12) * 32 // 255) - 23
    for p, own in pages if pages is not None else ((p, None) for p in range(n_pages)):
        buf, base = (own, 0) if own is not None else (data, p * page)
        hdr = base + (100 if p == 0 else 0)
        if buf[hdr] != _LEAF_TABLE:
            continue
        ncells = int.from_bytes(buf[hdr + 3:hdr + 5], "big")
        for c in range(ncells):
            try:
                ptr = int.from_bytes(buf[hdr + 8 + 2 * c:hdr + 10 + 2 * c], "big")
                if ptr >= page:
                    continue
                at = base + ptr
                size, at = _varint(buf, at)
                rowid, at = _varint(buf, at)
                if size > (1 << 30):
                    continue
                if size <= max_local:
                    payload = bytes(buf[at:at + size])
                else:
                    k = min_local + (size - min_local) % (usable - 4)
                    local = k if k <= max_local else min_local
                    parts = [bytes(buf[at:at + local])]
                    nxt = int.from_bytes(buf[at + local:at + local + 4], "big")
                    got = local
                    hops = 0
                    while got < size and nxt and hops < 100_000:
                        ov = newer.get(nxt - 1)
                        if ov is None:
                            o = (nxt - 1) * page
                            if o + page > len(data):
                                break                      # past the cut: this row is lost
                            ov = data[o:o + page]
                        take = min(usable - 4, size - got)
                        parts.append(bytes(ov[4:4 + take]))
                        got += take
                        nxt = int.from_bytes(ov[0:4], "big")
                        hops += 1
                    if got < size:
                        continue
                    payload = b"".join(parts)
            except IndexError:
                continue
            cols = _record(payload)
            if cols is not None:
                yield rowid, cols


def _num(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@dataclass
class _Found:
    """Rows recognised by their shapes, keyed as in their tables."""

    samples: dict[int, tuple] = field(default_factory=dict)
    dicts: dict[int, tuple] = field(default_factory=dict)
    state: dict[int, tuple] = field(default_factory=dict)
    segments: dict[int, tuple] = field(default_factory=dict)
    meta: dict[str, str] = field(default_factory=dict)
    bookmarks: dict[int, tuple] = field(default_factory=dict)


def _crc_ok(crc: object, data: object) -> bool:
    return isinstance(crc, int) and isinstance(data, bytes) and zlib.crc32(data) == crc


def _state_ok(data: bytes) -> bool:
    try:
        return isinstance(json.loads(zlib.decompress(data)), dict)
    except (zlib.error, ValueError):
        return False


def _collect(rows: Iterator[tuple[int, list[object]]], checked: bool) -> _Found:
    """Sort rows into our tables by their column shapes. `checked`: rows may come from damaged
    or stale pages, so a sample or dictionary whose crc fails never replaces one whose crc holds,
    a state row must inflate and parse, and a segment or bookmark needs sane numbers."""
    f = _Found()
    for rowid, c in rows:
        n = len(c)
        if n == 6 and _num(c[1]) and _num(c[2]) and isinstance(c[4], int) and isinstance(c[5], bytes):
            if not checked or _crc_ok(c[4], c[5]) or rowid not in f.samples:
                f.samples[rowid] = (rowid, float(c[1]), float(c[2]), c[3], c[4], c[5])   # type: ignore[arg-type]
        elif n == 6 and isinstance(c[1], int) and _num(c[2]) and not isinstance(c[5], bytes):
            if not checked or c[1] >= 0:
                f.bookmarks[rowid] = (rowid, *c[1:])
        elif n == 3 and isinstance(c[1], int) and isinstance(c[2], bytes):
            if not checked or _crc_ok(c[1], c[2]):
                f.dicts[rowid] = (rowid, c[1], c[2])
        elif n == 2 and isinstance(c[1], bytes) and c[0] is None:
            if not checked or _state_ok(c[1]):
                f.state.setdefault(rowid, (rowid, c[1]))       # state, then its copy
        elif n == 2 and isinstance(c[0], str) and isinstance(c[1], str):
            if not checked or c[0].isascii() and c[0].replace("_", "").isalnum():
                f.meta.setdefault(c[0], c[1])           # meta first, then its copy
        elif n == 10 and isinstance(c[1], int) and _num(c[2]):
            if not checked or c[1] >= 0:
                f.segments.setdefault(rowid, (rowid, *c[1:]))
    return f


def _write(found: _Found, samples: list[tuple]) -> Path:
    """A temporary recording of `found` with these samples; the caller deletes it."""
    fd, name = tempfile.mkstemp(prefix="mysqltop-recovered-", suffix=".mtrec")
    os.close(fd)
    tmp = Path(name)
    conn = sqlite3.connect(tmp, isolation_level=None)
    try:
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version={FORMAT_VERSION}")
        conn.executescript(SCHEMA)
        conn.execute("BEGIN")
        meta = {**found.meta, "magic": MAGIC, "format_version": str(FORMAT_VERSION)}
        for table in ("meta", "meta_copies"):
            conn.executemany(f"INSERT INTO {table} (key, value) VALUES (?, ?)", meta.items())
        conn.executemany("INSERT INTO samples (seq, t, mono, ref, crc, data) VALUES (?, ?, ?, ?, ?, ?)", samples)
        for table in ("dicts", "dict_copies"):
            conn.executemany(f"INSERT INTO {table} (seq, crc, data) VALUES (?, ?, ?)", found.dicts.values())
        for table in ("state", "state_copies"):
            conn.executemany(f"INSERT INTO {table} (seq, data) VALUES (?, ?)", found.state.values())
        for table in ("segments", "segment_copies"):
            conn.executemany(f"INSERT OR IGNORE INTO {table} (id, first_seq, started, interval, mysqltop_version, "
                             "recorder_host, redacted, trigger, before_s, after_s) VALUES (?,?,?,?,?,?,?,?,?,?)",
                             found.segments.values())
        conn.executemany("INSERT OR IGNORE INTO bookmarks (id, seq, t, trigger, value, note) "
                         "VALUES (?, ?, ?, ?, ?, ?)", found.bookmarks.values())
        conn.execute("COMMIT")
    except BaseException:
        conn.close()
        tmp.unlink(missing_ok=True)
        raise
    conn.close()
    return tmp


def recover(path: Path) -> tuple[Path, int]:
    """A temporary recording holding every row readable in the prefix of `path` and in the
    committed frames of its -wal; and its sample count. The caller deletes the file.

    Every sample whose row is whole and whose crc holds is kept, gaps and all: a row cut off
    by the end of the file costs itself (and the samples coded against it), not every sample
    after it. The reader reports the gaps as damaged samples."""
    data = path.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    page = 65536 if page == 1 else page
    usable = page - data[20]
    newer = committed_frames(path, page)
    pages = ((p, newer.get(p)) for p in sorted(set(range(len(data) // page)) | set(newer)))
    found = _collect(_rows(data, page, usable, pages, newer), checked=True)
    samples = [found.samples[k] for k in sorted(found.samples) if _crc_ok(found.samples[k][4], found.samples[k][5])]
    return _write(found, samples), len(samples)


def committed_frames(path: Path, page: int) -> dict[int, bytes]:
    """The newest committed version of each page in `path`-wal (0-based page number → bytes):
    frames of the current WAL generation (their salts match the header's) up to its last commit
    frame. A transaction cut short (the disk filled mid-sample) leaves frames after the last
    commit; those are not part of the recording and are left out."""
    out: dict[int, bytes] = {}
    try:
        with open(f"{path}-wal", "rb") as w:
            head = w.read(32)
            if len(head) < 32 or int.from_bytes(head[:4], "big") not in _WAL_MAGIC \
                    or int.from_bytes(head[8:12], "big") != page:
                return out
            salts = head[16:24]
            pending: dict[int, bytes] = {}
            while len(frame := w.read(24 + page)) == 24 + page:
                if frame[8:16] != salts:
                    break
                pending[int.from_bytes(frame[:4], "big") - 1] = frame[24:]
                if int.from_bytes(frame[4:8], "big"):      # a commit frame: its transaction is whole
                    out.update(pending)
                    pending.clear()
    except OSError:
        pass
    return out


@dataclass
class Salvage:
    path: Path            # the temporary recording (the caller deletes it)
    samples: int          # samples in it
    last: int             # the highest sample number found (+1: the recording's length)


def salvage(path: Path) -> Salvage | None:
    """Every row still readable in the pages of a damaged recording (and of its -wal), in a
    temporary recording; None when nothing in it says it is a mysqltop recording this version
    can read (the caller then reports what SQLite said)."""
    try:      # never blocks: a FIFO or a device is not a recording, damaged or not
        f = os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY), "rb")
    except OSError:
        return None
    with f:
        try:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size < 512 or st.st_size % 512:
                return None           # an SQLite file is whole pages of 512 bytes or more
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            return None
        try:
            page, usable = _geometry(data)
            found = _collect(_rows(data, page, usable, _pages(data, page, path)), checked=True)
        finally:
            data.close()
    app_id, version = _header_ids(path)
    ours = found.meta.get("magic") == MAGIC or (app_id == APPLICATION_ID and bool(found.samples))
    try:
        newer = max(int(found.meta.get("format_version", "0")), version or 0) > FORMAT_VERSION
    except ValueError:
        newer = False
    if not ours or newer or not found.samples:
        return None
    samples = [found.samples[k] for k in sorted(found.samples)]
    return Salvage(_write(found, samples), len(samples), samples[-1][0] + 1)


def _header_ids(path: Path) -> tuple[int | None, int | None]:
    """(PRAGMA application_id, PRAGMA user_version) as the file's header holds them, when the
    header is an SQLite one: a newer format is refused, not salvaged."""
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError:
        return None, None
    if len(head) < 100 or head[:16] != b"SQLite format 3\x00":
        return None, None
    return int.from_bytes(head[68:72], "big"), int.from_bytes(head[60:64], "big")


def _geometry(data) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(page size, usable bytes a page) from the header, else the page size under which the most
    pages read as table leaves (the header page itself may be what is damaged)."""
    if bytes(data[:16]) == b"SQLite format 3\x00":
        page = int.from_bytes(data[16:18], "big")
        page = 65536 if page == 1 else page
        if page in _PAGE_SIZES and data[20] < 128:
            return page, page - data[20]
    page = max(_PAGE_SIZES, key=lambda size: (_leaves(data, size), size == 8192))
    return page, page


def _leaves(data, page: int) -> int:  # type: ignore[no-untyped-def]
    """How many pages read as table leaves whose cell pointers all fall inside the page."""
    n = 0
    for base in range(page, len(data) - page + 1, page):
        if data[base] != _LEAF_TABLE:
            continue
        cells = int.from_bytes(data[base + 3:base + 5], "big")
        ptrs = data[base + 8:base + 8 + 2 * cells]
        if cells and all(8 + 2 * cells <= int.from_bytes(ptrs[i:i + 2], "big") < page
                         for i in range(0, len(ptrs), 2)):
            n += 1
    return n


def _pages(data, page: int, path: Path) -> Iterator[tuple[int, bytes | None]]:  # type: ignore[no-untyped-def]
    """The file's pages, then the committed and uncommitted frames of its -wal (newer versions of
    pages, read after the file's so their rows win)."""
    yield from ((p, None) for p in range(len(data) // page))
    try:
        with open(f"{path}-wal", "rb") as w:
            head = w.read(32)
            if len(head) < 32 or int.from_bytes(head[:4], "big") not in _WAL_MAGIC \
                    or int.from_bytes(head[8:12], "big") != page:
                return
            while len(frame := w.read(24 + page)) == 24 + page:
                yield int.from_bytes(frame[:4], "big") - 1, frame[24:]
    except OSError:
        return
