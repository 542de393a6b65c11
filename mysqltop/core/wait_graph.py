"""One wait-for graph per sample across every lock kind, and the session at the end of each chain.
Pure: no IO, no clock.

Nodes are sessions (thread ids). An edge "A waits for B" comes only from the server's own rows
(core/graph_edges.py builds them): the row-lock wait rows, metadata locks granted and pending on one
object (performance_schema.metadata_locks, MariaDB's METADATA_LOCK_INFO), user locks, the global
read / backup lock. Each edge is typed with its kind and object. An edge the rows cannot pin to one
session (MariaDB lists every read-only transaction as trx 0) is `inferred`.

An incident is a connected set of waiters and the sessions they wait for. Its root is the end of
the chain: a session that waits for nothing, that every waiter of the incident reaches, and that is
reached by server rows at every step. A holder that itself waits passes the blame along its own
edge; where that wait has no edge (the server does not list what it waits for) the incident is
unresolved: candidates, never a KILL. A cycle (a metadata lock against a row lock, which no server
detector breaks) is reported as a cycle with its members.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Edge kinds (the lock a waiter asks for).
ROW, MDL, TABLE, USER, GLOBAL_READ, BACKUP, LOCK_TABLES = (
    "row", "mdl", "table", "user", "global_read", "backup", "lock_tables")
EDGE_KINDS = (ROW, MDL, TABLE, USER, GLOBAL_READ, BACKUP, LOCK_TABLES)


@dataclass(frozen=True)
class Edge:
    """`waiter` waits for `holder` on `object` (words: "`db`.`t`", "'name'", a row)."""

    waiter: int
    holder: int
    kind: str                   # one of EDGE_KINDS
    object: str
    source: str                 # the rows it comes from: lock_waits | row_locks | performance_schema |
                                # metadata_lock_info
    mode: str | None = None     # the holder's lock mode, where listed
    queued: bool = False        # the holder's own request is pending, queued ahead of the waiter's
    inferred: bool = False      # the rows name several sessions, the server does not say which


@dataclass
class Incident:
    """Waiters connected through their edges, and where their chains end."""

    waiters: list[int]                      # every session in it that waits, sorted
    holders: list[int]                      # sessions others wait for (waiting or not), sorted
    ends: list[int]                         # sessions at the end of some chain: they wait for nothing
    unresolved: list[int]                   # waiting sessions whose own wait has no edge
    cycle: list[int] = field(default_factory=list)     # sessions in a wait cycle (none: no cycle)
    inferred: bool = False                  # some chain passes an inferred edge
    edges: list[Edge] = field(default_factory=list)

    @property
    def root(self) -> int | None:
        """The one session every chain of the incident ends at, reached by server rows at every
        step; None where there are several, an unresolved wait, an inferred step or a cycle."""
        if len(self.ends) == 1 and not self.unresolved and not self.cycle and not self.inferred:
            return self.ends[0]
        return None

    def direct(self, holder: int) -> list[Edge]:
        return [e for e in self.edges if e.holder == holder]

    def head(self) -> int | None:
        """The session with the most sessions waiting for it directly (the top of the pile)."""
        counts: dict[int, set[int]] = {}
        for e in self.edges:
            counts.setdefault(e.holder, set()).add(e.waiter)
        if not counts:
            return None
        return min(counts, key=lambda h: (-len(counts[h]), h))

    def path(self, start: int) -> list[Edge]:
        """The edges from `start` to the root (or to where the chain stops), one per step;
        server-row edges first where a session waits for several."""
        out: list[Edge] = []
        seen = {start}
        cur = start
        while True:
            nxt = sorted((e for e in self.edges if e.waiter == cur),
                         key=lambda e: (e.inferred, e.queued, e.holder))
            if not nxt or nxt[0].holder in seen:
                return out
            out.append(nxt[0])
            cur = nxt[0].holder
            seen.add(cur)


def _dedupe(edges: list[Edge]) -> list[Edge]:
    """One edge per (waiter, holder, kind, object), in a fixed order: the same rows in any
    order give the same graph. A server-row edge wins over an inferred one on the same pair."""
    best: dict[tuple[int, int, str, str], Edge] = {}
    for e in edges:
        if e.waiter == e.holder:
            continue
        k = (e.waiter, e.holder, e.kind, e.object)
        cur = best.get(k)
        if cur is None or (cur.inferred, cur.queued, cur.source, cur.mode or "") > \
                (e.inferred, e.queued, e.source, e.mode or ""):
            best[k] = e
    return [best[k] for k in sorted(best)]


def _cycle_members(nodes: set[int], out: dict[int, list[int]]) -> list[int]:
    """Sessions on a cycle among `nodes` (Tarjan's strongly connected components, iterative)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on: set[int] = set()
    members: list[int] = []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on.add(v)
            succ = out.get(v, [])
            if i < len(succ):
                work.append((v, i + 1))
                w = succ[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    members += comp
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return sorted(members)


def incidents(edges: list[Edge], waiting: set[int]) -> list[Incident]:
    """The incidents of one sample, biggest first. `waiting`: every session the server shows
    waiting on a lock (processlist state, INNODB_TRX LOCK WAIT), with or without an edge: a waiter
    without one is unresolved (its own incident when nobody waits for it)."""
    edges = _dedupe(edges)
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for e in edges:
        a, b = find(e.waiter), find(e.holder)
        if a != b:
            parent[max(a, b)] = min(a, b)
    for w in waiting:
        find(w)
    groups: dict[int, set[int]] = {}
    for x in list(parent):
        groups.setdefault(find(x), set()).add(x)
    by_group: dict[int, list[Edge]] = {}
    for e in edges:
        by_group.setdefault(find(e.waiter), []).append(e)
    out: list[Incident] = []
    for g, nodes in groups.items():
        es = by_group.get(g, [])
        outs: dict[int, list[int]] = {}
        for e in es:
            outs.setdefault(e.waiter, []).append(e.holder)
        waiters = sorted(n for n in nodes if n in outs or n in waiting)
        if not waiters:
            continue
        holders = sorted({e.holder for e in es})
        cycle = _cycle_members(nodes, {k: sorted(set(v)) for k, v in outs.items()})
        ends = sorted(n for n in nodes if n not in outs and n not in waiting)
        unresolved = sorted(n for n in nodes if n not in outs and n in waiting)
        inf = any(e.inferred for e in es)
        out.append(Incident(waiters, holders, ends, unresolved, cycle, inf, es))
    out.sort(key=lambda i: (-len(i.waiters), i.waiters[0]))
    return out


def reaches(inc: Incident, start: int) -> set[int]:
    """Every session `start` waits for, directly or along the chain."""
    outs: dict[int, list[int]] = {}
    for e in inc.edges:
        outs.setdefault(e.waiter, []).append(e.holder)
    seen: set[int] = set()
    todo = [start]
    while todo:
        v = todo.pop()
        for w in outs.get(v, []):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen
