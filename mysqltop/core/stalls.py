"""Stalls: sessions piled up on a lock, and the session at the root of the pile. Pure.

Input is what one poll read (sources/locks.py row shapes): the row-lock blocking trees
(core/locks.py), every session while one waits (`lock_sessions`: waiters and the sessions that
may hold what they wait for, idle ones included) and the metadata locks where the server lists
them (`metadata_locks`: performance_schema.metadata_locks, or MariaDB's METADATA_LOCK_INFO).

Kinds, by the state the server gives the waiters:
  row_lock          INNODB_TRX "LOCK WAIT" (the blocking tree names the holder exactly)
  metadata_lock     "Waiting for table metadata lock" and the other "… metadata lock" states
  table_lock        the same wait, held by LOCK TABLES (or "Waiting for table level lock")
  global_read_lock  "Waiting for global read lock" / "backup lock" / "commit lock" (FTWRL, BACKUP STAGE)
  user_lock         GET_LOCK: "User lock" (MariaDB, MySQL) / "Waiting for user level lock"
  innodb_queue      innodb_thread_concurrency's queue: no session holds it, a setting does
  running_ddl       a metadata-lock pile behind a DDL statement that is running, not idle

The root is never a waiter: a session waiting on anything is not a candidate. Where the server
lists no lock holders, the root is inferred (the oldest transaction, or the idle session that went
idle just before the first waiter started) and says so, with what to enable to know for sure.
Every text here is the server's (user, host, statements): views escape it (core.safe_text).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mysqltop.core.locks import Blocker, LockWaiter, Session, SessionState, hot_row

# Processlist states of sessions waiting on a server-level lock besides "Waiting for … lock"
# (sources/locks.py asks for the holders while one of these waits).
OTHER_WAIT_STATES: tuple[str, ...] = (
    "User lock", "Waiting for table flush", "waiting in InnoDB queue", "sleeping before entering InnoDB")

# A pile-up: this many sessions waiting this long, or one session waiting LONE_WAIT_S.
STALL_MIN_WAITERS = 2
STALL_MIN_WAIT_S = 5.0
LONE_WAIT_S = 20.0
SQL_CHARS = 300

KINDS = ("row_lock", "metadata_lock", "table_lock", "global_read_lock", "user_lock", "innodb_queue", "running_ddl")

_LOCK_TABLES_MODES = {"SHARED_NO_READ_WRITE", "SHARED_READ_ONLY"}
_DDL_MODES = {"EXCLUSIVE", "SHARED_NO_WRITE", "SHARED_UPGRADABLE", "SHARED_NO_READ_WRITE"}
# Backup-lock modes a backup (FTWRL, BACKUP STAGE) takes; DML and DDL take the others.
_GLOBAL_MODES = {"BACKUP_START", "BACKUP_FLUSH", "BACKUP_WAIT_FLUSH", "BACKUP_WAIT_DDL", "BACKUP_WAIT_COMMIT",
                 "BACKUP_BLOCK_DDL", "BACKUP_END", "BACKUP_FTWRL1", "BACKUP_FTWRL2"}
_GLOBAL_OBJECTS = {"GLOBAL", "COMMIT", "BACKUP", "BACKUP LOCK", "BACKUP_LOCK", "GLOBAL READ LOCK", "COMMIT LOCK"}
_USER_OBJECTS = {"USER LEVEL LOCK", "USER LOCK", "LOCKING SERVICE"}
_RUNNING_DDL_STATES = ("alter", "tmp table", "index", "rename", "copy")


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


@dataclass
class StallRoot:
    """The session to release: never a waiter, never the monitor's own session."""

    thread_id: int | None
    user: str | None = None
    host: str | None = None
    command: str | None = None        # "Sleep": idle (in a transaction when trx_age_s is known)
    state: str | None = None
    time_s: float | None = None       # seconds idle (Sleep) or in its current statement
    trx_age_s: float | None = None
    statement: str | None = None      # what it runs now, else the last statement where the server keeps it
    lock_mode: str | None = None      # the lock it holds that the waiters need, where listed
    kill: str | None = None           # "KILL 42": ready to copy; mysqltop never kills


