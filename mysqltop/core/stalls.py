"""Stalls: sessions piled up on a lock, and the session at the root of the pile. Pure.

Input is what one poll read (sources/lock_reads.py row shapes, read by core/stall_rows.py): the row-lock
blocking trees (core/blocking.py), every session while one waits (`lock_sessions`: waiters and the
sessions that may hold what they wait for, idle ones included) and the metadata locks where the
server lists them (`metadata_locks`: performance_schema.metadata_locks, or MariaDB's
METADATA_LOCK_INFO).

Kinds, by the state the server gives the waiters:
  row_lock          INNODB_TRX "LOCK WAIT" (the blocking tree names the holder exactly)
  metadata_lock     "Waiting for table metadata lock" and the other "… metadata lock" states
  table_lock        the same wait, held by LOCK TABLES (or "Waiting for table level lock")
  global_read_lock  "Waiting for global read lock" / "backup lock" / "commit lock" (FTWRL, BACKUP STAGE)
  user_lock         GET_LOCK: "User lock" (MariaDB, MySQL) / "Waiting for user level lock"
  innodb_queue      innodb_thread_concurrency's queue: no session holds it, a setting does
  running_ddl       a metadata-lock pile behind a DDL statement that is running, not idle

The root is never a waiter: a session waiting on anything is not a candidate. A root is named
(with its KILL line) only when the server's own rows say it holds what the waiters wait for: the
lock-wait rows of a row lock, a granted metadata-lock row on the object a waiter asks for, the one
holder of a backup or user lock in a complete lock list (`Certainty.CONFIRMED`). Anything else is
`Certainty.INFERRED`: timing, statement text and idle times are the application's to arrange, so
they only order the candidates (every session that could hold it, oldest first) and never choose a
single session to kill. Every text here is the server's (user, host, statements): views escape it
(core.safe_text).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from mysqltop.core.instrumentation import MDL_COST, MDL_ENABLE_SQL, MDL_INSTRUMENT, MDL_PLUGIN_SQL
from mysqltop.core.blocking import Blocker, LockWaiter, hot_row
from mysqltop.core.stall_rows import LockSession, MetadataLock, lock_sessions, metadata_locks
# what sources/lock_reads.py asks about a processlist state, named here too
from mysqltop.core.stall_rows import wait_kind as wait_kind

# A pile-up: this many sessions waiting this long, or one session waiting LONE_WAIT_S.
STALL_MIN_WAITERS = 2
STALL_MIN_WAIT_S = 5.0
LONE_WAIT_S = 20.0
# The same root seen again within this many seconds is the same stall: waiters that hit
# innodb_lock_wait_timeout retry at once, and a poll or two may fall between.
STALL_GAP_S = 15.0

KINDS = ("row_lock", "metadata_lock", "table_lock", "global_read_lock", "user_lock", "innodb_queue", "running_ddl")

_LOCK_TABLES_MODES = {"SHARED_NO_READ_WRITE", "SHARED_READ_ONLY"}
_DDL_MODES = {"EXCLUSIVE", "SHARED_NO_WRITE", "SHARED_UPGRADABLE", "SHARED_NO_READ_WRITE"}
# Backup-lock modes a backup (FTWRL, BACKUP STAGE) takes; DML and DDL take the others.
_GLOBAL_MODES = {"BACKUP_START", "BACKUP_FLUSH", "BACKUP_WAIT_FLUSH", "BACKUP_WAIT_DDL", "BACKUP_WAIT_COMMIT",
                 "BACKUP_BLOCK_DDL", "BACKUP_END", "BACKUP_FTWRL1", "BACKUP_FTWRL2"}
_GLOBAL_OBJECTS = {"GLOBAL", "COMMIT", "BACKUP", "BACKUP LOCK", "BACKUP_LOCK", "GLOBAL READ LOCK", "COMMIT LOCK"}
_USER_OBJECTS = {"USER LEVEL LOCK", "USER LOCK", "LOCKING SERVICE"}
# Processlist states (the server's words, not the statement's) of a DDL statement at work: MariaDB
# and MySQL's ALTER TABLE phases. Not "Copying to tmp table": a SELECT's GROUP BY says that.
_RUNNING_DDL_STATES = ("copy to tmp table", "altering table", "setting up alter", "preparing for alter",
                       "committing alter", "rename result table", "manage keys", "creating index",
                       "discard_or_import_tablespace", "alter table")
# Server-level waits and row-lock waits count whole seconds on clocks of their own: a session that
# began a transaction in the same second as the first wait may show one second less.
CLOCK_SLACK_S = 1.0


class Certainty(str, Enum):
    """How the stall's holder is known (JSON: the value)."""

    CONFIRMED = "confirmed"     # the server's rows name the holder: one KILL line
    INFERRED = "inferred"       # the server lists no holder: candidates, no single KILL
    UNKNOWN = "unknown"         # no holder and no candidate visible (or none is held: a queue)


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
    kill: str | None = None           # "KILL 42": ready to copy, only for a confirmed root; mysqltop never kills
    trx_id: str | None = None         # a row-lock root's transaction (the same root across polls)


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
    root: StallRoot | None = None      # the confirmed holder; None when inferred or not visible
    source: str = "lock tables"        # where the root comes from: lock tables | performance_schema |
                                       # metadata_lock_info | inferred | none | NOT_RECORDED
    action: str = ""
    hint: str | None = None            # what to enable for an exact holder, and its cost
    waiter_ids: list[int] = field(default_factory=list)   # thread ids, longest wait first (at most 20)
    started: float | None = None       # epoch: when the first waiter started waiting (frame time − longest)
    certainty: Certainty = Certainty.CONFIRMED
    # INFERRED: every session that could hold it, oldest first (no kill line on any of them)
    candidates: list[StallRoot] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, int | None, str | None]:
        """The same stall in another frame: its confirmed root (a row lock's transaction too),
        else its kind and object (an inferred holder)."""
        kind = "metadata_lock" if self.kind in ("table_lock", "running_ddl") else self.kind
        if self.root is not None:
            return (kind, self.root.thread_id, self.root.trx_id)
        return (kind, None, self.on)

    @property
    def is_stall(self) -> bool:
        """A pile-up worth the first finding, not a wait that comes and goes."""
        w = self.longest_wait_s or 0.0
        return (self.waiting >= STALL_MIN_WAITERS and w >= STALL_MIN_WAIT_S) or (self.waiting >= 1 and w >= LONE_WAIT_S)


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


