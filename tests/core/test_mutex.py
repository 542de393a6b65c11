"""SHOW ENGINE INNODB MUTEX / SHOW MUTEX STATUS in every documented layout."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mysqltop.core.mutex import MutexRow, mutex_json, parse_mutex_rows
from mysqltop.core.textforms import Table
from mysqltop.core.mutex import parse_mutex_table
from tests.support.pasted import mutex_rows

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CAPTURE = FIXTURES / "corpus" / "innodb-mutex" / "mysql-8.0__code-index-16949026438__show-engine-innodb-mutex.txt"
GOLDEN = FIXTURES / "golden" / "innodb-mutex" / (CAPTURE.stem + ".json")


def _by_site(rows: list[MutexRow]) -> dict[tuple[str, str | None], MutexRow]:
    return {(r.name, r.site): r for r in rows}


def test_real_92_row_capture_sums_instances_per_site() -> None:
    rows = mutex_rows(CAPTURE.read_text())
    assert rows is not None
    got = {(r.name, r.site): (r.waits, r.instances) for r in rows}
    # Sums checked by hand against the capture (grep | awk): 92 rows, 7 sites.
    assert got == {
        ("rwlock", "dict0dict.cc:2512"): (165, 24),
        ("rwlock", "fil0fil.cc:3333"): (5845, 4),
        ("rwlock", "dict0dict.cc:1033"): (54, 1),
        ("rwlock", "sync0sharded_rw.h:80"): (10, 9),
        ("rwlock", "btr0sea.cc:202"): (2226, 5),
        ("rwlock", "hash0hash.cc:162"): (922, 48),
        ("sum rwlock", "buf0buf.cc:788"): (1018, 1),    # the aggregate stays its own row
    }
    assert sum(r.instances for r in rows) == 92
    assert all(r.os_waits is None and r.spins is None for r in rows)


def test_golden() -> None:
    assert mutex_json(mutex_rows(CAPTURE.read_text()) or []) == json.loads(GOLDEN.read_text())


def test_live_rows_51_to_56() -> None:
    rows = parse_mutex_rows([
        ["InnoDB", "&kernel_mutex", "os_waits=242"],
        ["InnoDB", "../../../storage/innobase/buf/buf0buf.c:1234", "os_waits=12"],
        ["InnoDB", "buf0buf.c:1234", "os_waits=3"],
        ["InnoDB", "&pool->mutex:mem0pool.c", "os_waits=1"],
        ["InnoDB", "combined &block->lock", "os_waits=7"],
    ])
    assert [(r.name, r.site, r.os_waits, r.instances) for r in rows] == [
        ("&kernel_mutex", None, 242, 1),
        ("buf0buf.c:1234", "buf0buf.c:1234", 15, 2),     # the path is cut: same site, summed
        ("&pool->mutex", "mem0pool.c", 1, 1),
        ("combined &block->lock", None, 7, 1),
    ]


def test_live_rows_57_mutexes_with_latch_monitor() -> None:
    rows = parse_mutex_rows([
        ["InnoDB", "LOG_SYS", "spins=1200,waits=31,calls=95000"],
        ["InnoDB", "LOG_SYS", "spins=10,waits=1,calls=5"],
        ["InnoDB", "rwlock: log0log.cc:844", "waits=14"],
    ])
    assert [(r.name, r.site, r.spins, r.waits, r.calls, r.instances) for r in rows] == [
        ("LOG_SYS", None, 1210, 32, 95005, 2), ("rwlock", "log0log.cc:844", None, 14, None, 1)]


def test_univ_debug_status_cell() -> None:
    (row,) = parse_mutex_rows([["InnoDB", "&log_sys->mutex",
                                "count=1203, spin_waits=52, spin_rounds=311, os_waits=9, os_yields=8, os_wait_times=0"]])
    assert (row.calls, row.spins, row.spin_rounds, row.os_waits, row.os_yields, row.os_wait_ms) == (1203, 52, 311, 9, 8, 0)


def test_empty_result_is_valid() -> None:
    assert parse_mutex_rows([]) == []
    assert mutex_json([]) == {"kind": "innodb_mutex", "rows": []}


def test_show_mutex_status_50_columns() -> None:
    text = """mysql> SHOW MUTEX STATUS;
