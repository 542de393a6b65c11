"""The wait-for graph over random graphs: edges of every kind, cycles, inferred steps and missing
reads (a waiting session with no edge). The root is never a session with an outgoing edge, never
one the server's rows do not connect to every waiter, and the answer does not depend on the order
the rows came in. Pure."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mysqltop.core import mdl_modes
from mysqltop.core.graph_edges import metadata_edges, requested
from mysqltop.core.stall_rows import lock_sessions, metadata_locks
from mysqltop.core.wait_graph import EDGE_KINDS, Edge, incidents, reaches

edge = st.builds(Edge, waiter=st.integers(1, 12), holder=st.integers(1, 12), kind=st.sampled_from(EDGE_KINDS),
                 object=st.sampled_from(["`d`.`t`", "'x'", "`d`.`t` PRIMARY key 1"]),
                 source=st.sampled_from(["lock_waits", "row_locks", "performance_schema", "metadata_lock_info"]),
                 queued=st.booleans(), inferred=st.integers(0, 5).map(lambda n: n == 0))


@settings(max_examples=300, deadline=None)
@given(st.lists(edge, max_size=30), st.sets(st.integers(1, 12), max_size=6), st.randoms(use_true_random=False))
def test_the_root_ends_every_chain_by_server_rows_whatever_the_row_order(edges, missing, rnd) -> None:
    waiting = {e.waiter for e in edges} | missing          # `missing`: waits no row explains
    found = incidents(edges, waiting)
    shuffled = list(edges)
    rnd.shuffle(shuffled)
    again = incidents(shuffled, set(sorted(waiting, reverse=True)))
    assert [(i.waiters, i.ends, i.unresolved, i.cycle, i.root) for i in found] == \
           [(i.waiters, i.ends, i.unresolved, i.cycle, i.root) for i in again]
    seen: set[int] = set()
    for inc in found:
        assert not seen & set(inc.waiters)                 # a waiter is in one incident
        seen |= set(inc.waiters)
        r = inc.root
        if r is None:
            continue
        assert r not in waiting                              # waits for nothing
        assert all(e.waiter != r for e in edges if e.waiter != e.holder)   # no outgoing edge
        assert not any(e.inferred for e in inc.edges) and not inc.cycle and not inc.unresolved
        for w in inc.waiters:                                # every waiter reaches it
            assert r in reaches(inc, w)
    for inc in found:
        for c in inc.cycle:                                  # a cycle's member waits
            assert any(e.waiter == c for e in inc.edges)


def test_a_holder_that_waits_passes_the_blame_along_its_own_edge() -> None:
    edges = [Edge(w, 93, "mdl", "`d`.`t`", "performance_schema") for w in (1, 2, 3)]
    edges.append(Edge(93, 94, "user", "'x'", "performance_schema"))
    (inc,) = incidents(edges, {1, 2, 3, 93})
    assert inc.root == 94 and inc.head() == 93
    assert [e.holder for e in inc.path(93)] == [94]
    # the holder's own wait not listed: no root at all, whoever else holds a lock
    (inc,) = incidents(edges[:3], {1, 2, 3, 93})
    assert inc.root is None and inc.unresolved == [93]


def test_a_cycle_across_kinds_has_no_root() -> None:
    edges = [Edge(5, 6, "row", "r", "row_locks"), Edge(6, 7, "mdl", "t", "performance_schema", queued=True),
             Edge(7, 5, "mdl", "t", "performance_schema"), Edge(8, 6, "mdl", "t", "performance_schema")]
    (inc,) = incidents(edges, {5, 6, 7, 8})
    assert inc.cycle == [5, 6, 7] and inc.root is None


def test_mdl_matrices_follow_the_server() -> None:
    assert mdl_modes.blocks_granted("SHARED_READ", "EXCLUSIVE")
    assert not mdl_modes.blocks_granted("SHARED_READ", "SHARED_WRITE")
    assert not mdl_modes.blocks_granted("SHARED_UPGRADABLE", "SHARED_WRITE")
    assert mdl_modes.blocks_granted("SHARED_NO_READ_WRITE", "SHARED_READ")
    assert mdl_modes.blocks_queued("EXCLUSIVE", "SHARED_WRITE") and not mdl_modes.blocks_queued("SHARED_WRITE", "EXCLUSIVE")
    assert mdl_modes.blocks_granted("MDL_SHARED_NO_WRITE", "SHARED_NO_WRITE")      # GET_LOCK against GET_LOCK
    assert not mdl_modes.blocks_granted("NEW_MODE", "EXCLUSIVE")                  # unknown: no edge


def test_statement_shapes_never_take_an_object_from_a_comment_or_a_join() -> None:
    assert requested("SELECT GET_LOCK('x', 100)", None) == ("USER LEVEL LOCK", "", "x", "SHARED_NO_WRITE")
    assert requested("UPDATE shop.t SET v = 1 WHERE id = 2", None) == ("TABLE", "shop", "t", "SHARED_WRITE")
    for s in ("UPDATE shop.t SET v = 1 /* payroll.x */", "SELECT * FROM a JOIN payroll.x", "SELECT * FROM a, b",
              "SELECT GET_LOCK('x', 1), GET_LOCK('dba', 1)", "SELECT 1 FROM (SELECT 1) x", "x" * 400,
              "UPDATE t1, payroll.x SET v = 1"):
        assert requested(s, "shop") is None, s


def _plugin(tid: int, kind: str, schema: str, name: str, mode: str) -> list:
    return ["metadata_lock_info", tid, kind, schema, name, mode, "GRANTED", None]


def test_the_plugin_joins_a_decoy_to_nothing() -> None:
    """The DBA's idle snapshot holds another table: never an edge; the holder that waits is one."""
    sessions = lock_sessions([
        [9, "app", "h", "shop", "Query", "Waiting for table metadata lock", 20, "ALTER TABLE t ADD COLUMN c INT"],
        [10, "app", "h", "shop", "Query", "Waiting for table metadata lock", 19, "UPDATE t SET v = 1 WHERE id = 1"],
        [8, "app", "h", "shop", "Query", "User lock", 25, "SELECT GET_LOCK('x', 100)"],
        [6, "app", "h", "shop", "Sleep", "", 40], [7, "dba", "h", "shop", "Sleep", "", 90]])
    source, locks = metadata_locks([
        _plugin(7, "Table metadata lock", "shop", "decoy", "MDL_SHARED_READ"),
        _plugin(8, "Table metadata lock", "shop", "t", "MDL_SHARED_READ"),
        _plugin(9, "Table metadata lock", "shop", "t", "MDL_SHARED_UPGRADABLE"),
        _plugin(6, "User lock", "x", "", "MDL_SHARED_NO_WRITE")])
    edges = metadata_edges(source, locks, sessions)
    assert {(e.waiter, e.holder) for e in edges} == {(9, 8), (10, 9), (8, 6)}
    (inc,) = incidents(edges, {8, 9, 10})
    assert inc.root == 6
