"""Recover the readable prefix of a truncated recording (a partial copy, a full disk mid-copy).

SQLite cannot open a file whose B-tree pages past the cut are missing: the interior pages that
lead to the rows are often the newest, so the whole recording read as lost. The rows themselves
sit in leaf pages in the prefix. This reads the file page by page (the SQLite file format:
table leaf pages, their cells and overflow chains), recognises our tables' rows by their column
shapes, and writes them into a fresh temporary recording that the ordinary reader opens. Every
sample still carries its crc32, so a row recovered from a stale page can only be skipped as
damaged, never read wrong.
"""

from __future__ import annotations

import os
import sqlite3
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mysqltop.recording.format import APPLICATION_ID, FORMAT_VERSION, MAGIC, SCHEMA

_LEAF_TABLE = 13


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


def _rows(data: bytes, page: int, usable: int):  # type: ignore[no-untyped-def]
    """(rowid, columns) of every cell of every table leaf page in `data` (the file's bytes)."""
    n_pages = len(data) // page
    max_local = usable - 35
    min_local = ((usable - 12) * 32 // 255) - 23
    for p in range(n_pages):
        base = p * page
        hdr = base + (100 if p == 0 else 0)
        if data[hdr] != _LEAF_TABLE:
            continue
        ncells = int.from_bytes(data[hdr + 3:hdr + 5], "big")
        for c in range(ncells):
            try:
                ptr = int.from_bytes(data[hdr + 8 + 2 * c:hdr + 10 + 2 * c], "big")
                at = base + ptr
                size, at = _varint(data, at)
                rowid, at = _varint(data, at)
                if size <= max_local:
                    payload = data[at:at + size]
                else:
                    k = min_local + (size - min_local) % (usable - 4)
                    local = k if k <= max_local else min_local
                    parts = [data[at:at + local]]
                    nxt = int.from_bytes(data[at + local:at + local + 4], "big")
                    got = local
                    hops = 0
                    while got < size and nxt and hops < 100_000:
                        o = (nxt - 1) * page
                        if o + page > len(data):
                            break                      # past the cut: this row is lost
                        take = min(usable - 4, size - got)
                        parts.append(data[o + 4:o + 4 + take])
                        got += take
                        nxt = int.from_bytes(data[o:o + 4], "big")
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


def recover(path: Path) -> tuple[Path, int]:
    """A temporary recording holding every row readable in the prefix of `path`; and its
    sample count. The caller deletes the file."""
    data = path.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    page = 65536 if page == 1 else page
    usable = page - data[20]
    samples: dict[int, tuple] = {}
    dicts: dict[int, tuple] = {}
    state: dict[int, tuple] = {}
    segments: list[tuple] = []
    meta: dict[str, str] = {}
    bookmarks: list[tuple] = []
    for rowid, c in _rows(data, page, usable):
        n = len(c)
        if n == 6 and _num(c[1]) and _num(c[2]) and isinstance(c[4], int) and isinstance(c[5], bytes):
            samples[rowid] = (rowid, float(c[1]), float(c[2]), c[3], c[4], c[5])   # type: ignore[arg-type]
        elif n == 6 and isinstance(c[1], int) and _num(c[2]) and not isinstance(c[5], bytes):
            bookmarks.append((rowid, *c[1:]))
        elif n == 3 and isinstance(c[1], int) and isinstance(c[2], bytes):
            dicts[rowid] = (rowid, c[1], c[2])
        elif n == 2 and isinstance(c[1], bytes) and c[0] is None:
            state[rowid] = (rowid, c[1])
        elif n == 2 and isinstance(c[0], str) and isinstance(c[1], str):
            meta[c[0]] = c[1]
        elif n == 10 and isinstance(c[1], int) and _num(c[2]):
            segments.append((rowid, *c[1:]))
    fd, name = tempfile.mkstemp(prefix="mysqltop-recovered-", suffix=".mtrec")
    os.close(fd)
    tmp = Path(name)
    conn = sqlite3.connect(tmp, isolation_level=None)
    try:
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version={FORMAT_VERSION}")
        conn.executescript(SCHEMA)
        conn.execute("BEGIN")
        meta.update({"magic": MAGIC, "format_version": str(FORMAT_VERSION)})
        conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
        # Keep the samples up to the first gap: the readable prefix, in order.
        seq = 0
        while seq in samples:
            conn.execute("INSERT INTO samples (seq, t, mono, ref, crc, data) VALUES (?, ?, ?, ?, ?, ?)",
                         samples[seq])
            seq += 1
        conn.executemany("INSERT INTO dicts (seq, crc, data) VALUES (?, ?, ?)", dicts.values())
        conn.executemany("INSERT INTO state (seq, data) VALUES (?, ?)", state.values())
        conn.executemany("INSERT OR IGNORE INTO segments (id, first_seq, started, interval, mysqltop_version, "
                         "recorder_host, redacted, trigger, before_s, after_s) VALUES (?,?,?,?,?,?,?,?,?,?)",
                         segments)
        conn.executemany("INSERT OR IGNORE INTO bookmarks (id, seq, t, trigger, value, note) "
                         "VALUES (?, ?, ?, ?, ?, ?)", bookmarks)
        conn.execute("COMMIT")
    finally:
        conn.close()
    return tmp, seq