# Stall.source when the sample does not hold the rows that name a holder (an import whose
# collection lacks them for this moment): nothing to grant or enable, the holder was not recorded.
NOT_RECORDED = "not_recorded"
NOT_RECORDED_WORDS = "the holder was not recorded here (no lock rows for this moment)"


@dataclass
class Stall:
    """Sessions piled up on one kind of lock, and who holds it (None: not visible)."""

    kind: str                          # one of KINDS
    waiting: int                       # sessions waiting
    longest_wait_s: float | None
    on: str                            # what they wait on, in words ("metadata lock on `db`.`t`")
    root: StallRoot | None = None
    source: str = "lock tables"        # where the root comes from: lock tables | performance_schema |
                                       # metadata_lock_info | inferred | none | NOT_RECORDED
    action: str = ""
    hint: str | None = None            # what to enable for an exact holder, and its cost
    waiter_ids: list[int] = field(default_factory=list)   # thread ids, longest wait first (at most 20)
    started: float | None = None       # epoch: when the first waiter started waiting (frame time − longest)

    @property
    def is_stall(self) -> bool:
        """A pile-up worth the first finding, not a wait that comes and goes."""
        w = self.longest_wait_s or 0.0
        return (self.waiting >= STALL_MIN_WAITERS and w >= STALL_MIN_WAIT_S) or (self.waiting >= 1 and w >= LONE_WAIT_S)


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
        r = list(r) + [None] * (12 - len(r))
        tid = _id(r[0])
        if tid is None or tid in seen:          # a second row of a thread (a join repeated it)
            continue
        seen.add(tid)
        out.append(LockSession(tid, _s(r[1]), _s(r[2]), _s(r[3]), _s(r[4], 64), _s(r[5], 64), _n(r[6]),
                               _s(r[7], SQL_CHARS), _n(r[8]), _s(r[9], 32), _n(r[10]), _s(r[11], SQL_CHARS)))
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


# ---- finding the root ----------------------------------------------------------------------------
def _object_words(lock: MetadataLock | None, kind: str) -> str:
    if kind == "global_read_lock":
        return "the global read / backup lock (FLUSH TABLES WITH READ LOCK or BACKUP STAGE)"
    if kind == "user_lock":
        return f"user lock {lock.schema or lock.name!r}" if lock is not None and (lock.schema or lock.name) \
            else "a user lock (GET_LOCK)"
    if kind == "innodb_queue":
        return "InnoDB's concurrency queue (innodb_thread_concurrency)"
    if lock is not None and lock.object_type == "TABLE" and lock.name:
        what = "a LOCK TABLES lock" if kind == "table_lock" else "the metadata lock"
        return f"{what} on `{lock.schema}`.`{lock.name}`"
    return "a table lock (LOCK TABLES)" if kind == "table_lock" else "a metadata lock"


def _is_global(lock: MetadataLock) -> bool:
    if lock.object_type in ("GLOBAL", "COMMIT", "BACKUP LOCK") and lock.mode == "SHARED":
        return True       # MySQL: FLUSH TABLES WITH READ LOCK (GLOBAL, COMMIT), LOCK INSTANCE FOR BACKUP
    return lock.object_type in _GLOBAL_OBJECTS and lock.mode in _GLOBAL_MODES     # MariaDB's backup lock


def _holders(kind: str, waiting: set[int], waiters: list[LockSession],
             locks: list[MetadataLock]) -> list[tuple[int, MetadataLock]]:
    """(thread, lock) of the granted locks the waiters of `kind` need, held by sessions that wait
    for nothing themselves."""
    granted = [m for m in locks if m.granted and m.thread_id is not None and m.thread_id not in waiting]
    wait_ids = {w.thread_id for w in waiters}
    if kind == "global_read_lock":
        return [(m.thread_id, m) for m in granted if _is_global(m) and m.thread_id is not None]
    if kind == "user_lock":
        wanted = {m.key for m in locks if not m.granted and m.thread_id in wait_ids}
        users = [m for m in granted if m.object_type in _USER_OBJECTS]
        exact = [m for m in users if m.key in wanted]
        return [(m.thread_id, m) for m in (exact or users) if m.thread_id is not None]
    # metadata / table locks: the objects the waiters ask for (pending rows, performance_schema),
    # else those a waiter already holds a lock on (an ALTER waiting to upgrade), else any table
    tables = [m for m in granted if m.object_type in ("TABLE", "SCHEMA", "FUNCTION", "PROCEDURE", "TRIGGER",
                                                      "EVENT", "TABLESPACE")]
    wanted = {m.key for m in locks if not m.granted and m.thread_id in wait_ids}
    if not wanted:
        wanted = {m.key for m in locks if m.granted and m.thread_id in wait_ids and m.object_type == "TABLE"}
    exact = [m for m in tables if m.key in wanted]
    return [(m.thread_id, m) for m in (exact or [m for m in tables if m.object_type == "TABLE"])
            if m.thread_id is not None]


def _infer(kind: str, longest: float, candidates: list[LockSession]) -> LockSession | None:
    """The likeliest holder among sessions that wait for nothing: for a metadata lock, the oldest
    transaction open since before the first waiter (idle first: an idle transaction keeps its
    locks), else a statement running since before it; for global and user locks (held by idle
    sessions outside transactions) the session that went idle just before the first waiter."""
    before = [c for c in candidates if c.kind is None]
    trx = [c for c in before if c.trx_age_s is not None and c.trx_age_s >= longest]
    running = [c for c in before if not c.idle and (c.time_s or 0.0) >= longest]
    idle = sorted((c for c in before if c.idle and (c.time_s or 0.0) >= longest), key=lambda c: c.time_s or 0.0)
    if kind in ("metadata_lock", "table_lock", "running_ddl"):
        trx.sort(key=lambda c: (not c.idle, -(c.trx_age_s or 0.0)))
        running.sort(key=lambda c: -(c.time_s or 0.0))
        order = trx + running + idle
    else:
        order = idle + sorted(trx, key=lambda c: -(c.trx_age_s or 0.0)) + running
    return order[0] if order else None


def _root(s: LockSession | None, thread: int | None, mode: str | None = None) -> StallRoot | None:
    if s is None and thread is None:
        return None
    if s is None:
        return StallRoot(thread_id=thread, lock_mode=mode, kill=f"KILL {thread}")
    return StallRoot(thread_id=s.thread_id, user=s.user, host=s.host, command=s.command, state=s.state,
                     time_s=s.time_s, trx_age_s=s.trx_age_s, statement=s.statement or s.last_statement,
                     lock_mode=mode, kill=f"KILL {s.thread_id}" if s.thread_id is not None else None)


def _action(kind: str, root: StallRoot | None) -> str:
    if kind == "innodb_queue":
        return ("no session holds this: the innodb_thread_concurrency limit does; SET GLOBAL "
                "innodb_thread_concurrency = 0 lets them in (dynamic)")
    if root is None or root.kill is None:
        return "find the holder (below) and release it"
    if (root.command or "") == "Sleep":
        what = "its transaction" if root.trx_age_s is not None else {
            "global_read_lock": "its UNLOCK TABLES / BACKUP STAGE END", "table_lock": "its UNLOCK TABLES",
            "user_lock": "its RELEASE_LOCK()"}.get(kind, "its locks")
        return f"{root.kill} (idle: it will not finish on its own; or have its application end {what})"
    if kind == "running_ddl":
        return f"let it finish (it is running; {root.kill} aborts it and rolls its work back)"
    return f"let it finish or commit; {root.kill} if it must stop now (its work is rolled back)"


def _hint(flavor: str | None, source: str | None) -> str:
    if source == "instrument_off":
        return ("performance_schema lists metadata locks once the instrument is on, at runtime: UPDATE "
                "performance_schema.setup_instruments SET ENABLED='YES' WHERE NAME='wait/lock/metadata/sql/mdl' "
                "(cost: one entry per metadata lock taken, small next to the statement)")
    if flavor == "mariadb":
        return ("MariaDB lists metadata-lock holders with INSTALL SONAME 'metadata_lock_info' (no cost until "
                "read; mysqltop reads it only while sessions wait), or with performance_schema=ON and the "
                "wait/lock/metadata/sql/mdl instrument")
    return ("performance_schema.metadata_locks names the holder: performance_schema=ON (restart) with the "
            "wait/lock/metadata/sql/mdl instrument (on by default in MySQL 8), and SELECT on performance_schema")


def _row_lock_stall(b: Blocker, by_id: dict[int, LockSession], now: float | None) -> Stall:
    s = by_id.get(b.thread_id) if b.thread_id is not None else None
    root = StallRoot(thread_id=b.thread_id, user=b.user, host=b.host, command=b.command or (s.command if s else None),
                     state=s.state if s else None, time_s=s.time_s if s else None, trx_age_s=b.trx_age_s,
                     statement=b.statement or (s.last_statement if s else None), kill=b.kill)
    first = b.waiters[0] if b.waiters else None
    on = "a row lock"
    if b.hot_key is not None and (row := hot_row(b)) is not None:
        on = f"a row lock on {row}"
    elif first is not None and first.lock_table:
        on = f"a row lock on {first.lock_table}" + (f" ({first.lock_index})" if first.lock_index else "")
    ids: list[int] = []

    def walk(ws: list[LockWaiter]) -> None:
        for w in ws:
            if w.thread_id is not None and len(ids) < 20:
                ids.append(w.thread_id)
            walk(w.waiters)
    walk(b.waiters)
    st = Stall("row_lock", b.blocked, b.longest_wait_s, on, root, "lock tables", waiter_ids=ids)
    st.action = _action("row_lock", root)
    st.started = now - b.longest_wait_s if now is not None and b.longest_wait_s is not None else None
    return st


def _shared_row_stall(group: list[Blocker], by_id: dict[int, LockSession], now: float | None) -> Stall:
    """The holders of one row in share mode, as one pile: none of them alone releases it."""
    group = sorted(group, key=lambda b: (-(b.trx_age_s or 0.0), b.trx_id))
    st = _row_lock_stall(group[0], by_id, now)
    threads = [t for b in group for t in ([b.thread_id] if b.thread_id is not None else b.candidates)]
    shown = ", ".join(str(t) for t in threads[:8]) + (" …" if len(threads) > 8 else "")
    holders = max(len(group), *(b.hot_holders for b in group))
    if any(b.candidates for b in group):
        # MariaDB lists every read-only transaction as trx 0: which of them hold it, it does not say
        held = (f"it is held in share mode by read-only transactions (the server does not say which: "
                f"{len(threads)} candidates, threads {shown})")
        st.root = None
    else:
        held = f"it is held in share mode by {holders} sessions (threads {shown or '?'})"
        if st.root is not None:
            st.root.kill = None
    st.action = (f"{held}; no single KILL releases it: every holder must end its transaction (their "
                 "application takes shared locks, e.g. SELECT … LOCK IN SHARE MODE, and keeps them)")
    return st


