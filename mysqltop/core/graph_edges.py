"""The wait-for edges of one sample, from the server's own rows only (core/wait_graph.py joins them).
Pure. Row shapes: sources/lock_reads.py.

  row           INNODB_LOCK_WAITS / data_lock_waits pairs (`lock_waits`), and INNODB_LOCKS with its
                transactions (`row_locks`): a waiting request → every other transaction holding a
                lock on the same record or table. MariaDB lists every read-only transaction as
                trx 0: an edge to such a holder is `inferred` (several sessions, the server does
                not say which).
  mdl / user    performance_schema.metadata_locks: a PENDING request → each GRANTED lock on the same
  / backup      object whose mode makes it wait (core/mdl_modes.py), and each higher-priority
                PENDING request queued on it (`queued`).
                MariaDB's METADATA_LOCK_INFO lists granted locks only. The request of a waiter is
                then what it already holds and upgrades (an ALTER holding SHARED_UPGRADABLE asks
                for EXCLUSIVE on that table), or — only where its statement has one fixed shape
                that names a single object (`SELECT GET_LOCK('x', 10)`, `UPDATE db.t SET …`, no
                comment, no join, not cut) — that object; the holder is still the granted row
                whose mode blocks that request. Anything else gives no edge (the waiter stays
                unresolved: candidates, never a KILL).
  global_read   sessions waiting for the global read / backup / commit lock → each session
                holding a backup or FLUSH TABLES WITH READ LOCK scope lock (both sources list those).
"""

from __future__ import annotations

import re
from typing import Any

from mysqltop.core import mdl_modes
from mysqltop.core.stall_rows import LockSession, MetadataLock
from mysqltop.core.wait_graph import BACKUP, GLOBAL_READ, MDL, ROW, USER, Edge

ROW_LOCK_WIDTH = 19
LOCK_WAIT_WIDTH = 19
STATEMENT_CUT = 300        # sources cut statements here: a statement this long may be cut, never parsed

_USER_OBJECTS = {"USER LEVEL LOCK", "USER LOCK", "LOCKING SERVICE"}
_SCOPE_OBJECTS = {"GLOBAL", "COMMIT", "BACKUP", "BACKUP LOCK", "BACKUP_LOCK", "GLOBAL READ LOCK", "COMMIT LOCK"}


def _row(r: Any, width: int) -> list[Any] | None:
    return list(r) + [None] * (width - len(r)) if isinstance(r, list) else None


