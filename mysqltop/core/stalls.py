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

from mysqltop.core import graph_edges, wait_graph
from mysqltop.core.instrumentation import MDL_COST, MDL_ENABLE_SQL, MDL_INSTRUMENT, MDL_PLUGIN_SQL
from mysqltop.core.blocking import MAX_TREE_DEPTH, Blocker, LockWaiter, hot_row
from mysqltop.core.stall_rows import LockSession, MetadataLock, lock_sessions, metadata_locks
# what sources/lock_reads.py asks about a processlist state, named here too
from mysqltop.core.stall_rows import wait_kind as wait_kind

# The connect attribute program_name mysqltop's own connections carry (sources/capabilities.py):
# another mysqltop's session holds nothing an application waits for.
OWN_PROGRAM = "mysqltop"
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
    CYCLE = "cycle"             # the sessions wait for each other: the lock-wait timeout ends it
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


@dataclass
class ChainStep:
    """One step of a chain: `waiters` sessions wait on `kind` `object` held by `holder`."""

    waiters: int
    kind: str                          # a wait_graph edge kind: row | mdl | user | global_read | backup | …
    object: str
    holder: int
    queued: bool = False               # the holder's own request is pending, ahead of theirs
    source: str = ""


@dataclass
class WaitEdge:
    """`waiter` waits for `holder` (JSON: stalls[].edges)."""

    waiter: int
    holder: int
    kind: str
    object: str
    source: str
    inferred: bool = False


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
    # the chain from the top of the pile to where it ends (core/wait_graph.py): the pile's holder
    # first; each later step is a wait of the holder before it
    chain: list[ChainStep] = field(default_factory=list)
    edges: list[WaitEdge] = field(default_factory=list)    # every wait-for edge of the incident (bounded)
    cycle: list[int] = field(default_factory=list)        # sessions waiting for each other (certainty "cycle")
    cycle_timeout_s: float | None = None                  # the lock-wait timeout that will end the cycle
    unlinked: int = 0                  # waiters of its kind no server row joins to the chain
    passing: bool = False              # a hot row passed from holder to holder: no single session to release
    unresolved: list[int] = field(default_factory=list)   # sessions in it that wait with no server row saying for whom
    unresolved_kinds: dict[int, str] = field(default_factory=dict)   # … and on what kind of lock

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


def _age(c: LockSession) -> float:
    return max(c.trx_age_s or 0.0, c.time_s or 0.0)


def _candidates(longest: float, sessions: list[LockSession]) -> list[LockSession]:
    """Every session that could hold the lock, oldest first: transactions open since before the
    first waiter, then sessions idle since before it, statements running since before it, then
    the rest (a lock taken earlier survives later statements: GET_LOCK, LOCK TABLES, FTWRL, a
    transaction on tables InnoDB does not list). Timing orders them; it never picks one."""
    since = longest - CLOCK_SLACK_S
    free = [c for c in sessions if c.kind is None and c.thread_id is not None and c.program != OWN_PROGRAM]

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
        what = "end its transaction" if root.trx_age_s is not None else {
            "global_read_lock": "run UNLOCK TABLES / BACKUP STAGE END", "table_lock": "run UNLOCK TABLES",
            "user_lock": "run RELEASE_LOCK()"}.get(kind, "release its locks")
        return f"{root.kill} (idle: it will not finish on its own; or have its application {what})"
    if kind == "running_ddl":
        return f"let it finish, or {root.kill} (its work is rolled back); {ONLINE_DDL}"
    return f"let it finish or commit; {root.kill} if it must stop now (its work is rolled back)"


action_for = _action      # what to do with a pile's root (core/rules/stall_rules.py says it again)


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
    if _passing(root, b.longest_wait_s):
        root.kill = b.kill = None
        st.passing = True
    st.action = PASSING_ACTION if st.passing else _action("row_lock", root)
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


_EDGE_STALL_KIND = {"row": "row_lock", "mdl": "metadata_lock", "table": "table_lock", "user": "user_lock",
                    "global_read": "global_read_lock", "backup": "global_read_lock", "lock_tables": "table_lock"}
_EDGE_WORDS = {"row": "a row lock on", "mdl": "the metadata lock on", "table": "a table lock on",
               "user": "user lock", "global_read": "", "backup": "", "lock_tables": "a LOCK TABLES lock on"}
EDGES_KEPT = 200