def find(blocking: list[Blocker], session_rows: list[list[Any]] | None, mdl_rows: list[list[Any]] | None,
         flavor: str | None = None, now: float | None = None,
         row_waiting: float | None = None, row_longest: float | None = None,
         unrecorded: frozenset[str] = frozenset()) -> list[Stall]:
    """The piles of one sample, most sessions first. `row_waiting`/`row_longest`: sessions in a
    row-lock wait and the longest, where the blocking trees were not read (a refused lock-table
    statement): the pile is still reported, with the holder not visible. `unrecorded`: the row
    sources the sample does not hold at all (Frame.unrecorded): a holder missing there was not
    recorded — nothing to grant or enable."""
    sessions = lock_sessions(session_rows)
    by_id = {s.thread_id: s for s in sessions if s.thread_id is not None}
    out: list[Stall] = []
    # row locks: the server's lock tables name the holder exactly
    shared: dict[str, list[Blocker]] = {}
    for b in blocking:
        if b.blocked and b.hot_holders > 1 and (row := hot_row(b)) is not None:
            shared.setdefault(row, []).append(b)
        elif b.blocked:
            out.append(_row_lock_stall(b, by_id, now))
    out += [_shared_row_stall(group, by_id, now) for group in shared.values()]
    if not blocking and row_waiting and row_longest is not None and "lock_waits" in unrecorded:
        st = Stall("row_lock", int(row_waiting), row_longest, "row locks", None, NOT_RECORDED,
                   action="look for it in the samples before and after this one")
        st.started = now - row_longest if now is not None else None
        out.append(st)
    elif not blocking and row_waiting and row_longest is not None:
        st = Stall("row_lock", int(row_waiting), row_longest, "row locks", None, "none",
                   action="find the holder: the lock-wait statement was not read",
                   hint="the holder shows with PROCESS (INNODB_TRX, INNODB_LOCK_WAITS) or, on MySQL 8, SELECT on "
                        "performance_schema (data_lock_waits)")
        st.started = now - row_longest if now is not None else None
        out.append(st)
    # server-level locks: group the waiters by kind
    waiting_ids = {s.thread_id for s in sessions if s.kind is not None and s.thread_id is not None}
    by_kind: dict[str, list[LockSession]] = {}
    for s in sessions:
        k = s.kind
        if k is not None and k != "row_lock":
            by_kind.setdefault(k, []).append(s)
    source, locks = metadata_locks(mdl_rows)
    for kind, waiters in by_kind.items():
        waiters.sort(key=lambda w: -(w.time_s or 0.0))
        longest = waiters[0].time_s or 0.0
        st = Stall(kind, len(waiters), longest, _object_words(None, kind),
                   waiter_ids=[w.thread_id for w in waiters[:20] if w.thread_id is not None])
        st.started = now - longest if now is not None else None
        if kind == "innodb_queue":
            st.source, st.action = "none", _action(kind, None)
            out.append(st)
            continue
        holders = _holders(kind, waiting_ids, waiters, locks) if source in ("performance_schema",
                                                                           "metadata_lock_info") else []
        if holders:
            # the longest-held first: idle holders, then the oldest transaction / statement
            def rank(h: tuple[int, MetadataLock]) -> tuple[bool, float]:
                s = by_id.get(h[0])
                if s is None:
                    return (True, 0.0)
                return (not s.idle, -max(s.trx_age_s or 0.0, s.time_s or 0.0))
            holders.sort(key=rank)
            thread, lock = holders[0]
            st.root = _root(by_id.get(thread), thread, lock.mode)
            st.source = source or "lock tables"
            st.on = _object_words(lock, kind)
            if kind == "metadata_lock" and lock.mode in _LOCK_TABLES_MODES and (st.root and st.root.command == "Sleep"):
                st.kind, st.on = "table_lock", _object_words(lock, "table_lock")
        else:
            guess = _infer(kind, longest, [s for s in sessions if s.thread_id not in waiting_ids])
            st.root = _root(guess, None)
            if "metadata_locks" in unrecorded:
                st.source = "inferred" if guess is not None else NOT_RECORDED
            else:
                st.source = "inferred" if guess is not None else "none"
                st.hint = _hint(flavor, source)
        if st.root is not None and st.kind in ("metadata_lock", "table_lock") and (st.root.command or "") != "Sleep":
            running_ddl = (st.root.lock_mode in _DDL_MODES or any(
                w in (st.root.state or "").lower() for w in _RUNNING_DDL_STATES))
            if running_ddl and st.root.trx_age_s is None:
                st.kind = "running_ddl"
        st.action = _action(st.kind, st.root)
        out.append(st)
    out.sort(key=lambda s: (not s.is_stall, -s.waiting, -(s.longest_wait_s or 0.0)))
    return out


def metadata_trees(stalls: list[Stall], session_rows: list[list[Any]] | None) -> list[Blocker]:
    """The server-level piles as blocking trees (root, then its waiters), for the locks pane and
    JSON: the same shape as the row-lock trees."""
    by_id = {s.thread_id: s for s in lock_sessions(session_rows)}
    out: list[Blocker] = []
    for st in stalls:
        if st.kind == "row_lock" or st.root is None:
            continue
        r = st.root
        b = Blocker(thread_id=r.thread_id, trx_id="", user=r.user, host=r.host, trx_age_s=r.trx_age_s,
                    command=r.command, statement=r.statement, blocked=st.waiting, depth=1,
                    longest_wait_s=st.longest_wait_s, kill=r.kill)
        for tid in st.waiter_ids:
            w = by_id.get(tid)
            if w is None:
                continue
            b.waiters.append(LockWaiter(thread_id=tid, trx_id="", user=w.user, host=w.host, waiting_s=w.time_s,
                                        statement=w.statement, lock_table=st.on, lock_mode=w.state,
                                        lock_type=st.kind))
        out.append(b)
    return out
