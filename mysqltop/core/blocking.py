"""Who blocks whom: the blocking tree, long transactions and busy sessions of one sample. Pure.

One concept over three layers: sources/lock_reads.py reads, this module builds, views/locks_text.py draws.

Input is what sources/lock_reads.py recorded (rows of fixed shape, see there) plus the TRANSACTIONS
section of the InnoDB status, which every server prints: where the lock tables were not read
(old recordings, a server that refused) the transactions come from that section alone.

All text here (statements, user and host names) is the server's, written by other people: it is
kept as data and cut to a bound; views pass it through core.safe_text before showing it.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from mysqltop.core import read_views

SQL_CHARS = 300         # the source cuts on the server; old or foreign recordings are cut here
MAX_TREE_DEPTH = 8      # chains deeper than this are cut (a cycle is a deadlock InnoDB resolves)
TOP_TRANSACTIONS = 20


@dataclass
class LockWaiter:
    """A session waiting for a row or table lock, and whoever waits behind it in turn."""

    thread_id: int | None
    trx_id: str
    user: str | None = None
    host: str | None = None
    waiting_s: float | None = None
    statement: str | None = None
    lock_table: str | None = None
    lock_index: str | None = None
    lock_mode: str | None = None
    lock_type: str | None = None
    waiters: list["LockWaiter"] = field(default_factory=list)


@dataclass
class Blocker:
    """The root of a blocking tree: holds a lock others wait for and is not waiting itself."""

    thread_id: int | None
    trx_id: str
    user: str | None = None
    host: str | None = None
    trx_age_s: float | None = None
    trx_state: str | None = None
    command: str | None = None        # "Sleep": idle in an open transaction (the usual culprit)
    statement: str | None = None
    blocked: int = 0                  # sessions waiting behind it, directly or through a chain
    depth: int = 1                    # longest chain below it (1: only direct waiters)
    longest_wait_s: float | None = None
    kill: str | None = None           # "KILL 42": ready to copy; mysqltop itself never kills
    waiters: list["LockWaiter"] = field(default_factory=list)
    # The row it holds that most sessions wait for (row_locks): table, index and the locked key
    # as the server prints it (lock_data), and how many transactions hold it at once (shared
    # locks: more than one, and no single one releases it).
    hot_table: str | None = None
    hot_index: str | None = None
    hot_key: str | None = None
    hot_holders: int = 0
    # Sessions that may be this root where the server does not say which: MariaDB lists every
    # read-only transaction as trx 0, so its locks join every such session (oldest first).
    # thread_id and kill are then None.
    candidates: list[int] = field(default_factory=list)


@dataclass
class Transaction:
    trx_id: str
    thread_id: int | None = None
    user: str | None = None
    host: str | None = None
    state: str | None = None          # RUNNING | LOCK WAIT | ROLLING BACK | COMMITTING, or the text's
    age_s: float | None = None
    rows_locked: float | None = None
    rows_modified: float | None = None   # = undo log entries (InnoDB counts both with undo_no)
    lock_structs: float | None = None
    isolation: str | None = None
    read_view: bool | None = None     # holds a read view (TRANSACTIONS "Trx read view"); None: unknown
    confirmed: bool = False           # thread and trx from the server's INNODB_TRX row, not status text
    command: str | None = None
    statement: str | None = None
    waiting_s: float | None = None


@dataclass
class Session:
    thread_id: int | None
    user: str | None = None
    host: str | None = None
    db: str | None = None
    command: str | None = None
    state: str | None = None
    time_s: float | None = None
    statement: str | None = None      # statement digest (performance_schema) or the statement text


@dataclass
class SessionState:
    """Sessions grouped by what they are doing: "16 sessions in Commit"."""

    command: str
    state: str
    sessions: int
    longest_s: float | None = None

    @property
    def label(self) -> str:
        return self.state or self.command


# ---- row helpers -------------------------------------------------------------------------------
def _s(v: Any, limit: int = 200) -> str | None:
    if v is None:
        return None
    return str(v)[:limit]


def _sql(v: Any) -> str | None:
    return None if v is None or v == "" else str(v)[:SQL_CHARS]


def _n(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v if v >= 0 else None
    try:
        return float(str(v)) if v is not None else None
    except ValueError:
        return None


def _id(v: Any) -> int | None:
    n = _n(v)
    return int(n) if n is not None and float(n).is_integer() else None


def _row(r: Any, width: int) -> list[Any] | None:
    return list(r) + [None] * (width - len(r)) if isinstance(r, list) else None


def row_waits(rows: list[list[Any]] | None, row_locks: list[list[Any]] | None = None) -> dict[str, float]:
    """Waiting transaction → seconds it has waited, from the lock-wait rows (one per waiter) and
    the requested locks of row_locks (every waiter, where the lock-wait rows are cut)."""
    mine = [r for r in (_row(raw, ROW_LOCK_WIDTH) for raw in row_locks or [])
            if r is not None and r[1] is not None and _truthy(r[8])]
    sessions: dict[str, set[Any]] = {}
    for r in mine:
        sessions.setdefault(str(r[1]), set()).add(r[2])
    shared = {trx for trx, who in sessions.items() if len(who) > 1}   # MariaDB's read-only trx 0
    out: dict[str, float] = {}
    for raw in rows or []:
        e = _row(raw, LOCK_WAIT_WIDTH)
        if e is None or e[0] is None or str(e[0]) in shared:
            continue
        w = _n(e[4])
        out[str(e[0])] = max(out.get(str(e[0]), 0.0), w or 0.0)
    for r in mine:
        key = f"{r[1]}@{r[2]}" if str(r[1]) in shared else str(r[1])     # each waiting session once
        out[key] = max(out.get(key, 0.0), _n(r[7]) or 0.0)
    return out


def longest_wait_s(rows: list[list[Any]] | None, row_locks: list[list[Any]] | None = None) -> float | None:
    """The longest lock wait in the lock-wait rows (None when nobody waits)."""
    waits = [_n(r[4]) for r in (_row(raw, 18) for raw in rows or []) if r is not None]
    waits += [_n(r[7]) for r in (_row(raw, ROW_LOCK_WIDTH) for raw in row_locks or [])
              if r is not None and _truthy(r[8])]
    return max((w for w in waits if w is not None), default=None)


# ---- roots from the listed locks ------------------------------------------------------------------
ROW_LOCK_WIDTH = 19
LOCK_WAIT_WIDTH = 19     # lock_waits rows; recordings before lock_data have 18
LOCK_DATA_CHARS = 200    # a locked key (lock_data: the index columns' values, maybe a user's text)
DIRECT_WAITERS = 20      # waiters a root built from row_locks alone lists (the count is whole)


@dataclass
class LockRoots:
    """What row_locks says: every root (a transaction holding a lock some other waits for, and
    waiting for nothing) with every session behind it, and the transactions that wait."""

    roots: dict[str, Blocker]
    waiting: set[str]
    shared: set[str] = field(default_factory=set)    # ids several sessions are listed under (trx 0)


def _truthy(v: Any) -> bool:
    return v is True or (isinstance(v, (int, float)) and not isinstance(v, bool) and v == 1) or v in ("1", b"1")


def _lock_key(r: list[Any]) -> tuple[str, ...]:
    """The record (or table) a lock is on: a waiter and the holders of one record share it."""
    if str(r[10] or "").upper() == "TABLE":
        return ("TABLE", str(r[11]))
    return ("RECORD", str(r[11]), str(r[13]), str(r[14]), str(r[15]))


def lock_roots(rows: list[list[Any]] | None) -> LockRoots | None:
    """The row_locks rows (sources/lock_reads.py) → the roots with how many sessions wait behind each,
    directly or through a chain (a waiter that holds what others wait for), and the row most
    waited on among those it holds. None when not read.

    Every lock is one row, so these are whole however many wait pairs the locks make: a root
    counted here is one the server lists, with the waiters the server lists behind it."""
    if rows is None:
        return None
    info: dict[str, list[Any]] = {}
    threads: dict[str, dict[int, float]] = {}         # trx → its sessions (several: MariaDB's trx 0)
    waiting_threads: set[tuple[str, int | None]] = set()
    requested: dict[str, set[str]] = {}               # trx → the lock ids its sessions wait for
    # record → its waiting sessions (trx, thread): MariaDB's one trx-0 row per record, joined with
    # every read-only transaction, is a request only for the sessions that ask for it
    waits_on: dict[tuple[str, ...], list[tuple[str, int | None, list[Any]]]] = {}
    holds: dict[str, dict[tuple[str, ...], list[Any]]] = {}
    good: list[list[Any]] = []
    for raw in rows:
        r = _row(raw, ROW_LOCK_WIDTH)
        if r is None or r[1] is None:
            continue
        good.append(r)
        trx, tid = str(r[1]), _id(r[2])
        info.setdefault(trx, r)
        if tid is not None:
            threads.setdefault(trx, {})[tid] = _n(r[6]) or 0.0
        if _truthy(r[8]) or r[5] == "LOCK WAIT":
            waiting_threads.add((trx, tid))
        if _truthy(r[8]):
            requested.setdefault(trx, set()).add(str(r[0]))
            waits_on.setdefault(_lock_key(r), []).append((trx, tid, r))
    for r in good:
        trx = str(r[1])
        # a lock id one of its sessions waits for is that request (MariaDB gives every read-only
        # transaction's lock on a record the same id: a held one is then not told apart)
        if not _truthy(r[8]) and str(r[0]) not in requested.get(trx, set()):
            holds.setdefault(trx, {}).setdefault(_lock_key(r), r)
    # an id waits when every session listed under it waits
    def waits(trx: str) -> bool:
        sessions: list[int | None] = [*threads.get(trx, {})] or [None]
        return all((trx, t) in waiting_threads for t in sessions)
    waiting = {trx for trx in info if waits(trx)}
    shared = {trx for trx, who in threads.items() if len(who) > 1}
    holders_of: dict[tuple[str, ...], int] = {}
    for trx, keys in holds.items():
        if trx not in waiting:
            for key in keys:
                holders_of[key] = holders_of.get(key, 0) + 1
    roots: dict[str, Blocker] = {}
    for trx, keys in holds.items():
        if trx in waiting or not any(w != trx for key in keys for w, _, _ in waits_on.get(key, [])):
            continue
        r = info[trx]
        who = threads.get(trx, {})
        if trx in shared:    # not one session: the server does not say which of these holds it
            free = [t for t in who if (trx, t) not in waiting_threads]
            root = Blocker(thread_id=None, trx_id=trx, trx_state=_s(r[5]),
                           candidates=sorted(free, key=lambda t: (-who[t], t)))
        else:
            root = Blocker(thread_id=_id(r[2]), trx_id=trx, user=_s(r[3]), host=_s(r[4]), trx_age_s=_n(r[6]),
                           trx_state=_s(r[5]), command=_s(r[17]), statement=_sql(r[18]))
        seen, level, depth = {trx}, [trx], 0
        behind: set[tuple[str, int | None]] = set()
        while level:
            nxt = []
            for t in level:
                for key in holds.get(t, {}):
                    for w, wt, wr in waits_on.get(key, []):
                        if w == trx or (w, wt) in behind:
                            continue
                        behind.add((w, wt))
                        # a chain goes on through a waiter's own locks; not through an id several
                        # sessions share: which of them holds those, the server does not say
                        if w not in seen and w not in shared:
                            seen.add(w)
                            nxt.append(w)
                        wait = _n(wr[7])
                        if wait is not None and (root.longest_wait_s is None or wait > root.longest_wait_s):
                            root.longest_wait_s = wait
                        if t == trx and len(root.waiters) < DIRECT_WAITERS:
                            root.waiters.append(_lock_waiter(w, wr))
            depth += 1 if nxt else 0
            level = nxt
        root.blocked, root.depth = len(behind), max(depth, 1)
        root.waiters.sort(key=lambda n: -(n.waiting_s or 0))
        hot = max(keys, key=lambda k: (sum(1 for w, _, _ in waits_on.get(k, []) if w != trx), k))
        h = keys[hot]
        root.hot_table, root.hot_index, root.hot_key = _s(h[11]), _s(h[12]), _s(h[16], LOCK_DATA_CHARS)
        root.hot_holders = max(holders_of.get(hot, 1), len(root.candidates))
        # a row several transactions hold at once (shared locks) is released by none of them alone
        root.kill = f"KILL {root.thread_id}" if root.thread_id and root.hot_holders <= 1 else None
        roots[trx] = root
    return LockRoots(roots, waiting, shared)


def _lock_waiter(trx: str, r: list[Any]) -> LockWaiter:
    return LockWaiter(thread_id=_id(r[2]), trx_id=trx, user=_s(r[3]), host=_s(r[4]), waiting_s=_n(r[7]),
                      lock_table=_s(r[11]), lock_index=_s(r[12]), lock_mode=_s(r[9]), lock_type=_s(r[10]))


def _merge(trees: list[Blocker], listed: LockRoots) -> list[Blocker]:
    """The roots row_locks lists, whole, with the lock-wait rows' trees as their detail: a root
    the bounded lock-wait rows left out is still there with its count, a "root" whose own wait
    they left out is not (it waits), and each root's count is every session behind it."""
    by_trx = {b.trx_id: b for b in trees}
    out: list[Blocker] = []
    for trx, root in listed.roots.items():
        tree = by_trx.pop(trx, None)
        if tree is not None and not root.candidates:
            tree.blocked, tree.depth = root.blocked, max(tree.depth, root.depth)
            tree.longest_wait_s = _max_of(tree.longest_wait_s, root.longest_wait_s)
            tree.hot_table, tree.hot_index, tree.hot_key = root.hot_table, root.hot_index, root.hot_key
            tree.hot_holders, tree.kill = root.hot_holders, root.kill
            tree.statement = tree.statement or root.statement
            root = tree
        out.append(root)
    # roots only the pairs show (read a moment apart); never one of an id several sessions share:
    # the pairs' join gives it any of their threads
    out += [b for b in by_trx.values() if b.trx_id not in listed.waiting and b.trx_id not in listed.shared]
    out.sort(key=lambda x: (-x.blocked, -(x.longest_wait_s or 0), x.trx_id))
    return out