def step_words(kind: str, obj: str) -> str:
    """"the metadata lock on `db`.`t`", "user lock 'x'", "a row lock on `db`.`t` PRIMARY key 5"."""
    lead = _EDGE_WORDS.get(kind, "")
    return f"{lead} {obj}".strip()


_KIND_WAIT = {"row_lock": "on a row lock", "metadata_lock": "on a metadata lock", "table_lock": "on a table lock",
              "user_lock": "on a user lock", "global_read_lock": "on the global read / backup lock"}


def chain_words(st: Stall, limit: int = 6) -> str:
    """"3 wait on the metadata lock on `d`.`t` held by 93, which waits on user lock 'x' held by
    94": the chain from the pile's holder to where it ends (untrusted object names: views escape)."""
    if not st.chain:
        return ""
    parts = []
    for i, step in enumerate(st.chain[:limit]):
        held = f"queued behind {step.holder}'s pending request" if step.queued else f"held by {step.holder}"
        lead = f"{step.waiters} wait on" if i == 0 else "which waits on"
        parts.append(f"{lead} {step_words(step.kind, step.object)} {held}")
    out = ", ".join(parts) + (" …" if len(st.chain) > limit else "")
    last = st.chain[-1].holder
    if last in st.unresolved:
        out += f", which waits itself ({_KIND_WAIT.get(st.unresolved_kinds.get(last, ''), 'on a lock')}) for a " \
               "holder the server does not list"
    return out


def _wait_s(s: LockSession | None) -> float | None:
    if s is None:
        return None
    return s.trx_wait_s if s.kind == "row_lock" and s.trx_wait_s is not None else s.time_s


def _passing(root: StallRoot, longest: float | None) -> bool:
    """A holder whose transaction began after the first waiter started waiting: the lock passes
    along a queue (a hot row), it is not this session's to release. A holder stuck since it took
    the lock becomes the root once its transaction is older than the waits behind it (each
    waiter gives up at innodb_lock_wait_timeout and waits anew)."""
    if root.trx_age_s is None or longest is None:
        return False
    return root.trx_age_s + CLOCK_SLACK_S < longest


PASSING_ACTION = ("the lock passes from holder to holder (each holds it a moment, then the next one queued "
                  "takes it): no single KILL releases it; it is the workload's — fewer writers on the row, "
                  "shorter transactions, or another key design")


