"""The poll's plain reads and what is kept of them, client-side: every value is hostile server
data; rows are chosen and ordered here, not by a sort on the server. Pure: no server
(tests/live/test_poll.py reads them from a real one)."""

from __future__ import annotations

from mysqltop.sources import lock_reads as locks
from mysqltop.sources.capabilities import Capabilities
from mysqltop.sources.poll_results import ps_rows, status_text
from mysqltop.sources.poll_statements import OLD_TRANSACTION_S, Poll, StatementPlan, oldest_active_s


def caps(ps: bool = True, flavor: str = "mariadb", version: tuple[int, ...] = (10, 11, 6)) -> Capabilities:
    return Capabilities(flavor=flavor, version=".".join(map(str, version)), version_tuple=version,
                        version_comment="", hostname="h", current_user="m@%", address="127.0.0.1:3306",
                        performance_schema_on=ps, performance_schema=ps, synch_instruments_total=0,
                        synch_instruments_enabled=0, mutex_rows=0, poll_mutex=False, metrics_column="ENABLED",
                        local=False, mysqld_pid=None)


def test_no_statement_sorts_groups_or_aggregates_into_a_json_text() -> None:
    for ps in (True, False):
        for flavor, version in (("mariadb", (10, 11, 6)), ("mysql", (8, 0, 36)), ("mysql", (5, 7, 44))):
            plan = StatementPlan(caps(ps, flavor, version))
            poll = Poll(values={"global_status": [("Innodb_row_lock_current_waits", "1")]})
            sql = [s for _, s in plan.statements(0.0) + plan.second_trip(poll)]
            for s in sql:
                up = s.upper()
                assert not any(w in up for w in ("ORDER BY", "GROUP BY", "JSON_", "GROUP_CONCAT", "DISTINCT")), s
                assert "INFORMATION_SCHEMA.PROCESSLIST" not in up, s
            for s in sql:
                if "INNODB_TRX" in s.upper():
                    limit = int(s.rsplit("LIMIT ", 1)[1])
                    assert 0 < limit <= locks.ROWS_READ, s


def test_transactions_and_lock_waits_only_when_one_waits_or_is_old() -> None:
    plan = StatementPlan(caps())
    status = "---TRANSACTION 421, ACTIVE 0 sec\n---TRANSACTION 422, ACTIVE (PREPARED) {} sec\n"

    def second(waits: str | None, text: str | None) -> tuple[list[str], bool]:
        p = Poll(values={})
        if waits is not None:
            p.values["global_status"] = [("Uptime", "9"), ("Innodb_row_lock_current_waits", waits)]
        if text is not None:
            p.values["innodb_status"] = [("InnoDB", "", text)]
        return [k for k, _ in plan.second_trip(p)], p.none_waiting

    assert second("0", status.format(1)) == ([], True)
    assert second("0", status.format(OLD_TRANSACTION_S)) == (["transactions"], True)
    # while a transaction waits: the lock waits, and every session to find who holds the lock
    assert second("2", status.format(1)) == (["transactions", "lock_waits", "row_locks", "lock_sessions"], False)
    assert second(None, status.format(1)) == (["transactions", "lock_waits", "row_locks", "lock_sessions"], False)  # cannot tell
    assert second("0", None) == (["transactions"], True)
    # a session waiting for a metadata lock: its holder may be an idle transaction
    p = Poll(values={"global_status": [("Innodb_row_lock_current_waits", "0")],
                     "sessions": [(7, "a", "h", "db", "Query", "Waiting for table metadata lock", 3, "ALTER")]})
    # (MariaDB without metadata_lock_info: asked whether it was installed since, while one waits)
    assert [k for k, _ in plan.second_trip(p)] == ["transactions", "lock_sessions", "metadata_locks", "mdl_plugin"]
    assert p.none_waiting
    p.errors["mdl_plugin"] = "Unknown table 'METADATA_LOCK_INFO' in information_schema"
    plan.disabled["mdl_plugin"] = p.errors["mdl_plugin"]
    plan.saw_plugins(p)                            # not installed: no error shown, asked again next poll
    assert "mdl_plugin" not in p.errors and "mdl_plugin" not in plan.disabled and not plan.mdl_plugin
    p.values["mdl_plugin"] = ()
    plan.saw_plugins(p)                            # installed: from the next poll on its holders are read
    assert plan.mdl_plugin and [k for k, _ in plan.second_trip(p)] == ["transactions", "lock_sessions", "metadata_locks"]
    assert "METADATA_LOCK_INFO" in plan.locks.metadata_locks.sql
    assert oldest_active_s("no transactions here") is None
    # statement text imitating a transaction line can only make the poll read more
    assert oldest_active_s("---TRANSACTION 1, ACTIVE 0 sec\nUPDATE t /*\n---TRANSACTION 9, ACTIVE 999 sec */") == 999