def _holders(kind: str, waiting: set[int], waiters: list[LockSession], locks: list[MetadataLock],
             complete: bool) -> tuple[bool, list[tuple[int, MetadataLock]]]:
    """(confirmed, [(thread, lock)]): the granted locks of sessions that wait for nothing
    themselves, on what the waiters of `kind` need. Confirmed when the rows say it: the object a
    waiter asks for (a pending row) or already holds a lock on (an ALTER waiting to upgrade), the
    global backup lock, or — in a `complete` list of granted locks (MariaDB's metadata_lock_info) —
    the one session holding a lock of that class. Otherwise the holders of any such lock: they
    are candidates, not the answer (an older transaction that read another table is one)."""
    granted = [m for m in locks if m.granted and m.thread_id is not None and m.thread_id not in waiting]
    wait_ids = {w.thread_id for w in waiters}
    if kind == "global_read_lock":
        return True, [(m.thread_id, m) for m in granted if _is_global(m) and m.thread_id is not None]
    if kind == "user_lock":
        pool = [m for m in granted if m.object_type in _USER_OBJECTS]
    else:
        pool = [m for m in granted if m.object_type in ("TABLE", "SCHEMA", "FUNCTION", "PROCEDURE", "TRIGGER",
                                                          "EVENT", "TABLESPACE")]
    wanted = {m.key for m in locks if not m.granted and m.thread_id in wait_ids}
    if not wanted and kind != "user_lock":
        wanted = {m.key for m in locks if m.granted and m.thread_id in wait_ids and m.object_type == "TABLE"}
    exact = [(m.thread_id, m) for m in pool if m.key in wanted and m.thread_id is not None]
    if exact:
        return True, exact
    if kind != "user_lock":
        pool = [m for m in pool if m.object_type == "TABLE"]
    some = [(m.thread_id, m) for m in pool if m.thread_id is not None]
    return complete and len({t for t, _ in some}) == 1, some