def hot_row(b: Blocker) -> str | None:
    """"`db`.`t` PRIMARY key 5": the row most waited on among those a root holds, in the server's
    words (untrusted text: views pass it through core.safe_text); None where not listed."""
    if b.hot_table is None:
        return None
    out = b.hot_table + (f" {b.hot_index}" if b.hot_index else "")
    return out + (f" key {b.hot_key}" if b.hot_key is not None else "")


def _max_of(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


# ---- blocking tree --------------------------------------------------------------------------------
def blocking_tree(rows: list[list[Any]] | None, row_locks: list[list[Any]] | None = None) -> list[Blocker]:
    """Lock-wait edges → one tree per root blocker, hottest first (most sessions behind it, then
    the longest wait); with `row_locks`, the roots and their counts are those rows' (whole: see
    lock_roots), the edges only their detail.

    InnoDB reports a queued request as blocked by the holder AND by every request queued before
    it, so the edges form a graph, not a tree: each waiter is placed once, under the blocker
    nearest a root (breadth first from the sessions that hold locks and wait for none). A real
    chain (B holds row 2 that C wants while B waits for A's row 1) keeps its depth."""
    trees = _edge_trees(rows)
    listed = lock_roots(row_locks)
    return trees if listed is None else _merge(trees, listed)


def _edge_trees(rows: list[list[Any]] | None) -> list[Blocker]:
    if not rows:
        return []
    edges: dict[str, list[tuple[str, list[Any]]]] = {}     # blocker trx → [(waiter trx, row)]
    waiting: set[str] = set()
    info: dict[str, list[Any]] = {}
    for raw in rows:
        r = _row(raw, LOCK_WAIT_WIDTH)
        if r is None or r[0] is None or r[6] is None:
            continue
        w, b = str(r[0]), str(r[6])
        if w == b:
            continue
        edges.setdefault(b, []).append((w, r))
        waiting.add(w)
        info.setdefault(b, r)
    roots = [b for b in edges if b not in waiting]
    placed: set[str] = set()
    children: dict[str, list[LockWaiter]] = {}
    nodes: dict[str, LockWaiter] = {}

    def spread(root: str) -> None:
        placed.add(root)
        queue = deque([root])
        while queue:
            b = queue.popleft()
            for w, r in edges.get(b, []):
                if w in placed:
                    continue
                placed.add(w)
                node = LockWaiter(thread_id=_id(r[1]), trx_id=w, user=_s(r[2]), host=_s(r[3]), waiting_s=_n(r[4]),
                                  statement=_sql(r[5]), lock_table=_s(r[14]), lock_index=_s(r[15]),
                                  lock_mode=_s(r[16]), lock_type=_s(r[17]))
                nodes[w] = node
                children.setdefault(b, []).append(node)
                queue.append(w)

    for b in roots:
        spread(b)
    while unplaced := sorted(b for b in edges if b not in placed):   # only cycles are left
        roots.append(unplaced[0])
        spread(unplaced[0])

    def finish(trx: str, depth: int) -> tuple[int, int, float | None]:
        """Attach children; (sessions below, deepest level below, longest wait below)."""
        below, deepest, longest = 0, 0, None
        kids = children.get(trx, [])
        kids.sort(key=lambda n: -(n.waiting_s or 0))
        for kid in kids:
            n, d, lw = finish(kid.trx_id, depth + 1) if depth < MAX_TREE_DEPTH else (0, 0, None)
            if depth < MAX_TREE_DEPTH:
                kid.waiters = children.get(kid.trx_id, [])
            below += 1 + n
            deepest = max(deepest, 1 + d)
            for x in (kid.waiting_s, lw):
                if x is not None and (longest is None or x > longest):
                    longest = x
        return below, deepest, longest

    out: list[Blocker] = []
    # the row each root's direct waiters ask for most (table, index, the server's lock_data), and
    # how many roots their waiters ask that row of (> 1: held in share mode, no single KILL)
    hot: dict[str, tuple[str, str, str]] = {}
    for b in roots:
        asked: dict[tuple[str, str, str], int] = {}
        for _, r in edges.get(b, []):
            if r[14] is not None:
                k = (str(r[14]), _s(r[15]) or "", "" if r[18] is None else str(r[18])[:LOCK_DATA_CHARS])
                asked[k] = asked.get(k, 0) + 1
        if asked:
            hot[b] = max(asked, key=lambda k: (asked[k], k))
    sharing: dict[tuple[str, str, str], int] = {}
    for k in hot.values():
        if k[2]:                      # only a known key is one row (older rows have none)
            sharing[k] = sharing.get(k, 0) + 1
    for b in roots:
        r = info[b]
        root = Blocker(thread_id=_id(r[7]), trx_id=b, user=_s(r[8]), host=_s(r[9]), trx_age_s=_n(r[10]),
                       trx_state=_s(r[11]), command=_s(r[12]), statement=_sql(r[13]))
        root.blocked, root.depth, root.longest_wait_s = finish(b, 1)
        root.waiters = children.get(b, [])
        if (row := hot.get(b)) is not None:
            root.hot_table, root.hot_index, root.hot_key = row[0], row[1] or None, row[2] or None
            root.hot_holders = sharing.get(row, 1)
        root.kill = f"KILL {root.thread_id}" if root.thread_id and root.hot_holders <= 1 else None
        out.append(root)
    out.sort(key=lambda x: (-x.blocked, -(x.longest_wait_s or 0), x.trx_id))
    return out


# ---- transactions ---------------------------------------------------------------------------------
_ENTRY_RE = re.compile(r"---TRANSACTION (\([^)]*\)|[0-9A-Fa-f]+(?: \d+)?), (ACTIVE(?: \(PREPARED\))?|[^,]*)"
                       r"(?: (\d+) sec)?")
_THREAD_RE = re.compile(r"(?:MySQL|MariaDB) thread id (\d+)")
_LOCKS_RE = re.compile(r"(?:LOCK WAIT )?(\d+) lock struct\(s\), heap size \d+, (\d+) row lock\(s\)"
                       r"(?:, undo log entries (\d+))?")


def _transactions_body(innodb_status: str | None) -> str | None:
    """The TRANSACTIONS section's text, None when absent or when a statement printed its title
    so that the text alone cannot tell where the server's list starts."""
    if not innodb_status:
        return None
    from mysqltop.core.innodb import envelope  # the status parser package: loaded when first needed

    env = envelope.split(innodb_status)
    if "TRANSACTIONS" in env.doubtful:
        return None
    return next((b for t, b in env.sections if t == "TRANSACTIONS"), None)


def status_transactions(innodb_status: str | None) -> list[Transaction]:
    """Active transactions as the TRANSACTIONS section lists them (every server prints it), for
    the panes where INNODB_TRX was not read.

    The section also holds statement text, so a statement could print lines that look like an
    entry: a thread id listed twice is dropped, and only lines before an entry's thread-id line
    (which precedes the statement) set its numbers. Without the server's rows nothing fences the
    statements off, so these are never `confirmed` and their read view is unknown."""
    body = _transactions_body(innodb_status)
    if body is None:
        return []
    out: list[Transaction] = []
    cur: Transaction | None = None
    threads_seen: dict[int, int] = {}
    header_done = False
    for line in body.split("\n"):
        if line.startswith("---TRANSACTION "):
            m = _ENTRY_RE.match(line)
            cur = None
            if m is not None and m[2].startswith("ACTIVE"):
                cur = Transaction(trx_id=m[1].strip("()"), state=m[2], age_s=_n(m[3]))
                out.append(cur)
            header_done = False
            continue
        if cur is None:
            continue
        if not header_done:
            if (m2 := _LOCKS_RE.match(line)) is not None:
                cur.lock_structs, cur.rows_locked = _n(m2[1]), _n(m2[2])
                cur.rows_modified = _n(m2[3]) if m2[3] is not None else 0
                if line.startswith("LOCK WAIT"):
                    cur.state = "LOCK WAIT"
            elif (m3 := _THREAD_RE.match(line)) is not None:
                cur.thread_id = int(m3[1])
                threads_seen[cur.thread_id] = threads_seen.get(cur.thread_id, 0) + 1
                header_done = True
    twice = {t for t, n in threads_seen.items() if n > 1}
    return [t for t in out if t.thread_id not in twice]


def transactions(rows: list[list[Any]] | None, innodb_status: str | None) -> list[Transaction]:
    """Longest-running first. INNODB_TRX rows where read, the TRANSACTIONS section otherwise; the
    section adds which transactions hold a read view, read only where the rows fence the other
    sessions' statement text off (core/read_views.py)."""
    if rows is None:
        out = status_transactions(innodb_status)
    else:
        good = [r for r in (_row(raw, 13) for raw in rows) if r is not None and r[0] is not None]
        fence = [read_views.TrxRow(str(r[0]), t, None if r[11] is None else str(r[11]), _s(r[2]))
                 for r in good if (t := _id(r[1])) is not None]
        body = _transactions_body(innodb_status)
        views = read_views.read_views(body, fence) if body is not None else {}
        out = []
        for r in good:
            thread = _id(r[1])
            out.append(Transaction(
                trx_id=str(r[0]), thread_id=thread, user=_s(r[2]), host=_s(r[3]), state=_s(r[4]), age_s=_n(r[5]),
                rows_locked=_n(r[6]), rows_modified=_n(r[7]), lock_structs=_n(r[8]), isolation=_s(r[9]),
                read_view=views.get(thread) if thread is not None else None, confirmed=True,
                command=_s(r[10]),
                statement=_sql(r[11]), waiting_s=_n(r[12])))
    out.sort(key=lambda t: -(t.age_s or 0))
    return out[:TOP_TRANSACTIONS]


# ---- sessions -------------------------------------------------------------------------------------
def sessions(rows: list[list[Any]] | None, lock_rows: list[list[Any]] | None = None) -> list[Session]:
    """Busy sessions, longest in their current state first; one row per thread (a digest join may
    repeat a thread). `lock_rows` (the lock_sessions rows, read while sessions wait): their
    processlist seconds and state win — the server's own count of how long each has waited."""
    out: list[Session] = []
    seen: set[int | None] = set()
    truth: dict[int, list[Any]] = {}
    for raw in lock_rows or []:
        r = _row(raw, 12)
        if r is not None and (tid := _id(r[0])) is not None:
            truth.setdefault(tid, r)
    for raw in rows or []:
        r = _row(raw, 8)
        if r is None:
            continue
        tid = _id(r[0])
        if tid in seen and tid is not None:
            continue
        seen.add(tid)
        s = Session(thread_id=tid, user=_s(r[1]), host=_s(r[2]), db=_s(r[3]), command=_s(r[4]),
                    state=_s(r[5]), time_s=_n(r[6]), statement=_sql(r[7]))
        t = truth.get(tid) if tid is not None else None
        if t is not None and _n(t[6]) is not None:
            s.time_s, s.state = _n(t[6]), _s(t[5]) or s.state
        out.append(s)
    out.sort(key=lambda s: -(s.time_s or 0))
    return out


def session_states(rows: list[list[Any]] | None) -> list[SessionState]:
    """Sessions per (command, state), most sessions first; idle connections last."""
    out: list[SessionState] = []
    for raw in rows or []:
        r = _row(raw, 4)
        if r is None:
            continue
        n = _id(r[2])
        if not n:
            continue
        out.append(SessionState(command=_s(r[0], 64) or "", state=_s(r[1], 64) or "", sessions=n,
                                longest_s=_n(r[3])))
    out.sort(key=lambda g: (g.command == "Sleep", -g.sessions, -(g.longest_s or 0)))
    return out


# ---- --redact ---------------------------------------------------------------------------------------
# Columns of the recorded rows (sources/lock_reads.py) that hold statement text.
SQL_COLUMNS = {"lock_waits": (5, 13), "transactions": (11,), "sessions": (7,), "lock_sessions": (7, 11),
               "active_sessions": (2,)}      # a statement's shape (core/active_sessions.py)


def without_statements(rows_by_field: dict[str, list[list[Any]] | None], mark: str) -> dict[str, Any]:
    """The rows with every statement text replaced by `mark` (recording --redact)."""
    out: dict[str, list[list[Any]]] = {}
    for name, cols in SQL_COLUMNS.items():
        rows = rows_by_field.get(name)
        if rows is None:
            continue
        out[name] = [[mark if i in cols and v is not None else v for i, v in enumerate(r)]
                     if isinstance(r, list) else r for r in rows]
    return out