def test_rows_kept_are_chosen_client_side_in_the_servers_old_order() -> None:
    rows = [[i, "u", "h", "db", "Query", "Sending data", t, f"SELECT {i}"] for i, t in
            ((5, 3), (2, 9), (7, None), (1, 9), (4, "x"))]
    kept = locks.SESSIONS_PS.pick(rows)
    assert [r[0] for r in kept] == [1, 2, 5, 4, 7]               # longest first, then thread id
    many = [[i, "u", "h", None, "Query", "", i % 50, None] for i in range(400)]
    assert len(locks.SESSIONS_PS.pick(many)) == locks.MAX_SESSIONS
    trx = [["10", 1, None, None, "RUNNING", 4, 0, 0, 1, "RR", None, None, None],
           ["9", 2, None, None, "RUNNING", 40, 0, 0, 1, "RR", None, None, None]]
    assert [r[0] for r in locks.TRANSACTIONS.pick(trx)] == ["9", "10"]


def test_session_states_grouped_here_with_the_idle_ones_counted_by_the_server() -> None:
    rows = [[1, "a", "h", None, "Query", "Waiting for table metadata lock", 30, None],
            [2, "a", "h", None, "Query", "Waiting for table metadata lock", 12, None],
            [3, "a", "h", None, "Query", "Sending data", 1, None]]
    groups = locks.session_groups(rows, [(120, 110, 3600)])
    assert groups == [["Query", "Waiting for table metadata lock", 2, 30], ["Query", "Sending data", 1, 1],
                      ["Sleep", "", 110, 3600], ["(other)", "", 7, None]]
    assert locks.session_groups([], [(None, "x", 1)]) == []           # an odd counts row is ignored


def test_without_performance_schema_processlist_rows_name_the_threads() -> None:
    pl = [(8, "app", "10.0.0.5:1", "shop", "Query", 12, "Updating", "UPDATE t SET v = 1" + "x" * 1000, 0.0),
          (9, "batch", "10.0.0.9:2", "shop", "Sleep", 300, "", None, 0.0),
          (11, "mysqltop", "localhost", None, "Query", 0, "starting", "SHOW PROCESSLIST", 0.0),
          ("junk",), (b"12", "x")]
    rows, threads = locks.processlist_rows(pl, own_id=11)
    assert [r[0] for r in rows] == [8, 9] and rows[0][5:7] == ["Updating", 12]
    assert len(rows[0][7]) == locks.SQL_CHARS
    assert [r[0] for r in locks.busy(rows)] == [8]
    plan = StatementPlan(caps(ps=False))
    sel = plan.locks.lock_waits
    assert "performance_schema.threads" not in sel.sql and "PROCESSLIST" not in sel.sql.upper()
    edge = [["r1", 8, None, None, 5, "UPDATE", "b1", 9, None, None, 300, "RUNNING", None, None, "t", "PRIMARY",
             "X", "RECORD"]]
    filled = locks.fill_threads(sel, edge, threads)
    assert filled[0][2:4] == ["app", "10.0.0.5:1"] and filled[0][8:10] == ["batch", "10.0.0.9:2"]
    assert filled[0][12] == "Sleep"


def test_ps_waits_rows_keep_exact_integers() -> None:
    assert ps_rows([("wait/synch/mutex/a", 1, 2**63)]) == [["wait/synch/mutex/a", 1, 2**63]]


def test_status_text_sent_as_bytes_decodes_without_moving_lines() -> None:
    raw = b"---TRANSACTION 5, ACTIVE 3 sec\nSELECT /* caf\xe9 */ 1\nTrx read view will not see trx"
    text = status_text(raw)
    assert text.split("\n") == ["---TRANSACTION 5, ACTIVE 3 sec", "SELECT /* caf\ufffd */ 1",
                                 "Trx read view will not see trx"]
    assert status_text("plain") == "plain"