def _age(c: LockSession) -> float:
    return max(c.trx_age_s or 0.0, c.time_s or 0.0)


def _candidates(longest: float, sessions: list[LockSession]) -> list[LockSession]:
    """Every session that could hold the lock, oldest first: transactions open since before the
    first waiter, then sessions idle since before it, statements running since before it, then
    the rest (a lock taken earlier survives later statements: GET_LOCK, LOCK TABLES, FTWRL, a
    transaction on tables InnoDB does not list). Timing orders them; it never picks one."""
    since = longest - CLOCK_SLACK_S
    free = [c for c in sessions if c.kind is None and c.thread_id is not None]

    def tier(c: LockSession) -> int:
        if c.trx_age_s is not None and c.trx_age_s >= since:
            return 0
        if (c.time_s or 0.0) >= since:
            return 1 if c.idle else 2
        return 3
    return sorted(free, key=lambda c: (tier(c), -_age(c), c.thread_id or 0))


def _root(s: LockSession | None, thread: int | None, mode: str | None = None, confirmed: bool = True) -> StallRoot:
    tid = s.thread_id if s is not None else thread
    kill = f"KILL {tid}" if confirmed and tid is not None else None
    if s is None:
        return StallRoot(thread_id=thread, lock_mode=mode, kill=kill)
    return StallRoot(thread_id=s.thread_id, user=s.user, host=s.host, command=s.command, state=s.state,
                     time_s=s.time_s, trx_age_s=s.trx_age_s, statement=s.statement or s.last_statement,
                     lock_mode=mode, kill=kill)


def running_ddl(state: str | None) -> bool:
    """The processlist state is one of a DDL statement at work."""
    s = (state or "").strip().lower()
    return any(w in s for w in _RUNNING_DDL_STATES)


# How to keep a table open for reads and writes while it changes, said with every DDL root.
ONLINE_DDL = ("next time: ALTER TABLE … ALGORITHM=INSTANT or ALGORITHM=INPLACE, LOCK=NONE (the server refuses "
              "instead of blocking when it cannot), or an online schema change tool (pt-online-schema-change, gh-ost)")


def _action(kind: str, root: StallRoot | None, certainty: Certainty = Certainty.CONFIRMED) -> str:
    if kind == "innodb_queue":
        return ("no session holds this: the innodb_thread_concurrency limit does; SET GLOBAL "
                "innodb_thread_concurrency = 0 lets them in (dynamic)")
    if certainty is Certainty.INFERRED:
        return ("no single session to kill: the server does not say which one holds it; check the candidates "
                "(oldest first) or make the server list the holders (below)")
    if root is None or root.kill is None:
        return "find the holder (below) and release it"
    if (root.command or "") == "Sleep":
        what = "its transaction" if root.trx_age_s is not None else {
            "global_read_lock": "its UNLOCK TABLES / BACKUP STAGE END", "table_lock": "its UNLOCK TABLES",
            "user_lock": "its RELEASE_LOCK()"}.get(kind, "its locks")
        return f"{root.kill} (idle: it will not finish on its own; or have its application end {what})"
    if kind == "running_ddl":
        return f"let it finish, or {root.kill} (its work is rolled back); {ONLINE_DDL}"
    return f"let it finish or commit; {root.kill} if it must stop now (its work is rolled back)"


