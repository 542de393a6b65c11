"""Active session samples: each busy session of one poll as (wait class, wait object, statement
shape, user, client host, schema, command, state), identical tuples counted once — what the load
is sliced by, over any window, afterwards (docs/wait-classes.md, "Dimensions").

Built by the source from the rows the poll already read (every busy session, not only the ones
the sessions field keeps; the lock-wait rows; the metadata locks), so no statement is added. The
wait class of one session is what its own rows say: a row-lock waiter from the lock-wait rows, the
rest from the processlist state (core/wait_load.state_class). Latch and IO waits no processlist
row shows are given their share of the sessions on CPU when a frame is derived
(wait_load.sessions_of). Pure.

Row shape (RawSample.active_sessions, recorded as-is):
  [wait_class, wait_object, shape, user, host, schema, command, state, sessions]
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from mysqltop.core.frame import WAIT_CLASSES
from mysqltop.core.statement_shape import shape
from mysqltop.core.wait_load import state_class

CPU, ROW_LOCK, METADATA_LOCK, LATCH, IO, COMMIT, OTHER = WAIT_CLASSES

FIELDS = ("wait_class", "object", "sql", "user", "host", "schema", "command", "state")
MAX_ROWS = 200            # distinct tuples kept per poll; the rest are one "(other)" row
TEXT_CHARS = 160          # a user, host, schema, object or state cut to this (shapes: statement_shape)
OTHER_LABEL = "(other)"
CPU_OBJECT = "CPU"

_PORT = re.compile(r":\d+$")


def client_host(host: Any, with_port: bool) -> str:
    """The client's host without its port: SHOW PROCESSLIST prints `10.0.3.4:51234` (an IPv6
    address `::1:51234`), performance_schema the host alone (which may end in `:1`, an IPv6
    address): a port is taken off only where the source prints one."""
    s = "" if host is None else str(host)
    if with_port and s not in ("localhost", ""):
        if s.startswith("[") and "]:" in s:
            return s[1:s.index("]:")]
        s = _PORT.sub("", s)
    return s[:TEXT_CHARS]


def _text(v: Any) -> str:
    return "" if v is None else str(v)[:TEXT_CHARS]


def _io_object(state: str) -> str:
    s = state.lower()
    if "tmp table" in s or "heap" in s:
        return "temporary table"
    if "disk space" in s:
        return "disk full"
    if "reading file" in s:
        return "file (LOAD DATA)"
    return "data file"


def _commit_object(state: str) -> str:
    s = state.lower()
    if "semi" in s:
        return "semi-sync ack"
    if "binlog" in s or "prior transaction" in s:
        return "binary log"
    return "redo log"


def _state_object(state: str) -> str:
    """A lock named by the state alone: 'Waiting for table metadata lock' → 'table metadata lock'."""
    s = state.strip()
    low = s.lower()
    return (s[len("waiting for "):] if low.startswith("waiting for ") else s) or "lock"


def _row_lock_objects(lock_waits: Iterable[list[Any]] | None, row_locks: Iterable[list[Any]] | None
                      ) -> dict[int, str]:
    """Waiting thread → the table (and index) of the row it waits for."""
    out: dict[int, str] = {}

    def put(thread: Any, table: Any, index: Any) -> None:
        if isinstance(thread, int) and thread not in out:
            t = _text(table) or "row"
            out[thread] = f"{t} ({index})" if index not in (None, "") else t
    for r in row_locks or ():
        if len(r) >= 13 and r[8] in (1, True, "1"):
            put(r[2], r[11], r[12])
    for r in lock_waits or ():
        if len(r) >= 16:
            put(r[1], r[14], r[15])
    return out


def _mdl_objects(metadata_locks: Iterable[list[Any]] | None) -> dict[int, str]:
    """Waiting thread → the object of its pending metadata, table, global or user lock."""
    out: dict[int, str] = {}
    for r in metadata_locks or ():
        if len(r) < 8 or not isinstance(r[1], int) or str(r[6]).upper() != "PENDING" or r[1] in out:
            continue
        kind, schema, name = _text(r[2]).upper(), _text(r[3]), _text(r[4])
        if kind == "USER LEVEL LOCK":
            out[r[1]] = f"user lock {name}"
        elif kind in ("GLOBAL", "BACKUP", "COMMIT", "BACKUP LOCK"):
            out[r[1]] = f"{kind.lower()} lock"
        elif schema and name:
            out[r[1]] = f"`{schema}`.`{name}`"
        else:
            out[r[1]] = (schema or name or kind.lower() or "metadata lock")[:TEXT_CHARS]
    return out


def rows(busy: Iterable[list[Any]], lock_waits: Iterable[list[Any]] | None = None,
         row_locks: Iterable[list[Any]] | None = None, metadata_locks: Iterable[list[Any]] | None = None,
         *, with_port: bool = False) -> list[list[Any]]:
    """The busy sessions' rows ([thread, user, host, db, command, state, time_s, sql], sources/
    lock_reads.py) → active session rows, identical tuples counted, most sessions first."""
    row_objects = _row_lock_objects(lock_waits, row_locks)
    mdl_objects = _mdl_objects(metadata_locks)
    counts: dict[tuple[str, ...], int] = {}
    for r in busy:
        if len(r) < 8:
            continue
        command, state = _text(r[4]), _text(r[5])
        cls = state_class(command, state)
        if cls is None:
            continue
        thread = r[0] if isinstance(r[0], int) else None
        if thread is not None and thread in row_objects:
            cls, obj = ROW_LOCK, row_objects[thread]
        elif cls == METADATA_LOCK:
            obj = mdl_objects.get(thread, "") if thread is not None else ""
            obj = obj or _state_object(state)
        elif cls == IO:
            obj = _io_object(state)
        elif cls == COMMIT:
            obj = _commit_object(state)
        elif cls == OTHER:
            obj = "SLEEP()" if state.lower().startswith("user sleep") else (_state_object(state) or command)
        else:
            obj = CPU_OBJECT
        sql = shape(r[7] if isinstance(r[7], str) else None) or f"({command or '?'})"
        key = (cls, obj[:TEXT_CHARS], sql, _text(r[1]), client_host(r[2], with_port), _text(r[3]), command,
               state[:TEXT_CHARS])
        counts[key] = counts.get(key, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    out = [[*k, n] for k, n in ranked[:MAX_ROWS]]
    rest = sum(n for _, n in ranked[MAX_ROWS:])
    if rest:
        out.append([OTHER, OTHER_LABEL, OTHER_LABEL, OTHER_LABEL, OTHER_LABEL, OTHER_LABEL, OTHER_LABEL,
                    OTHER_LABEL, rest])
    return out
