"""Active session samples: each busy session of a poll in one tuple of dimensions, recorded
dictionary-coded, and the load by any dimension a fold over them that agrees with a hand count."""

from __future__ import annotations

import json

import pytest

from mysqltop.core import active_sessions, load_slices
from mysqltop.core.frame import Frame, Hotspot, WaitLoad
from mysqltop.core.sample import RawSample
from mysqltop.core.wait_load import _session_rows, sessions_of
from mysqltop.recording import string_table
from mysqltop.recording.format import parse_sample_text, sample_text

# [thread, user, host, db, command, state, time_s, sql] (sources/lock_reads.py sessions)
BUSY = [
    [11, "app_orders", "10.0.3.4:51234", "shop", "Query", "Updating", 3, "UPDATE inventory SET qty = qty - 1 WHERE sku = 'A1'"],
    [12, "app_orders", "10.0.3.5:40000", "shop", "Query", "Updating", 2, "UPDATE inventory SET qty = qty - 1 WHERE sku = 'A1'"],
    [13, "reporting", "10.0.4.1:1234", "dw", "Query", "Sending data", 0, "SELECT * FROM t WHERE id = 5"],
    [14, "reporting", "10.0.4.1:1235", "dw", "Query", "Sending data", 0, "SELECT * FROM t WHERE id = 6"],
    [15, "batch", "::1:5555", "shop", "Query", "Waiting for table metadata lock", 9, "ALTER TABLE inventory ADD c INT"],
    [16, "batch", "localhost", None, "Query", "User sleep", 1, "SELECT SLEEP(5)"],
    [17, "batch", "localhost", None, "Sleep", "", 100, None],
]
# lock_waits: waiting_thread at 1, lock_table/lock_index at 14/15
WAITS = [["t11", 11, "app_orders", "10.0.3.4", 3, "UPDATE …", "t9", 9, "x", "y", 30, "RUNNING", "Sleep", None,
          "`shop`.`inventory`", "PRIMARY", "X", "RECORD", "'A1'"]]
# metadata_locks: [source, thread, object_type, schema, name, mode, status, duration]
MDL = [["performance_schema", 15, "TABLE", "shop", "inventory", "EXCLUSIVE", "PENDING", "TRANSACTION"]]


def test_rows_classify_with_wait_objects_and_hosts_without_ports() -> None:
    rows = active_sessions.rows(BUSY, WAITS, None, MDL, with_port=True)
    by = {(r[0], r[1], r[3]): r for r in rows}
    assert by[("row_lock", "`shop`.`inventory` (PRIMARY)", "app_orders")][8] == 1        # the listed waiter
    assert by[("cpu", "CPU", "app_orders")][4] == "10.0.3.5"                            # port gone
    reporting = by[("cpu", "CPU", "reporting")]
    assert reporting[8] == 2 and reporting[2] == "SELECT * FROM t WHERE id = ?"      # one shape, counted
    assert reporting[4] == "10.0.4.1"
    assert by[("metadata_lock", "`shop`.`inventory`", "batch")][4] == "::1"
    assert by[("other", "SLEEP()", "batch")][5] == ""
    assert sum(r[8] for r in rows) == 6                                                 # Sleep is not active


def test_performance_schema_hosts_keep_what_looks_like_a_port() -> None:
    rows = active_sessions.rows([[1, "u", "fe80::1", "d", "Query", "executing", 0, "SELECT 1"]])
    assert rows[0][4] == "fe80::1"


def test_more_distinct_sessions_than_kept_end_in_one_other_row() -> None:
    busy = [[i, f"u{i}", "h", "d", "Query", "executing", 0, f"SELECT {i} FROM t{i}"]
            for i in range(active_sessions.MAX_ROWS + 50)]
    rows = active_sessions.rows(busy)
    assert len(rows) == active_sessions.MAX_ROWS + 1 and rows[-1][1:8] == [active_sessions.OTHER_LABEL] * 7
    assert sum(r[8] for r in rows) == active_sessions.MAX_ROWS + 50


def test_string_table_round_trips_and_refuses_hostile_codes() -> None:
    rows = active_sessions.rows(BUSY, WAITS, None, MDL, with_port=True) + [["cpu", None, "x", "", "", "", "", "", 2.5]]
    lines = string_table.encode(rows)
    assert string_table.decode(lines) == rows
    assert sum(1 for line in lines if line.startswith('"')) == len({v for r in rows for v in r if isinstance(v, str)})
    for bad in (['"a"', "[5]", '"b"'], ["[-2]"], ['"a"', "{}"], ['"a"', '["x"]'], ["[true]"]):
        with pytest.raises(ValueError):
            string_table.decode(bad)


def test_sample_text_keeps_active_sessions_and_old_texts_read_none() -> None:
    rows = active_sessions.rows(BUSY, WAITS, None, MDL, with_port=True)
    raw = RawSample(wall=1.0, mono=1.0, active_sessions=rows)
    text = sample_text(raw)
    assert "@active_sessions table " in text
    back = parse_sample_text(text, 1.0, 1.0, raw.server, {})
    assert back.active_sessions == rows
    old = "\n".join(line for line in text.split("\n")[: text.split("\n").index(
        next(h for h in text.split("\n") if h.startswith("@active_sessions")))])
    assert parse_sample_text(old, 1.0, 1.0, raw.server, {}).active_sessions is None