def _hint(flavor: str | None, source: str | None) -> str:
    if flavor == "mariadb":
        return (f"MariaDB lists metadata-lock holders, the ones held now included, once you run {MDL_PLUGIN_SQL} "
                "(no cost until read; mysqltop reads it only while sessions wait; the TUI's m key offers it); from the "
                f"next start also with [mysqld] performance-schema-instrument='{MDL_INSTRUMENT}=ON' (cost: {MDL_COST})")
    if source == "instrument_off":
        return (f"performance_schema lists metadata locks taken from now on once the instrument is on: "
                f"{MDL_ENABLE_SQL} (cost: {MDL_COST}; the TUI's m key offers it)")
    return ("performance_schema.metadata_locks names the holder: performance_schema=ON (restart) with the "
            "wait/lock/metadata/sql/mdl instrument (on by default in MySQL 8), and SELECT on performance_schema")


def _row_lock_stall(b: Blocker, by_id: dict[int, LockSession], now: float | None) -> Stall:
    s = by_id.get(b.thread_id) if b.thread_id is not None else None
    root = StallRoot(thread_id=b.thread_id, user=b.user, host=b.host, command=b.command or (s.command if s else None),
                     state=s.state if s else None, time_s=s.time_s if s else None, trx_age_s=b.trx_age_s,
                     statement=b.statement or (s.last_statement if s else None), kill=b.kill, trx_id=b.trx_id)
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
        st.root, st.certainty, st.source = None, Certainty.INFERRED, "inferred"
        st.candidates = [_root(by_id.get(t), t, confirmed=False) for t in threads]
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
                   certainty=Certainty.UNKNOWN, action="look for it in the samples before and after this one")
        st.started = now - row_longest if now is not None else None
        out.append(st)
    elif not blocking and row_waiting and row_longest is not None:
        st = Stall("row_lock", int(row_waiting), row_longest, "row locks", None, "none", certainty=Certainty.UNKNOWN,
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
            st.source, st.certainty, st.action = "none", Certainty.UNKNOWN, _action(kind, None)
            out.append(st)
            continue
        listed = source in ("performance_schema", "metadata_lock_info")
        confirmed, holders = _holders(kind, waiting_ids, waiters, locks, source == "metadata_lock_info") \
            if listed else (False, [])
        free = [s for s in sessions if s.thread_id not in waiting_ids]
        if holders and confirmed:
            # the longest-held first: idle holders, then the oldest transaction / statement
            def rank(h: tuple[int, MetadataLock]) -> tuple[bool, float]:
                s = by_id.get(h[0])
                if s is None:
                    return (True, 0.0)
                return (not s.idle, -_age(s))
            holders.sort(key=rank)
            thread, lock = holders[0]
            st.root = _root(by_id.get(thread), thread, lock.mode)
            st.source = source or "lock tables"
            st.on = _object_words(lock, kind)
            if kind == "metadata_lock" and lock.mode in _LOCK_TABLES_MODES and (st.root and st.root.command == "Sleep"):
                st.kind, st.on = "table_lock", _object_words(lock, "table_lock")
        else:
            # listed holders of some such lock first (they hold one, maybe not this one), then
            # every other session that could
            held = {t: m.mode for t, m in holders}
            order = sorted((s for s in free if s.thread_id in held), key=lambda c: (-_age(c), c.thread_id or 0))
            order += [c for c in _candidates(longest, free) if c.thread_id not in held]
            st.candidates = [_root(c, None, held.get(c.thread_id or -1), confirmed=False) for c in order
                             if c.kind is None]
            st.certainty = Certainty.INFERRED if st.candidates else Certainty.UNKNOWN
            if "metadata_locks" in unrecorded:      # an import without lock rows here: nothing to enable
                st.source = "inferred" if st.candidates else NOT_RECORDED
            else:
                st.source = "inferred" if st.candidates else "none"
                st.hint = _hint(flavor, source)
        if st.root is not None and st.kind in ("metadata_lock", "table_lock") and (st.root.command or "") != "Sleep":
            if st.root.lock_mode in _DDL_MODES or running_ddl(st.root.state):
                st.kind = "running_ddl"
        st.action = _action(st.kind, st.root, st.certainty)
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
