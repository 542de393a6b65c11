"""Which pages of an SQLite file hold each row of a table (its cell and its overflow chain),
read straight from the file format: what a test that damages a page expects to lose."""

from __future__ import annotations

from pathlib import Path

from mysqltop.recording.recover import _record, _varint

LEAF_TABLE = 13


def row_pages(path: Path, columns: int) -> dict[int, set[int]]:
    """rowid → the 0-based pages its cell and overflow chain lie on, for every row of `columns`
    columns whose last column is a BLOB (the samples table's shape)."""
    data = path.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    usable = page - data[20]
    max_local, min_local = usable - 35, ((usable - 12) * 32 // 255) - 23
    out: dict[int, set[int]] = {}
    for p in range(len(data) // page):
        hdr = p * page + (100 if p == 0 else 0)
        if data[hdr] != LEAF_TABLE:
            continue
        for c in range(int.from_bytes(data[hdr + 3:hdr + 5], "big")):
            at = p * page + int.from_bytes(data[hdr + 8 + 2 * c:hdr + 10 + 2 * c], "big")
            size, at = _varint(data, at)
            rowid, at = _varint(data, at)
            pages, parts = {p}, [data[at:at + min(size, max_local)]]
            if size > max_local:
                k = min_local + (size - min_local) % (usable - 4)
                local = k if k <= max_local else min_local
                parts = [data[at:at + local]]
                nxt, got = int.from_bytes(data[at + local:at + local + 4], "big"), local
                while got < size:
                    o = (nxt - 1) * page
                    pages.add(nxt - 1)
                    take = min(usable - 4, size - got)
                    parts.append(data[o + 4:o + 4 + take])
                    got += take
                    nxt = int.from_bytes(data[o:o + 4], "big")
            cols = _record(b"".join(parts))
            if cols is not None and len(cols) == columns and isinstance(cols[-1], bytes):
                out[rowid] = pages
    return out