def _incident_stall(inc: wait_graph.Incident, by_id: dict[int, LockSession], free: list[LockSession],
                    now: float | None, flavor: str | None, source: str | None, unrecorded: frozenset[str],
                    row_waits: dict[int, float], timeouts: dict[str, float]) -> Stall:
    waits = {w: x for w in inc.waiters if (x := _wait_s(by_id.get(w)) if w in by_id else row_waits.get(w)) is not None}
    order = sorted(inc.waiters, key=lambda w: (-waits.get(w, 0.0), w))
    longest = max(waits.values(), default=None)
    head = inc.head()
    chain: list[ChainStep] = []
    if head is not None:
        into = inc.direct(head)
        kinds: dict[tuple[str, str], int] = {}
        for e in into:
            kinds[(e.kind, e.object)] = kinds.get((e.kind, e.object), 0) + 1
        ekind, obj = min(kinds, key=lambda k: (-kinds[k], k))
        chain.append(ChainStep(len({e.waiter for e in into}), ekind, obj, head, all(e.queued for e in into),
                               into[0].source))
        chain += [ChainStep(1, e.kind, e.object, e.holder, e.queued, e.source) for e in inc.path(head)]
        kind = _EDGE_STALL_KIND.get(ekind, "metadata_lock")
        on = step_words(ekind, obj)
    else:
        s0 = by_id.get(order[0])
        kind = (s0.kind if s0 is not None and s0.kind else "row_lock")
        on = _object_words(None, kind)
    st = Stall(kind, len(inc.waiters), longest, on, waiter_ids=order[:20], chain=chain,
               edges=[WaitEdge(e.waiter, e.holder, e.kind, e.object, e.source, e.inferred)
                      for e in inc.edges[:EDGES_KEPT]])
    st.started = now - longest if now is not None and longest is not None else None
    st.unresolved = list(inc.unresolved)
    st.unresolved_kinds = {t: k for t in inc.unresolved if (k := (by_id[t].kind if t in by_id else None))}
    rid = inc.root
    if rid is not None:
        s = by_id.get(rid)
        mode = next((e.mode for e in inc.edges if e.holder == rid and e.mode), None)
        st.root = _root(s, rid, mode)
        st.source = next((e.source for e in inc.edges if e.holder == rid), "lock tables")
        if st.source in ("row_locks", "lock_waits"):
            st.source = "lock tables"
        last = chain[-1] if chain else None
        if last is not None and last.kind == "row" and s is not None:
            st.root.trx_age_s = s.trx_age_s
        if last is not None and last.kind == "row" and _passing(st.root, longest):
            st.root.kill, st.passing = None, True
        if kind == "metadata_lock" and len(chain) == 1 and st.root.lock_mode in _LOCK_TABLES_MODES \
                and (st.root.command or "") == "Sleep":
            st.kind, st.on = "table_lock", step_words("lock_tables", chain[0].object)
        if st.kind in ("metadata_lock", "table_lock") and len(chain) == 1 and (st.root.command or "") != "Sleep" \
                and (st.root.lock_mode in _DDL_MODES or running_ddl(st.root.state)):
            st.kind = "running_ddl"
        # what ends the root's hold is its own lock's (the last step), not the pile's
        own = _EDGE_STALL_KIND.get(last.kind, st.kind) if last is not None else st.kind
        if own == "metadata_lock" and st.root.lock_mode in _LOCK_TABLES_MODES:
            own = "table_lock"
        st.action = PASSING_ACTION if st.passing else _action(st.kind if own == "metadata_lock" else own, st.root)
        return st
    if inc.cycle:
        st.cycle, st.certainty, st.source = list(inc.cycle), Certainty.CYCLE, "lock tables"
        row = any(e.kind == "row" for e in inc.edges if e.waiter in inc.cycle and e.holder in inc.cycle)
        mdl = any(e.kind != "row" for e in inc.edges if e.waiter in inc.cycle and e.holder in inc.cycle)
        name = "innodb_lock_wait_timeout" if row and not mdl else "lock_wait_timeout"
        if row and mdl:
            t = [x for x in (timeouts.get("lock_wait_timeout"), timeouts.get("innodb_lock_wait_timeout")) if x is not None]
            st.cycle_timeout_s = min(t) if t else None
            name = "lock_wait_timeout / innodb_lock_wait_timeout, whichever ends first"
        else:
            st.cycle_timeout_s = timeouts.get(name)
        secs = f" = {st.cycle_timeout_s:g} s" if st.cycle_timeout_s is not None else ""
        st.action = (f"a wait cycle across lock kinds the server's deadlock detection does not break: it ends when "
                     f"{name}{secs} ends one session's wait; ending any one of threads "
                     f"{', '.join(str(t) for t in st.cycle[:8])} (its work is rolled back) ends it now")
        st.candidates = [_root(by_id.get(t), t, confirmed=False) for t in st.cycle]
        return st
    # ends the server names, then every other session that could be it: no single KILL
    ends = [t for t in inc.ends]
    shared_row = (len(ends) > 1 and not inc.unresolved and not inc.inferred
                  and all(e.kind == "row" for e in inc.edges if e.holder in ends))
    ordered = [by_id[t] for t in ends if t in by_id] + _candidates(longest or 0.0, [c for c in free if c.thread_id not in ends])
    held = {e.holder: e.mode for e in inc.edges if e.mode}
    st.candidates = [_root(c, None, held.get(c.thread_id or -1), confirmed=False) for c in ordered]
    if shared_row:
        shown = ", ".join(str(t) for t in ends[:8]) + (" …" if len(ends) > 8 else "")
        st.source, st.certainty = "lock tables", Certainty.INFERRED
        st.action = (f"it is held in share mode by {len(ends)} sessions (threads {shown}); no single KILL releases it: "
                     "every holder must end its transaction (their application takes shared locks, e.g. SELECT … "
                     "LOCK IN SHARE MODE, and keeps them)")
        return st
    st.certainty = Certainty.INFERRED if st.candidates else Certainty.UNKNOWN
    if "metadata_locks" in unrecorded:
        st.source = "inferred" if st.candidates else NOT_RECORDED
    else:
        st.source = "inferred" if st.candidates else "none"
        st.hint = _hint(flavor, source)
    st.action = _action(st.kind, None, st.certainty)
    return st


