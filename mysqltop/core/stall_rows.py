"""The rows a stall is found in, as one poll read them (sources/lock_reads.py shapes): every session while
one waits on a lock (`lock_sessions`) and the metadata locks where the server lists them
(`metadata_locks`), and which server-level lock a processlist state waits on. Pure; the text is
the server's, kept as data and cut to a bound (views escape it: core.safe_text)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mysqltop.core.blocking import Session, SessionState

SQL_CHARS = 300

# Processlist states of sessions waiting on a server-level lock besides "Waiting for … lock"
# (sources/lock_reads.py asks for the holders while one of these waits).
OTHER_WAIT_STATES: tuple[str, ...] = (
    "User lock", "Waiting for table flush", "waiting in InnoDB queue", "sleeping before entering InnoDB")


def wait_kind(state: str | None) -> str | None:
    """The kind of server-level lock a processlist state waits on; None: not waiting on one."""
    s = (state or "").strip().lower()
    if not s:
        return None
    if "innodb queue" in s or "before entering innodb" in s:
        return "innodb_queue"
    if s == "user lock" or "user level lock" in s or "user lock" in s or "locking service" in s:
        return "user_lock"
    if "global read lock" in s or "backup lock" in s or "commit lock" in s:
        return "global_read_lock"
    if "table level lock" in s:
        return "table_lock"
    if s == "waiting for table flush" or (s.startswith("waiting for ") and s.endswith("lock")):
        return "metadata_lock"
    return None


@dataclass
class LockSession(Session):
    """One row of `lock_sessions`: a session, with its transaction when it has one."""

    trx_age_s: float | None = None
    trx_state: str | None = None
    trx_wait_s: float | None = None
    last_statement: str | None = None
    program: str | None = None        # connect attribute program_name ("mysqltop": a monitor's own session)

    @property
    def kind(self) -> str | None:
        """What it waits on (wait_kind), "row_lock" for an InnoDB lock wait, None: not waiting."""
        if self.trx_state == "LOCK WAIT":
            return "row_lock"
        return wait_kind(self.state)

    @property
    def idle(self) -> bool:
        return (self.command or "") == "Sleep"


@dataclass
class MetadataLock:
    """One row of `metadata_locks`: mode and object type without the MDL_ prefix, upper case."""

    thread_id: int | None
    object_type: str
    schema: str | None
    name: str | None
    mode: str
    granted: bool
    duration: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.object_type, self.schema or "", self.name or "")


# ---- rows ----------------------------------------------------------------------------------------
def _n(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v) if v >= 0 else None
    try:
        x = float(str(v))
    except ValueError:
        return None
    return x if x >= 0 else None


def _id(v: Any) -> int | None:
    n = _n(v)
    return int(n) if n is not None and float(n).is_integer() else None


def _s(v: Any, limit: int = 200) -> str | None:
    return None if v is None or v == "" else str(v)[:limit]


def lock_sessions(rows: list[list[Any]] | None) -> list[LockSession]:
    out: list[LockSession] = []
    seen: set[int] = set()
    for r in rows or []:
        if not isinstance(r, list):
            continue
        r = list(r) + [None] * (13 - len(r))
        tid = _id(r[0])
        if tid is None or tid in seen:          # a second row of a thread (a join repeated it)
            continue
        seen.add(tid)
        out.append(LockSession(tid, _s(r[1]), _s(r[2]), _s(r[3]), _s(r[4], 64), _s(r[5], 64), _n(r[6]),
                               _s(r[7], SQL_CHARS), _n(r[8]), _s(r[9], 32), _n(r[10]), _s(r[11], SQL_CHARS),
                               _s(r[12], 32)))
    return out


def _upper(v: Any) -> str:
    s = str(v or "").strip().upper()
    return s.removeprefix("MDL_")


def metadata_locks(rows: list[list[Any]] | None) -> tuple[str | None, list[MetadataLock]]:
    """(source, locks): source "performance_schema" | "metadata_lock_info" | "instrument_off",
    None when not read (nobody waited, or the server lists none)."""
    source: str | None = None
    out: list[MetadataLock] = []
    for r in rows or []:
        if not isinstance(r, list):
            continue
        r = list(r) + [None] * (8 - len(r))
        src = str(r[0] or "")
        if src == "instrument_off":
            source = source or src
            continue
        if src not in ("performance_schema", "metadata_lock_info"):
            continue
        source = src
        tid = _id(r[1])
        if tid is None:
            continue
        obj = _upper(r[2]).replace("_", " ") if r[2] else ""
        obj = {"TABLE METADATA LOCK": "TABLE", "SCHEMA METADATA LOCK": "SCHEMA"}.get(obj, obj)
        out.append(MetadataLock(tid, obj, _s(r[3], 64), _s(r[4], 64), _upper(r[5]),
                                _upper(r[6]) != "PENDING", _s(r[7], 32)))
    return source, out


def waiting_groups(groups: list[SessionState]) -> list[tuple[int, float | None]]:
    """(sessions, longest seconds) of the session-state groups waiting on a server-level lock."""
    return [(g.sessions, g.longest_s) for g in groups if wait_kind(g.state) is not None]