def test_latch_summary_read_stops_after_the_latch_classes_once_their_order_is_seen() -> None:
    """The server aggregates every row of the latch summary whatever the WHERE says: after a whole
    read, the poll reads the latch classes and the row after them; the rows kept are the ones the
    WHERE kept (latches that waited)."""
    whole = [("wait/synch/mutex/a", 5, 50), ("wait/synch/mutex/b", 0, 0), ("wait/synch/rwlock/c", 3, 30),
             ("wait/synch/sxlock/d", 1, 10), ("wait/synch/cond/e", 9, 90), ("wait/io/file/f", 4, 40), ("idle", 2, 2)]
    kept = [whole[0], whole[2], whole[3]]
    for flavor, version, short in (("mariadb", (10, 11, 6), " WHERE COUNT_STAR > 0 OR "), ("mysql", (8, 0, 36), " LIMIT 5")):
        plan = StatementPlan(caps(flavor=flavor, version=version))

        def ps_sql() -> str:
            return dict(plan.statements(0.0))["ps_waits"]

        assert "LIMIT" not in ps_sql() and "WHERE" not in ps_sql()
        assert plan.latches.rows(whole) == kept                   # waited, no cond, no io
        assert short in ps_sql()
        if flavor == "mariadb":                                   # 4 latch classes and one more examined
            assert ps_sql().endswith(" LIMIT ROWS EXAMINED 5")
            assert plan.latches.rows([*kept, whole[4]]) == kept    # what the WHERE sends
        assert plan.latches.rows(whole[:5]) == kept
        # a class registered since (a plugin installed) pushes a latch into the last row: cut short
        grown = [whole[0], ("wait/synch/mutex/new", 7, 70), *whole[1:4]]
        assert plan.latches.rows(grown) is None
        assert "LIMIT" not in ps_sql()                            # read whole again
        assert plan.latches.rows([*grown, *whole[4:]]) == [grown[0], grown[1], grown[3], grown[4]]
        assert ps_sql().endswith(" 6")
        assert plan.latches.rows(whole[:5]) == kept
        assert plan.latches.rows(whole[:3]) is None               # no row after the latches: cut short too


def test_latch_summary_read_whole_when_its_order_is_not_the_expected_one() -> None:
    plan = StatementPlan(caps())
    rows = [("wait/synch/cond/e", 9, 90), ("wait/synch/mutex/a", 5, 50), ("wait/io/file/f", 4, 40)]
    assert plan.latches.rows(rows) == [rows[1]]
    assert "LIMIT" not in dict(plan.statements(0.0))["ps_waits"]
    assert plan.latches.rows(rows[1:2]) == [rows[1]]                 # only latches: no end seen
    assert "LIMIT" not in dict(plan.statements(0.0))["ps_waits"]
    assert plan.latches.rows(rows[1:]) == [rows[1]]                  # no cond class after them
    assert "LIMIT" not in dict(plan.statements(0.0))["ps_waits"]


def test_a_short_latch_read_cut_short_twice_in_a_row_is_not_tried_again() -> None:
    plan = StatementPlan(caps())
    whole = [("wait/synch/mutex/a", 5, 50), ("wait/synch/cond/e", 9, 90)]
    assert plan.latches.rows(whole) == whole[:1]
    assert plan.latches.rows(whole[:1]) is None                      # first short read: cut short
    assert plan.latches.rows(whole) == whole[:1]                     # whole again
    assert plan.latches.rows(whole[:1]) is None                      # and again: no more short reads
    assert plan.latches.rows(whole) == whole[:1]
    assert "LIMIT" not in dict(plan.statements(0.0))["ps_waits"]
    other = StatementPlan(caps())
    assert other.latches.rows(whole) == whole[:1]
    assert other.latches.rows(whole[:1]) is None                     # cut short once (a plugin installed),
    assert other.latches.rows(whole) == whole[:1]
    assert other.latches.rows(whole) == whole[:1]                    # then whole again: short reads go on
    assert other.latches.rows(whole[:1]) is None
    assert "LIMIT" not in dict(other.statements(0.0))["ps_waits"]
    assert other.latches.rows(whole) == whole[:1]
    assert "LIMIT" in dict(other.statements(0.0))["ps_waits"]
