"""Dictionary coding of the active session rows in a sample text (docs/recording.md).

A poll's active sessions repeat the same few strings (wait class, object, statement shape, user,
host, schema, command, state) across rows and across samples. In the sample text the section
holds the distinct strings, sorted, one JSON string per line, then each row as a JSON list of
integers — string positions in that list, a number kept as itself after the strings (the session
count last). Successive samples then share their string lines (the delta codec copies them for a
few bits) and their row lines differ in numbers only, which the codec stores as small differences.
A row line starts with `[`, a string line with `"`, so the section needs no count of its own.
"""

from __future__ import annotations

import json
from typing import Any

_SEP = (",", ":")


def encode(rows: list[list[Any]]) -> list[str]:
    """Rows of strings and numbers → the section's lines (strings, then coded rows)."""
    strings = sorted({v for r in rows for v in r if isinstance(v, str)})
    pos = {s: i for i, s in enumerate(strings)}
    out = [json.dumps(s, ensure_ascii=False) for s in strings]
    for r in rows:
        # a string is its position; a number is stored as the string count + itself, so the two
        # never collide and a count needs no marker (None: a negative -1)
        out.append(json.dumps([pos[v] if isinstance(v, str) else (-1 if v is None else len(strings) + v)
                               for v in r], separators=_SEP))
    return out


def decode(lines: list[str]) -> list[list[Any]]:
    """The section's lines → rows. Hostile input raises ValueError (the sample is damaged)."""
    strings: list[str] = []
    rows: list[list[Any]] = []
    for line in lines:
        v = json.loads(line)
        if isinstance(v, str):
            if rows:
                raise ValueError("active sessions: a string after the rows")
            strings.append(v)
            continue
        if not isinstance(v, list):
            raise ValueError("active sessions: a line neither string nor row")
        row: list[Any] = []
        for code in v:
            if not isinstance(code, (int, float)) or isinstance(code, bool):
                raise ValueError("active sessions: a code that is not a number")
            if code == -1:
                row.append(None)
            elif isinstance(code, int) and 0 <= code < len(strings):
                row.append(strings[code])
            elif code >= len(strings):
                n = code - len(strings)
                row.append(int(n) if float(n).is_integer() else n)
            else:
                raise ValueError("active sessions: a string code out of range")
        rows.append(row)
    return rows