def find(blocking: list[Blocker], session_rows: list[list[Any]] | None, mdl_rows: list[list[Any]] | None,
         flavor: str | None = None, now: float | None = None,
         row_waiting: float | None = None, row_longest: float | None = None,
         unrecorded: frozenset[str] = frozenset(), lock_waits: list[list[Any]] | None = None,
         row_locks: list[list[Any]] | None = None, timeouts: dict[str, float] | None = None) -> list[Stall]:
    """The piles of one sample, most sessions first: one per incident of the wait-for graph
    (core/wait_graph.py), every lock kind in one graph. `row_waiting`/`row_longest`: sessions in a
    row-lock wait and the longest, where the blocking trees were not read (a refused lock-table
    statement): the pile is still reported, with the holder not visible. `unrecorded`: the row
    sources the sample does not hold at all (Frame.unrecorded): a holder missing there was not
    recorded — nothing to grant or enable. `timeouts`: lock_wait_timeout and
    innodb_lock_wait_timeout, the ends of a wait cycle.

    A row-lock holder in `blocking` that waits itself (on a metadata or user lock) loses its
    KILL line: the blame passes along its own wait."""
    sessions = lock_sessions(session_rows)
    by_id = {s.thread_id: s for s in sessions if s.thread_id is not None}
    source, locks = metadata_locks(mdl_rows)
    r_edges, row_waiters = graph_edges.row_edges(lock_waits, row_locks)
    m_edges = graph_edges.metadata_edges(source, locks, sessions)
    server_waiting = {s.thread_id for s in sessions if s.thread_id is not None and s.kind not in (None, "innodb_queue")}
    waiting = server_waiting | row_waiters
    incs = wait_graph.incidents(r_edges + m_edges, waiting)
    row_kinds = {t for t in server_waiting if by_id[t].kind == "row_lock"} | row_waiters
    out: list[Stall] = []
    mixed: list[wait_graph.Incident] = []
    covered: set[int] = set()
    for inc in incs:
        pure_row = all(e.kind == "row" for e in inc.edges) and all(w in row_kinds for w in inc.waiters)
        if not pure_row:
            mixed.append(inc)
            covered |= set(inc.waiters) | set(inc.holders)
    for b in blocking:          # a holder that waits on another kind of lock is not the end of its chain
        if b.thread_id is not None and b.thread_id in server_waiting - row_kinds:
            b.kill = None
    # row locks: the blocking trees (each root's pile), unless the pile goes on into another lock kind
    shared: dict[str, list[Blocker]] = {}
    for b in blocking:
        if not b.blocked or (b.thread_id is not None and b.thread_id in covered):
            continue
        if b.hot_holders > 1 and (row := hot_row(b)) is not None:
            shared.setdefault(row, []).append(b)
        else:
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
    # every other incident: one stall each; lone waiters no row joins to anything are grouped by
    # kind, into the one incident of their kind where there is one
    row_waits = graph_row_waits(lock_waits, row_locks)
    free = [s for s in sessions if s.thread_id not in waiting]
    lone: dict[str, list[int]] = {}
    queue = [s.thread_id for s in sessions if s.kind == "innodb_queue" and s.thread_id is not None]
    if queue:
        lone["innodb_queue"] = queue
    linked: list[tuple[wait_graph.Incident, Stall]] = []
    for inc in mixed:
        if not inc.edges and len(inc.waiters) == 1 and (s := by_id.get(inc.waiters[0])) is not None and s.kind:
            lone.setdefault(s.kind, []).append(inc.waiters[0])
            continue
        st = _incident_stall(inc, by_id, free, now, flavor, source, unrecorded, row_waits, timeouts or {})
        linked.append((inc, st))
        out.append(st)
    for kind, ids in lone.items():
        same = [st for _, st in linked if _family(st.kind) == _family(kind)]
        if len(same) == 1 and kind != "innodb_queue":
            st = same[0]
            st.unlinked += len(ids)
            st.waiting += len(ids)
            st.waiter_ids = (st.waiter_ids + sorted(ids))[:20]
            more = max((_wait_s(by_id.get(i)) or 0.0 for i in ids), default=0.0)
            if st.longest_wait_s is None or more > st.longest_wait_s:
                st.longest_wait_s = more
                st.started = now - more if now is not None else None
            continue
        out.append(_lone_stall(kind, ids, by_id, free, now, flavor, source, unrecorded))
    out.sort(key=lambda s: (not s.is_stall, -s.waiting, -(s.longest_wait_s or 0.0)))
    return out


