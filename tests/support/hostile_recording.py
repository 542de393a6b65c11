"""A recording whose server text is hostile: the gallery's row-lock incident with its statements,
user, client host, schema, table, latch name, server version and bookmark note replaced by markup,
script, template syntax, bidi and terminal escapes, and a deadlock between two such statements.

    path = write_hostile(tmp_path / "evil.mtrec")

Every payload that ran would set `window.__pwned` (or the title): a page that shows them must
show them as text.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from mysqltop.core.sample import RawSample
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter

GALLERY = Path(__file__).resolve().parents[2] / "recordings"
SOURCE = GALLERY / "row-lock-idle-trx.mtrec"
DEADLOCK = Path(__file__).resolve().parents[1] / "fixtures" / "deadlocks" / "mariadb-10.11__two-row.txt"

STATEMENT = ("UPDATE t SET v='<script>window.__pwned=1;document.title=\"pwned\"</script>' /* \"><img src=x "
             "onerror=\"window.__pwned=2\"> {{ 7*7 }} {% if 1 %}jinja{% endif %} \u202eevil\u202c "
             "\x1b[31mred\x1b[0m </style><style>body{display:none}</style> <svg onload=window.__pwned=3> "
             "<a href=\"https://evil.example/x\">link</a> <iframe src=\"https://evil.example/\"></iframe> */")
USER = "<script>window.__pwned=4</script>"
HOST = "\"><img src=x onerror=window.__pwned=5>"
SCHEMA = "{{ config }}"
TABLE = "<b onmouseover=window.__pwned=6>t</b>"
LATCH = "lock_latch<img src=x onerror=window.__pwned=7>"
VERSION = "10.11.19-MariaDB</title><script>window.__pwned=8</script>"
NOTE = ("onset: <script>window.__pwned=9</script> \u2066\u202edesrever\u2069 {{ 7*7 }} "
        "</style><style>body{display:none}</style>")
DEADLOCK_AT = 60          # the deadlock shows from this sample on

PAYLOADS = (STATEMENT, USER, HOST, SCHEMA, TABLE, LATCH, VERSION, NOTE)

_CELLS = {"root": USER, "127.0.0.1": HOST, "mysqltop_test": SCHEMA,
          "`mysqltop_test`.`sbtest1`": f"`{SCHEMA}`.`{TABLE}`"}
_TEXT = (("UPDATE sbtest1 SET k=k+1 WHERE id=1", STATEMENT.replace("\n", " ")),
         ("wait/synch/mutex/innodb/lock_latch", f"wait/synch/mutex/innodb/{LATCH}"))


def _swap(v: Any) -> Any:
    if isinstance(v, str):
        if v in _CELLS:
            return _CELLS[v]
        for a, b in _TEXT:
            v = v.replace(a, b)
        return v
    if isinstance(v, list):
        return [_swap(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_swap(x) for x in v)
    return v


def _deadlock_section() -> str:
    text = DEADLOCK.read_text()
    start = text.index("------------------------\nLATEST DETECTED DEADLOCK")
    end = text.index("------------\nTRANSACTIONS")
    section = text[start:end]
    for a, b in (("UPDATE shop.accounts SET balance=balance+10 WHERE id=1", STATEMENT),
                 ("UPDATE shop.accounts SET balance=balance+10 WHERE id=2", STATEMENT + " /* 2 */"),
                 (" root Updating", " evil<script>window.__pwned=10</script> Updating"),
                 ("`shop`.`accounts`", f"`{SCHEMA}`.`{TABLE}`")):
        section = section.replace(a, b)
    return section


def hostile(raw: RawSample, index: int) -> RawSample:
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(raw):
        if f.name in ("lock_waits", "transactions", "sessions", "lock_sessions", "row_locks", "ps_waits",
                      "metadata_locks", "session_states"):
            value = getattr(raw, f.name)
            if value is not None:
                changes[f.name] = _swap(value)
    status = raw.innodb_status
    if status:
        for a, b in _TEXT:
            status = status.replace(a, b)
        if index >= DEADLOCK_AT:
            head = status.index("------------\nTRANSACTIONS")
            status = status[:head] + _deadlock_section() + status[head:]
        changes["innodb_status"] = status
    changes["server"] = dataclasses.replace(raw.server, version=VERSION)
    return dataclasses.replace(raw, **changes)


def write_hostile(path: Path) -> Path:
    with RecordingReader(SOURCE) as r:
        marks = {b.index: b for b in r.bookmarks}
        with RecordingWriter(path, interval=r.meta.interval) as w:
            for i in range(len(r)):
                raw = hostile(r.sample(i), i)
                w.append(raw)
                if i in marks:
                    w.bookmark(raw.wall, None, None, NOTE)
    return path