def _id(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v if v >= 0 else None
    if isinstance(v, float) and v.is_integer() and v >= 0:
        return int(v)
    if isinstance(v, str) and v.isdigit():
        return int(v)
    return None


def _truthy(v: Any) -> bool:
    return v is True or (isinstance(v, (int, float)) and not isinstance(v, bool) and v == 1) or v in ("1", b"1")


def _row_words(table: Any, index: Any, data: Any) -> str:
    out = str(table or "?")[:200]
    if index:
        out += f" {str(index)[:64]}"
    if data is not None:
        out += f" key {str(data)[:200]}"
    return out


# ---- row locks ------------------------------------------------------------------------------------
def row_edges(lock_waits: list[list[Any]] | None, row_locks: list[list[Any]] | None) -> tuple[list[Edge], set[int]]:
    """(edges, waiting threads) from the row-lock rows."""
    edges: list[Edge] = []
    waiting: set[int] = set()
    threads: dict[str, set[int]] = {}          # trx → its sessions (several: MariaDB's trx 0)
    requested: dict[str, set[str]] = {}
    waits_on: dict[tuple[str, ...], list[tuple[str, int, list[Any]]]] = {}
    holds: dict[tuple[str, ...], set[str]] = {}
    good: list[list[Any]] = []
    for raw in row_locks or []:
        r = _row(raw, ROW_LOCK_WIDTH)
        if r is None or r[1] is None:
            continue
        good.append(r)
        trx, tid = str(r[1]), _id(r[2])
        if tid is not None:
            threads.setdefault(trx, set()).add(tid)
        if _truthy(r[8]):
            requested.setdefault(trx, set()).add(str(r[0]))
            if tid is not None:
                waiting.add(tid)
                waits_on.setdefault(_lock_key(r), []).append((trx, tid, r))
    for r in good:
        trx = str(r[1])
        if not _truthy(r[8]) and str(r[0]) not in requested.get(trx, set()):
            holds.setdefault(_lock_key(r), set()).add(trx)
    shared = {trx for trx, who in threads.items() if len(who) > 1}
    for key, ws in waits_on.items():
        for wtrx, wtid, wr in ws:
            words = _row_words(wr[11], wr[12], wr[16])
            for htrx in sorted(holds.get(key, set())):
                if htrx == wtrx:
                    continue
                who = sorted(threads.get(htrx, set()) - {wtid})
                # a shared id's sessions that wait themselves hold nothing the server lists apart
                free = [t for t in who if t not in waiting] if htrx in shared else who
                for t in free:
                    edges.append(Edge(wtid, t, ROW, words, "row_locks", None, inferred=htrx in shared))
    for raw in lock_waits or []:
        r = _row(raw, LOCK_WAIT_WIDTH)
        if r is None:
            continue
        w, b = _id(r[1]), _id(r[7])
        if w is None or b is None or w == b:
            continue
        waiting.add(w)
        if str(r[6]) in shared:
            continue                 # the join gave it one of the shared id's threads: not known
        edges.append(Edge(w, b, ROW, _row_words(r[14], r[15], r[18]), "lock_waits"))
    return edges, waiting


def _lock_key(r: list[Any]) -> tuple[str, ...]:
    if str(r[10] or "").upper() == "TABLE":
        return ("TABLE", str(r[11]))
    return ("RECORD", str(r[11]), str(r[13]), str(r[14]), str(r[15]))


# ---- statements of one fixed shape ------------------------------------------------------------------
_IDENT = r"(?:`[^`]{1,64}`|[A-Za-z0-9_$]{1,64})"
_TABLE = rf"({_IDENT})(?:\s*\.\s*({_IDENT}))?"
_GET_LOCK = re.compile(r"\s*SELECT\s+GET_LOCK\s*\(\s*'([^'\\]{1,64})'\s*,\s*-?\d+(?:\.\d+)?\s*\)\s*;?\s*", re.I)
_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"\s*UPDATE\s+(?:LOW_PRIORITY\s+)?(?:IGNORE\s+)?{_TABLE}\s+SET\s.*", re.I | re.S), "SHARED_WRITE"),
    (re.compile(rf"\s*(?:INSERT|REPLACE)\s+(?:IGNORE\s+)?INTO\s+{_TABLE}\s*(?:\([^()]*\)\s*)?VALUES\s*\(.*",
                re.I | re.S), "SHARED_WRITE"),
    (re.compile(rf"\s*DELETE\s+FROM\s+{_TABLE}(?:\s+WHERE\s.*)?\s*;?\s*", re.I | re.S), "SHARED_WRITE"),
    (re.compile(rf"\s*SELECT\s+[^;]*?\s+FROM\s+{_TABLE}(?:\s+WHERE\s[^;]*?)?"
                r"(\s+FOR\s+UPDATE|\s+LOCK\s+IN\s+SHARE\s+MODE)?\s*;?\s*", re.I | re.S), "SHARED_READ"),
    (re.compile(rf"\s*ALTER\s+(?:ONLINE\s+)?(?:IGNORE\s+)?TABLE\s+{_TABLE}\s.*", re.I | re.S), "SHARED_UPGRADABLE"),
    (re.compile(rf"\s*(?:TRUNCATE(?:\s+TABLE)?|DROP\s+TABLE(?:\s+IF\s+EXISTS)?)\s+{_TABLE}\s*;?\s*", re.I),
     "EXCLUSIVE"),
    (re.compile(rf"\s*LOCK\s+TABLES?\s+{_TABLE}\s+(READ|WRITE)\s*;?\s*", re.I), "LOCK_TABLES"),
)
# Words that bring in another object, or hide text from the server: never a fixed shape.
_OTHER = re.compile(r"/\*|\*/|--|#|\bJOIN\b|\bUNION\b|\bUSING\b|\(\s*SELECT\b|\bSELECT\b.*\bSELECT\b", re.I | re.S)


def _name(ident: str) -> str:
    return ident[1:-1] if ident.startswith("`") else ident


