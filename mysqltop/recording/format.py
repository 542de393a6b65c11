"""The recording file format (version 1): an SQLite database, one row per RawSample.

Tables
  meta(key, value)            magic, format_version, created, created_by (mysqltop version)
  segments(id, first_seq, started, interval, mysqltop_version, recorder_host, redacted, trigger,
           before_s, after_s)  one per recorder run and per incident window; samples of a segment
                              are contiguous in time, the first one of a segment has no rates
  samples(seq, t, mono, ref, crc, data)
                              seq = 0-based index; t = wall epoch (indexed: seek by time);
                              ref = seq of the reference sample, NULL for a keyframe, which is
                              coded against the latest dictionary instead; data = codec payload
                              of the sample text (below); crc = crc32(data)
  dicts(seq, crc, data)       a full sample text coded alone, written when a recorder run starts
                              and every hour; keyframes from `seq` on are deltas against it, so a
                              keyframe costs about as much as an ordinary sample
  dict_copies(seq, crc, data) the same rows again, in pages of their own: every keyframe of an
                              hour decodes against its dictionary, so one flipped bit there would
                              cost the whole hour; with a copy it costs nothing (added without a
                              format change: older files lack it, older readers ignore it)
  state(seq, data)            server identity + variables, stored only when they change; a sample
                              uses the latest state row with state.seq <= its seq
  bookmarks(id, seq, t, trigger, value, note)
  meta_copies, segment_copies, state_copies
                              the rows of meta, segments and state again, in pages of their own:
                              the header must survive a damaged page for the samples to be found,
                              and a sample needs its server state (added without a format change,
                              as dict_copies)

PRAGMA application_id marks the file as ours and user_version holds the format version, so
`not a recording` and `newer format` are told apart without reading any table.

Sample text: every RawSample field except wall/mono (columns) and server/variables (state),
as `@name kind count` headers followed by `count` lines — raw text lines for strings, one compact
JSON value per line for lists/maps, so the codec can match lines between successive samples.
"""

from __future__ import annotations

import dataclasses
import decimal
import json
from typing import Any

from mysqltop.core.sample import Failure, HostSample, RawSample, ServerIdentity
from mysqltop.recording import string_table

# A keyframe is deflated alone every this many samples, the others against it: bounds the samples
# decoded to reach any one (seek cost), in a recording and in the live session's ring alike.
KEYFRAME_EVERY = 20

FORMAT_VERSION = 1
MAGIC = "mysqltop-recording"
APPLICATION_ID = 0x6D74_7263            # "mtrc"
SUFFIX = ".mtrec"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS segments (
    id INTEGER PRIMARY KEY, first_seq INTEGER NOT NULL, started REAL NOT NULL, interval REAL,
    mysqltop_version TEXT, recorder_host TEXT, redacted INTEGER NOT NULL DEFAULT 0,
    trigger TEXT, before_s REAL, after_s REAL);