def test_hostile_rows_are_skipped_not_fatal() -> None:
    rows = [["cpu", "CPU", "q", "u", "h", "s", "Query", "x", 1], "junk", ["cpu"], ["nope", 1, 2, 3, 4, 5, 6, 7, 2],
            ["cpu", "CPU", "q", "u", "h", "s", "Query", "x", float("nan")], ["cpu", "CPU", "q", "u", "h", "s", "Q", "", True]]
    got = _session_rows(rows)
    assert [(s.wait_class, s.sessions) for s in got] == [("cpu", 1.0), ("other", 2.0)]
    assert _session_rows({"a": 1}) == []


def test_latch_time_beyond_the_rows_is_shared_by_the_sessions_on_cpu() -> None:
    rows = active_sessions.rows(BUSY, WAITS, None, MDL, with_port=True)
    frame = Frame(time=0.0, hotspots=[Hotspot("btr_search_latch", "rwlock", "performance_schema", wait_ms_per_s=1500.0)])
    counts = {"cpu": 1.5, "row_lock": 1.0, "metadata_lock": 1.0, "latch": 1.5, "io": 0.0, "commit": 0.0, "other": 1.0}
    out = sessions_of(rows, counts, frame)
    assert sum(s.sessions for s in out) == pytest.approx(6.0)                  # nothing made up or lost
    latch = [s for s in out if s.wait_class == "latch"]
    assert {s.object for s in latch} == {"btr_search_latch"} and sum(s.sessions for s in latch) == pytest.approx(1.5)
    assert sum(s.sessions for s in out if s.wait_class == "cpu") == pytest.approx(1.5)


def _frame(t: float, rows: list[list], elapsed: float | None = 1.0, stale: bool = False) -> Frame:
    load = WaitLoad(active=float(sum(r[8] for r in rows)))
    load.sessions = _session_rows(rows)
    load.sessions_known = True
    return Frame(time=t, elapsed=elapsed, stale=stale, load=load)


def test_the_fold_agrees_with_a_hand_count() -> None:
    a = ["row_lock", "`shop`.`inventory` (PRIMARY)", "UPDATE inventory SET qty = ? WHERE sku = ?", "app_orders",
         "10.0.3.4", "shop", "Query", "Updating"]
    b = ["cpu", "CPU", "SELECT * FROM t WHERE id = ?", "reporting", "10.0.4.1", "dw", "Query", "Sending data"]
    frames = [_frame(0, [[*a, 4], [*b, 2]], elapsed=None),           # first frame: no Δt, no weight
              _frame(1, [[*a, 4], [*b, 2]]), _frame(2, [[*a, 2], [*b, 2]], elapsed=3.0),
              _frame(3, [[*a, 9]], stale=True), _frame(4, [[*b, 1]])]
    got = load_slices.fold(frames).slices()
    # hand count: a = (4·1 + 2·3 + 0·1) / 5 = 2.0; b = (2·1 + 2·3 + 1·1) / 5 = 1.8
    users = {s.value: s.sessions for s in got["user"]}
    assert users == pytest.approx({"app_orders": 2.0, "reporting": 1.8})
    assert got["object"][0].value == "`shop`.`inventory` (PRIMARY)"
    assert got["wait_class"][0].classes == pytest.approx({"row_lock": 2.0})
    assert load_slices.fold([]).slices() == {}


def test_frame_json_carries_sessions_and_slices() -> None:
    f = _frame(1, [["cpu", "CPU", "SELECT ?", "u", "h", "s", "Query", "x", 2]])
    f.load.slices = load_slices.of_sessions(f.load.sessions)
    d = json.loads(json.dumps(f.to_dict()))
    assert d["load"]["slices"]["user"] == [{"value": "u", "sessions": 2.0, "classes": {"cpu": 2.0}}]
    assert d["load"]["sessions"][0]["sql"] == "SELECT ?"


def test_csv_has_a_fixed_set_of_user_and_schema_columns() -> None:
    from mysqltop.views.headless import CSV_LOAD, csv_columns, csv_row
    f = _frame(1, [["cpu", "CPU", "SELECT ?", "u1", "h", "s1", "Query", "x", 2],
                   ["cpu", "CPU", "SELECT ?", "u2", "h", "s1", "Query", "x", 1]])
    f.load.slices = load_slices.of_sessions(f.load.sessions)
    cols, row = csv_columns(), csv_row(f)
    assert cols[-len(CSV_LOAD):] == CSV_LOAD and len(CSV_LOAD) == 12 and len(row) == len(cols)
    got = dict(zip(cols, row))
    assert (got["load.user.1"], got["load.user.1.sessions"], got["load.user.2"], got["load.user.3"]) == ("u1", "2", "u2", "")
    assert (got["load.schema.1"], got["load.schema.1.sessions"]) == ("s1", "3")


def test_redaction_marks_shapes_and_names_pseudonyms() -> None:
    import dataclasses

    from mysqltop.core.blocking import SQL_COLUMNS, without_statements
    from mysqltop.recording.redaction import SQL_MARK, Pseudonyms, redact_sample, survivors

    rows = active_sessions.rows(BUSY, WAITS, None, MDL, with_port=True)
    raw = RawSample(wall=1.0, mono=1.0, sessions=[r[:] for r in BUSY], lock_waits=WAITS, metadata_locks=MDL,
                    active_sessions=rows)
    marked = without_statements({k: getattr(raw, k) for k in SQL_COLUMNS}, SQL_MARK)["active_sessions"]
    assert {r[2] for r in marked} == {SQL_MARK}                       # record --redact
    names = Pseudonyms()
    out = redact_sample(raw, names)
    text = json.dumps(out.active_sessions)
    for name in ("app_orders", "reporting", "inventory", "10.0.3.4"):
        assert name not in text, text
    assert survivors(dataclasses.replace(out), names) == []