+------------+------------+-------+------------+-------------+----------+-----------+---------------+
| Mutex      | Module     | Count | Spin_waits | Spin_rounds | OS_waits | OS_yields | OS_waits_time |
+------------+------------+-------+------------+-------------+----------+-----------+---------------+
| &rseg->mutex | trx0rseg.c | 64  |          0 |           0 |        0 |         0 |             0 |
| &kernel_mutex | srv0srv.c | 1069 |         40 |         812 |        6 |         6 |            12 |
| &kernel_mutex | srv0srv.c |   31 |          2 |           8 |        1 |         1 |             0 |
+------------+------------+-------+------------+-------------+----------+-----------+---------------+
"""
    rows = mutex_rows(text)
    assert rows is not None
    assert [(r.name, r.site, r.calls, r.spins, r.spin_rounds, r.os_waits, r.os_yields, r.os_wait_ms, r.instances)
            for r in rows] == [("&rseg->mutex", "trx0rseg.c", 64, 0, 0, 0, 0, 0, 1),
                               ("&kernel_mutex", "srv0srv.c", 1100, 42, 820, 7, 7, 12, 2)]


def test_show_mutex_status_50_file_line_columns() -> None:
    rows = parse_mutex_table(Table(["File", "Line", "OS_waits"],
                                   [["buf0buf.c", "493", "26"], ["buf0buf.c", "493", "4"], ["srv0srv.c", "875", "1"]]))
    assert [(r.name, r.site, r.os_waits, r.instances) for r in rows] == [
        ("buf0buf.c:493", "buf0buf.c:493", 30, 2), ("srv0srv.c:875", "srv0srv.c:875", 1, 1)]


def test_mariadb_innodb_mutexes_table() -> None:
    rows = parse_mutex_table(Table(["NAME", "CREATE_FILE", "CREATE_LINE", "OS_WAITS"],
                                   [["&dict_sys->mutex", "dict0dict.cc", "989", "2"],
                                    ["", "combined buf0buf.cc", "1120", "1"]]))
    assert [(r.name, r.site, r.os_waits) for r in rows] == [
        ("&dict_sys->mutex", "dict0dict.cc:989", 2), ("combined buf0buf.cc:1120", "buf0buf.cc:1120", 1)]


def test_text_forms_of_the_same_rows_agree() -> None:
    bordered = CAPTURE.read_text()
    rows = [l.strip().strip("|").split("|") for l in bordered.splitlines() if l.startswith("| InnoDB")]
    rows = [[c.strip() for c in r] for r in rows]
    tsv = "Type\tName\tStatus\n" + "\n".join("\t".join(r) for r in rows) + "\n"
    headerless = "\n".join("\t".join(r) for r in rows)
    vertical = "".join(f"*** {i}. row ***\n  Type: {r[0]}\n  Name: {r[1]}\nStatus: {r[2]}\n"
                       for i, r in enumerate(rows, 1)).replace("*** ", "*" * 27 + " ").replace(" ***", " " + "*" * 27)
    expected = mutex_rows(bordered)
    for form in (tsv, headerless, vertical):
        assert mutex_rows(form) == expected
    assert parse_mutex_rows(rows) == expected


def test_not_a_mutex_table() -> None:
    assert mutex_rows("Variable_name\tValue\nUptime\t5\n") is None
    assert mutex_rows("") is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.one_of(st.text(max_size=40), st.none(), st.integers()), max_size=5), max_size=20))
def test_random_rows_never_raise(rows) -> None:
    for r in parse_mutex_rows(rows):
        assert r.instances >= 1


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=1500))
def test_random_text_never_raises(text: str) -> None:
    mutex_rows(text)
    mutex_rows("Type\tName\tStatus\n" + text)