CREATE TABLE IF NOT EXISTS samples (
    seq INTEGER PRIMARY KEY, t REAL NOT NULL, mono REAL NOT NULL, ref INTEGER,
    crc INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS samples_t ON samples (t);
CREATE TABLE IF NOT EXISTS state (seq INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS dicts (seq INTEGER PRIMARY KEY, crc INTEGER NOT NULL, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS bookmarks (
    id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, t REAL NOT NULL, trigger TEXT,
    value REAL, note TEXT);
CREATE TABLE IF NOT EXISTS dict_copies (seq INTEGER PRIMARY KEY, crc INTEGER NOT NULL, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS meta_copies (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS state_copies (seq INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS segment_copies (
    id INTEGER PRIMARY KEY, first_seq INTEGER NOT NULL, started REAL NOT NULL, interval REAL,
    mysqltop_version TEXT, recorder_host TEXT, redacted INTEGER NOT NULL DEFAULT 0,
    trigger TEXT, before_s REAL, after_s REAL);
"""
# Tables written twice, each copy in pages of its own: a damaged page of one leaves the other. A
# new file gets its tables' first pages in the order above, so no copy is next to its original
# (4 KB of damage across a page boundary touches two neighbouring pages).
META_TABLES = ("meta", "meta_copies")
SEGMENT_TABLES = ("segments", "segment_copies")
DICT_TABLES = ("dicts", "dict_copies")
STATE_TABLES = ("state", "state_copies")

_SKIP = {"wall", "mono", "server", "variables"}
_FIELDS = [f.name for f in dataclasses.fields(RawSample) if f.name not in _SKIP]
_HOST_FIELDS = {f.name for f in dataclasses.fields(HostSample)}
_HOST_ORDER = [f.name for f in dataclasses.fields(HostSample)]
_TABLE_FIELDS = {"active_sessions"}         # rows dictionary-coded (recording/string_table.py)


def _plain(value: Any) -> Any:
    """JSON fallback for driver types that slip into rows (Decimal, bytes, datetime)."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", "replace")
    return str(value)


# One encoder for every row: json.dumps with options builds a new one per call, and a sample is
# a few hundred rows (the live TUI writes each sample to its ring of the last hour, every second).
_dump = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=_plain).encode


def sample_text(raw: RawSample) -> str:
    out: list[str] = []
    for name in _FIELDS:
        value = getattr(raw, name)
        if value is None:
            out.append(f"@{name} none 0")
        elif isinstance(value, str):
            lines = value.split("\n")
            out.append(f"@{name} text {len(lines)}")
            out.extend(lines)
        elif isinstance(value, HostSample):
            # its fields as they stand: values, a tuple and lists of them (asdict deep-copies
            # each, for JSON that reads the same)
            items = {field: getattr(value, field) for field in _HOST_ORDER}
            out.append(f"@{name} host {len(items)}")
            out.extend(_dump([k, v]) for k, v in items.items())
        elif isinstance(value, dict):
            out.append(f"@{name} map {len(value)}")
            out.extend(_dump([k, v]) for k, v in value.items())
        elif name in _TABLE_FIELDS and isinstance(value, (list, tuple)):
            lines = string_table.encode([list(r) for r in value])
            out.append(f"@{name} table {len(lines)}")
            out.extend(lines)
        elif isinstance(value, (list, tuple)):
            out.append(f"@{name} rows {len(value)}")
            out.extend(_dump(row) for row in value)
        else:
            out.append(f"@{name} json 1")
            out.append(_dump(value))
    return "\n".join(out)


def parse_sample_text(text: str, wall: float, mono: float, server: ServerIdentity,
                      variables: dict[str, str]) -> RawSample:
    """Inverse of sample_text. Unknown fields (from a newer minor writer) are ignored."""
    lines = text.split("\n")
    kwargs: dict[str, Any] = {}
    i = 0
    known = set(_FIELDS)
    while i < len(lines):
        header = lines[i]
        if not header.startswith("@"):
            raise ValueError(f"bad section header {header[:40]!r}")
        name, kind, count_s = header[1:].split(" ")
        count = int(count_s)
        body = lines[i + 1:i + 1 + count]
        if len(body) != count:
            raise ValueError(f"section {name} is short")
        i += 1 + count
        if name not in known:
            continue
        if kind == "none":
            kwargs[name] = None
        elif kind == "text":
            kwargs[name] = "\n".join(body)
        elif kind == "host":
            items: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in _json_lines(body)}
            kwargs[name] = HostSample(**{k: v for k, v in items.items() if k in _HOST_FIELDS})
        elif kind == "map":
            kwargs[name] = dict(_json_lines(body))
        elif kind == "rows":
            kwargs[name] = _json_lines(body)
        elif kind == "table":
            kwargs[name] = string_table.decode(body)
        elif kind == "json":
            kwargs[name] = json.loads(body[0])
        else:
            raise ValueError(f"unknown section kind {kind!r}")
    if kwargs.get("failure") is not None:
        kwargs["failure"] = _failure(kwargs["failure"])
    return RawSample(wall=wall, mono=mono, server=server, variables=variables, **kwargs)


def _json_lines(body: list[str]) -> list[Any]:
    """One JSON value per line, read as one array (a sample holds hundreds of rows: one call,
    not hundreds). When the values do not count one per line the body is read line by line,
    which refuses the line that is not one value; lines crafted to split one value and join two
    so the count still holds read as values a well-formed body could hold, never more of them."""
    if not body:
        return []
    values = json.loads("[" + ",".join(body) + "]")
    if len(values) != len(body):
        return [json.loads(line) for line in body]      # raises on the line that is not one value
    return values


def _failure(value: object) -> Failure:
    try:
        return Failure(value)
    except ValueError:                      # a kind this version does not know
        return Failure.OTHER


def state_json(raw: RawSample) -> str:
    return _dump({"server": dataclasses.asdict(raw.server), "variables": raw.variables})


def parse_state_json(text: str) -> tuple[ServerIdentity, dict[str, str]]:
    d = json.loads(text)
    known = {f.name for f in dataclasses.fields(ServerIdentity)}
    server = ServerIdentity(**{k: v for k, v in d.get("server", {}).items() if k in known})
    return server, dict(d.get("variables", {}))