def _family(kind: str) -> str:
    return "metadata_lock" if kind in ("table_lock", "running_ddl") else kind


def graph_row_waits(lock_waits: list[list[Any]] | None, row_locks: list[list[Any]] | None) -> dict[int, float]:
    """Waiting thread → seconds, from the row-lock rows (where lock_sessions does not list it)."""
    out: dict[int, float] = {}
    for r in lock_waits or []:
        if isinstance(r, list) and len(r) > 4 and isinstance(r[1], int) and isinstance(r[4], (int, float)):
            out[r[1]] = max(out.get(r[1], 0.0), float(r[4]))
    for r in row_locks or []:
        if isinstance(r, list) and len(r) > 8 and isinstance(r[2], int) and isinstance(r[7], (int, float)) \
                and r[8] in (1, True, "1"):
            out[r[2]] = max(out.get(r[2], 0.0), float(r[7]))
    return out


def _lone_stall(kind: str, ids: list[int], by_id: dict[int, LockSession], free: list[LockSession],
                now: float | None, flavor: str | None, source: str | None, unrecorded: frozenset[str]) -> Stall:
    """Waiters of one kind whose wait no server row joins to a holder: candidates, never a KILL."""
    waiters = sorted((by_id[i] for i in ids), key=lambda w: (-(_wait_s(w) or 0.0), w.thread_id or 0))
    longest = _wait_s(waiters[0]) or 0.0
    st = Stall(kind, len(waiters), longest, _object_words(None, kind),
               waiter_ids=[w.thread_id for w in waiters[:20] if w.thread_id is not None])
    st.started = now - longest if now is not None else None
    if kind == "innodb_queue":
        st.source, st.certainty, st.action = "none", Certainty.UNKNOWN, _action(kind, None)
        return st
    st.candidates = [_root(c, None, confirmed=False) for c in _candidates(longest, free)]
    st.certainty = Certainty.INFERRED if st.candidates else Certainty.UNKNOWN
    if "metadata_locks" in unrecorded:      # an import without lock rows here: nothing to enable
        st.source = "inferred" if st.candidates else NOT_RECORDED
    else:
        st.source = "inferred" if st.candidates else "none"
        st.hint = _hint(flavor, source)
    st.action = _action(kind, None, st.certainty)
    return st


def metadata_trees(stalls: list[Stall], session_rows: list[list[Any]] | None) -> list[Blocker]:
    """The piles whose chain ends at a named root, other than plain row-lock piles (those are
    Frame.blocking), as blocking trees: the root, then whoever waits for it, then whoever waits
    for those — the wait-for graph's edges reversed — for the locks pane and JSON."""
    by_id = {s.thread_id: s for s in lock_sessions(session_rows)}
    out: list[Blocker] = []
    for st in stalls:
        if st.root is None or st.root.thread_id is None or (st.kind == "row_lock" and not st.edges):
            continue
        r = st.root
        rid: int = st.root.thread_id
        b = Blocker(thread_id=r.thread_id, trx_id=r.trx_id or "", user=r.user, host=r.host, trx_age_s=r.trx_age_s,
                    command=r.command, statement=r.statement, blocked=st.waiting, longest_wait_s=st.longest_wait_s,
                    kill=r.kill)
        behind: dict[int, list[WaitEdge]] = {}
        for e in st.edges:
            behind.setdefault(e.holder, []).append(e)
        placed = {r.thread_id}
        depth = 0
        level: list[tuple[int, list[LockWaiter]]] = [(rid, b.waiters)]
        while level and depth < MAX_TREE_DEPTH:
            nxt: list[tuple[int, list[LockWaiter]]] = []
            for holder, into in level:
                for e in sorted(behind.get(holder, []), key=lambda e: e.waiter):
                    if e.waiter in placed:
                        continue
                    placed.add(e.waiter)
                    w = by_id.get(e.waiter)
                    node = LockWaiter(thread_id=e.waiter, trx_id="", user=w.user if w else None,
                                      host=w.host if w else None, waiting_s=_wait_s(w),
                                      statement=w.statement if w else None, lock_table=e.object,
                                      lock_mode=(w.state if w and w.state else None) or e.kind, lock_type=e.kind)
                    into.append(node)
                    nxt.append((e.waiter, node.waiters))
            depth += 1 if nxt else 0
            level = nxt
        b.depth = max(depth, 1)
        out.append(b)
    return out
