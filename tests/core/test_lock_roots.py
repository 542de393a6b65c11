"""The roots of a row-lock pile from every listed lock (row_locks), whatever the lock-wait pairs.

Lock graphs are generated the way InnoDB lists them: records held by one transaction (X) or
several (S), transactions waiting for one record each (a waiter may hold records others wait
for: chains; no cycles: InnoDB ends deadlocks), INNODB_LOCKS with each held lock that blocks
someone and each requested lock once, and INNODB_LOCK_WAITS with a pair per (waiter, holder),
read in no order and cut at any bound, as LIMIT does.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings, strategies as st

from mysqltop.core import stalls
from mysqltop.core.advice import advise
from mysqltop.core.frame import Frame
from mysqltop.core.blocking import blocking_tree, lock_roots, row_waits


@dataclass
class Graph:
    holds: dict[int, set[int]]        # trx → records it holds
    waits: dict[int, int]             # trx → the record it waits for
    # read-only transactions (they hold, never wait): MariaDB lists each as trx 0, so INNODB_LOCKS
    # has one row per record they hold, joined with every trx-0 transaction of INNODB_TRX
    readonly: set[int] = field(default_factory=set)
    # read-only sessions that wait (a shared-mode read) and hold nothing: trx 0 too; never for a
    # record read-only transactions hold (MariaDB's one row for both cannot tell them apart)
    ro_waiters: set[int] = field(default_factory=set)

    @property
    def zero(self) -> set[int]:
        return self.readonly | self.ro_waiters


def _thread(trx: int) -> int:
    return trx - 900


@st.composite
def graphs(draw: st.DrawFn) -> Graph:
    n = draw(st.integers(2, 40))
    records = draw(st.integers(1, 6))
    holds: dict[int, set[int]] = {}
    waits: dict[int, int] = {}
    owner: dict[int, list[int]] = {}
    for rec in range(records):
        shared = draw(st.booleans())
        k = draw(st.integers(1, min(n, 8))) if shared else 1
        for t in draw(st.lists(st.integers(1000, 1000 + n - 1), min_size=k, max_size=k, unique=True)):
            holds.setdefault(t, set()).add(rec)
            owner.setdefault(rec, []).append(t)
    for t in range(1000, 1000 + n):
        # wait only for a record every holder of which comes before it: no cycle
        can = [r for r, hs in owner.items() if all(h < t for h in hs) and r not in holds.get(t, set())]
        if can and draw(st.integers(0, 3)) > 0:
            waits[t] = draw(st.sampled_from(can))
    never_wait = sorted(t for t in holds if t not in waits)
    readonly = set(draw(st.lists(st.sampled_from(never_wait), unique=True))) if never_wait else set()
    ro_held = {r for t in readonly for r in holds[t]}
    can_ro = sorted(t for t, r in waits.items() if t not in holds and r not in ro_held)
    ro_waiters = set(draw(st.lists(st.sampled_from(can_ro), unique=True))) if can_ro else set()
    return Graph(holds, waits, readonly, ro_waiters)


def _true_roots(g: Graph) -> dict[str, int]:
    """Root as the server names it (its trx id; "0" for the read-only ones together) → every
    transaction waiting behind it, directly or through a chain."""
    groups: dict[str, set[int]] = {}
    for t in g.holds:
        groups.setdefault("0" if t in g.readonly else str(t), set()).add(t)
    out: dict[str, int] = {}
    for name, members in groups.items():
        recs = set().union(*(g.holds[t] for t in members))
        if any(t in g.waits for t in members) or not any(w not in members and r in recs for w, r in g.waits.items()):
            continue
        # a read-only session waiting behind read-only holders cannot be told from them
        mine = g.zero if name == "0" else members
        seen, queue = set(members), deque(members)
        while queue:
            h = queue.popleft()
            for w, r in g.waits.items():
                if w not in seen and w not in mine and r in g.holds.get(h, set()):
                    seen.add(w)
                    queue.append(w)
        out[name] = len(seen) - len(members)
    return out


def _lock_row(trx: int, rec: int, waiting: bool, g: Graph) -> list[object]:
    state = "LOCK WAIT" if trx in g.waits else "RUNNING"
    return [f"{trx}:{rec}:{int(waiting)}", str(trx), _thread(trx), "app", "h", state, 100 - trx % 50,
            (trx % 30) if trx in g.waits else None, 1 if waiting else 0, "X" if waiting else "S", "RECORD",
            f"`db`.`t{rec % 2}`", "PRIMARY", 5, 3 + rec, 2, str(rec + 1), "Sleep", None]


def row_locks(g: Graph) -> list[list[object]]:
    contested = set(g.waits.values())
    rows = [_lock_row(t, r, False, g) for t, recs in g.holds.items() for r in sorted(recs)
            if r in contested and t not in g.readonly]
    shared = sorted({r for t in g.readonly for r in g.holds[t] if r in contested})
    for r in shared:                     # lock "0:…" listed once, joined with every trx-0 transaction
        for u in sorted(g.zero):
            row = _lock_row(u, r, False, g)
            row[0], row[1] = f"0:{r}", "0"
            rows.append(row)
    for r in sorted({g.waits[t] for t in g.ro_waiters}):      # a read-only request: the same
        for u in sorted(g.zero):
            row = _lock_row(u, r, g.waits.get(u) == r, g)
            row[0], row[1] = f"0:{r}", "0"
            rows.append(row)
    rows += [_lock_row(t, r, True, g) for t, r in g.waits.items() if t not in g.ro_waiters]
    return rows


def wait_pairs(g: Graph) -> list[list[object]]:
    out = []
    for w, rec in g.waits.items():
        for h, recs in g.holds.items():
            if rec in recs and h != w:
                trx = "0" if h in g.readonly else str(h)
                out.append(["0" if w in g.ro_waiters else str(w), _thread(w), "app", "h", w % 30, "UPDATE", trx, _thread(h), "app", "h",
                             100 - h % 50, "LOCK WAIT" if h in g.waits else "RUNNING", "Sleep", None,
                             f"`db`.`t{rec % 2}`", "PRIMARY", "X", "RECORD", str(rec + 1)])
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.randoms(use_true_random=False), st.integers(0, 2000))
def test_every_root_is_named_with_its_true_count_whatever_the_pairs_read(g: Graph, rnd, limit: int) -> None:
    pairs = wait_pairs(g)
    rnd.shuffle(pairs)                       # LIMIT without ORDER BY: any rows, in any order
    tree = blocking_tree(pairs[:limit], row_locks(g))
    assert len(row_waits(pairs[:limit], row_locks(g))) == len(g.waits)       # each waiting session once
    got = {b.trx_id: b for b in tree}
    assert len(got) == len(tree)
    truth = _true_roots(g)
    assert set(got) == set(truth)
    for name, n in truth.items():
        b = got[name]
        assert b.blocked == n
        if name == "0":
            # which read-only transaction holds it, the server does not say: candidates, no KILL
            members = g.readonly
            if len(g.zero) > 1:
                assert b.thread_id is None and b.kill is None
                assert set(b.candidates) == {_thread(t) for t in g.readonly}
            else:
                assert b.thread_id == _thread(next(iter(g.readonly)))
        else:
            t = int(name)
            members = {t}
            assert b.thread_id == _thread(t) and not b.candidates
            assert b.kill == (f"KILL {_thread(t)}" if b.hot_holders == 1 else None)    # a shared row: no one KILL
            assert t not in g.waits and g.holds[t]          # a holder the server lists, waiting for nothing
        if b.kill is not None:          # one session the server names: the holder itself
            assert b.hot_holders == 1 and len(members) == 1 and b.kill == f"KILL {_thread(next(iter(members)))}"
        # its hot row: a record it holds, with the most waiters of those
        held = set().union(*(g.holds[t] for t in members))
        mine = g.zero if name == "0" else members
        most = max(sum(1 for w, r in g.waits.items() if r == rec and w not in mine) for rec in held)
        hot = int(b.hot_key or 0) - 1
        assert hot in held and sum(1 for w, r in g.waits.items() if r == hot and w not in mine) == most


def test_a_flood_of_pairs_does_not_hide_the_real_root() -> None:
    """The reported case: 35 sessions share a row, 30 more wait for it (over a thousand pairs);
    thread 600 holds another table's row, 3 wait for it. The pairs read first are the flood's."""
    holds = {2000 + i: {0} for i in range(35)} | {1500: {1}}
    waits = {3000 + i: 0 for i in range(30)} | {3100 + i: 1 for i in range(3)}
    g = Graph(holds, waits)
    pairs = sorted(wait_pairs(g), key=lambda r: str(r[14]) != "`db`.`t0`")[:1000]
    assert all(r[6] != "1500" for r in pairs)           # the real root's pairs were not read at all
    tree = blocking_tree(pairs, row_locks(g))
    real = [b for b in tree if b.trx_id == "1500"]
    assert real and real[0].blocked == 3 and real[0].kill == "KILL 600" and real[0].hot_holders == 1
    assert real[0].hot_table == "`db`.`t1`" and real[0].hot_index == "PRIMARY" and real[0].hot_key == "2"
    flood = [b for b in tree if b.trx_id != "1500"]
    assert len(flood) == 35 and all(b.blocked == 30 and b.hot_holders == 35 and b.kill is None for b in flood)
    # without row_locks (MySQL 8, older recordings) the pairs alone are all there is
    assert "1500" not in {b.trx_id for b in blocking_tree(pairs)}
    assert lock_roots(None) is None


def test_pairs_alone_name_the_row_and_a_shared_one_has_no_kill() -> None:
    """MySQL 8 (no row_locks; every transaction its own id): the pairs read whole name each root's
    row from the waiters' lock_data, and 35 holders of one row offer no KILL; older recordings
    (no lock_data) keep their KILL lines."""
    holds = {2000 + i: {0} for i in range(35)} | {1500: {1}}
    waits = {3000 + i: 0 for i in range(30)} | {3100 + i: 1 for i in range(3)}
    tree = blocking_tree(wait_pairs(Graph(holds, waits)))
    real = next(b for b in tree if b.trx_id == "1500")
    assert (real.kill, real.hot_table, real.hot_key, real.hot_holders) == ("KILL 600", "`db`.`t1`", "2", 1)
    flood = [b for b in tree if b.trx_id != "1500"]
    assert flood and all(b.kill is None and b.hot_holders == 35 and b.hot_key == "1" for b in flood)
    old = [r[:18] for r in wait_pairs(Graph(holds, waits))]
    assert all(b.kill is not None and b.hot_key is None for b in blocking_tree(old))


def test_the_stall_finding_leads_with_the_shared_row_and_still_names_the_real_root() -> None:
    """The finding over the flood: the shared row's pile offers no KILL, the real root's does."""
    holds = {2000 + i: {0} for i in range(35)} | {1500: {1}}
    waits = {3000 + i: 0 for i in range(30)} | {3100 + i: 1 for i in range(3)}
    g = Graph(holds, waits, readonly={2000 + i for i in range(35)})
    pairs = sorted(wait_pairs(g), key=lambda r: str(r[14]) != "`db`.`t0`")[:1000]
    blocking = blocking_tree(pairs, row_locks(g))
    frame = Frame(time=1000.0, elapsed=1.0, blocking=blocking,
                  stalls=stalls.find(blocking, None, None, "mariadb", 1000.0))
    found = [a for a in advise([frame], {}, min_span_s=None) if a.id == "stall_row_lock"]
    assert len(found) == 1
    msg = found[0].message
    assert msg.startswith("Stall: 30 sessions waiting on a row lock on `db`.`t0` PRIMARY key 1")
    assert "the server does not say which: 35 candidates" in msg and "no single KILL releases it" in msg
    assert re.findall(r"KILL \d+", msg) == ["KILL 600"] and "blocks 3 on a row lock on `db`.`t1` PRIMARY key 2" in msg