def requested(statement: str | None, db: str | None) -> tuple[str, str, str, str] | None:
    """(object type, schema, name, mode) a waiting statement asks for, where its text has one of
    the fixed shapes above; None otherwise (or where it may have been cut)."""
    s = statement or ""
    if not s or len(s) >= STATEMENT_CUT:
        return None
    if (m := _GET_LOCK.fullmatch(s)) is not None:
        return ("USER LEVEL LOCK", "", m[1], "SHARED_NO_WRITE")
    if _OTHER.search(s):
        return None
    for shape, mode in _SHAPES:
        m = shape.fullmatch(s)
        if m is None:
            continue
        first, second = _name(m[1]), _name(m[2]) if m[2] else None
        schema, name = (first, second) if second is not None else (db or "", first)
        if not schema:
            return None
        if mode == "SHARED_READ" and m[3] and "UPDATE" in m[3].upper():
            mode = "SHARED_WRITE"
        if mode == "LOCK_TABLES":
            mode = "SHARED_NO_READ_WRITE" if m[3].upper() == "WRITE" else "SHARED_READ_ONLY"
        return ("TABLE", schema, name, mode)
    return None


# ---- metadata, user and backup locks ------------------------------------------------------------------
def _user_name(m: MetadataLock) -> str:
    return m.name or m.schema or ""


def _object_key(object_type: str, schema: str | None, name: str | None) -> tuple[str, str, str]:
    if object_type in _USER_OBJECTS:
        return ("USER LEVEL LOCK", "", name or schema or "")
    return (object_type, schema or "", name or "")


def _words(key: tuple[str, str, str]) -> str:
    t, schema, name = key
    if t == "USER LEVEL LOCK":
        return f"'{name}'"
    if name:
        return f"`{schema}`.`{name}`"
    return f"`{schema}`" if schema else t.lower()


def _kind(key: tuple[str, str, str]) -> str:
    if key[0] == "USER LEVEL LOCK":
        return USER
    if key[0] in _SCOPE_OBJECTS:
        return BACKUP if key[0].startswith("BACKUP") else GLOBAL_READ
    return MDL


def metadata_edges(source: str | None, locks: list[MetadataLock], sessions: list[LockSession]) -> list[Edge]:
    """Edges of the metadata, user and backup-lock waits (source: "performance_schema" or
    "metadata_lock_info"; anything else lists no holder and gives none)."""
    if source not in ("performance_schema", "metadata_lock_info"):
        return []
    by_id = {s.thread_id: s for s in sessions if s.thread_id is not None}
    granted: dict[tuple[str, str, str], list[MetadataLock]] = {}
    pending: dict[tuple[str, str, str], list[MetadataLock]] = {}
    for m in locks:
        if m.thread_id is None:
            continue
        key = _object_key(m.object_type, m.schema, m.name)
        (granted if m.granted else pending).setdefault(key, []).append(m)
    # what each waiting session asks for: (object key, mode)
    asks: dict[int, list[tuple[tuple[str, str, str], str]]] = {}
    for key, ms in pending.items():
        for m in ms:
            asks.setdefault(m.thread_id or 0, []).append((key, m.mode))
    out: list[Edge] = []
    waiting_mdl = {s.thread_id for s in sessions if s.thread_id is not None and s.kind in
                   ("metadata_lock", "table_lock", "user_lock", "global_read_lock")}
    for tid in sorted(waiting_mdl):
        s = by_id[tid]
        if s.kind == "global_read_lock":
            for key, ms in sorted(granted.items()):
                for m in ms if key[0] in _SCOPE_OBJECTS else ():
                    if m.thread_id != tid and m.thread_id is not None and mdl_modes.blocks_global(key[0], m.mode):
                        out.append(Edge(tid, m.thread_id, BACKUP if "BACKUP" in key[0] else GLOBAL_READ,
                                        "the global read / backup lock", source, m.mode))
            continue
        mine = asks.get(tid, [])
        if not mine and source == "metadata_lock_info":
            mine = _plugin_asks(s, granted, by_id)
        for key, mode in mine:
            if key[0] in _SCOPE_OBJECTS:
                for m in granted.get(key, []):
                    if m.thread_id != tid and m.thread_id is not None and mdl_modes.blocks_global(key[0], m.mode):
                        out.append(Edge(tid, m.thread_id, _kind(key), _words(key), source, m.mode))
                continue
            before = len(out)
            for m in granted.get(key, []):
                held = _held_mode(m, by_id)
                if m.thread_id != tid and m.thread_id is not None and mdl_modes.blocks_granted(held, mode):
                    out.append(Edge(tid, m.thread_id, _kind(key), _words(key), source, held))
            for other, omode in _queued(key, pending, granted, by_id, source):
                if other != tid and mdl_modes.blocks_queued(omode, mode) and not mdl_modes.blocks_queued(mode, omode):
                    out.append(Edge(tid, other, _kind(key), _words(key), source, omode, queued=True))
            others = {m.thread_id for m in granted.get(key, []) if m.thread_id not in (None, tid)}
            if len(out) == before and len(others) == 1 and not any(
                    m.thread_id not in (None, tid) for m in pending.get(key, [])):
                # the request waits and one other session alone holds the object: that one (a
                # mode the list shows from before an upgrade it made since, say)
                (only,) = others
                mode_held = next(m.mode for m in granted[key] if m.thread_id == only)
                out.append(Edge(tid, only, _kind(key), _words(key), source, mode_held))
    return out


def _held_mode(m: MetadataLock, by_id: dict[int, LockSession]) -> str:
    """The mode a granted lock has now: MariaDB's performance_schema keeps showing an ALTER's
    SHARED_UPGRADABLE after it upgraded to SHARED_NO_WRITE for its copy; the server's own state
    ("copy to tmp table", "altering table") says it did."""
    s = by_id.get(m.thread_id) if m.thread_id is not None else None
    if mdl_modes.short(m.mode) == "SU" and s is not None and s.kind is None and _copying(s.state):
        return "SHARED_NO_WRITE"
    return m.mode


_COPY_STATES = ("copy to tmp table", "altering table", "committing alter", "rename result table")


def _copying(state: str | None) -> bool:
    st = (state or "").strip().lower()
    return any(w in st for w in _COPY_STATES)


def _queued(key: tuple[str, str, str], pending: dict[tuple[str, str, str], list[MetadataLock]],
            granted: dict[tuple[str, str, str], list[MetadataLock]],
            by_id: dict[int, LockSession], source: str) -> list[tuple[int, str]]:
    """Other sessions' pending requests on `key`: listed (performance_schema), or — from
    METADATA_LOCK_INFO's granted rows — a waiting session that holds an upgradable lock on it
    (an ALTER waiting for EXCLUSIVE)."""
    if source == "performance_schema":
        return [(m.thread_id, m.mode) for m in pending.get(key, []) if m.thread_id is not None]
    out = []
    for m in granted.get(key, []):
        s = by_id.get(m.thread_id) if m.thread_id is not None else None
        up = mdl_modes.UPGRADES.get(mdl_modes.short(m.mode) or "")
        if s is not None and s.kind == "metadata_lock" and up is not None and m.thread_id is not None:
            out.append((m.thread_id, "EXCLUSIVE"))
    return out


def _plugin_asks(s: LockSession, granted: dict[tuple[str, str, str], list[MetadataLock]],
                 by_id: dict[int, LockSession]) -> list[tuple[tuple[str, str, str], str]]:
    """What a waiting session asks for where only granted locks are listed: the upgrade of a
    lock it holds, else the one object its statement's fixed shape names."""
    tid = s.thread_id
    if s.kind == "metadata_lock":
        ups = [(key, "EXCLUSIVE") for key, ms in granted.items() for m in ms
               if m.thread_id == tid and key[0] == "TABLE" and (mdl_modes.short(m.mode) or "") in mdl_modes.UPGRADES]
        if ups:
            return sorted(ups)
    req = requested(s.statement, s.db)
    if req is None and s.kind == "metadata_lock":
        # METADATA_LOCK_INFO lists every granted lock: where one other session alone holds table
        # locks, what the waiter waits for is one of them (or queued behind one who waits for it)
        others = {m.thread_id for ms in granted.values() for m in ms
                  if m.object_type == "TABLE" and m.thread_id not in (None, tid)}
        if len(others) == 1:
            (only,) = others
            return sorted((key, "EXCLUSIVE") for key, ms in granted.items() for m in ms
                          if m.thread_id == only and key[0] == "TABLE")
    if req is None:
        return []
    otype, schema, name, mode = req
    if s.kind == "user_lock" and otype != "USER LEVEL LOCK":
        return []
    if s.kind in ("metadata_lock", "table_lock") and otype != "TABLE":
        return []
    return [(_object_key(otype, schema, name), mode)]
