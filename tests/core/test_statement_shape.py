"""A statement's shape: values out, identifiers and structure kept."""

from __future__ import annotations

import pytest

from mysqltop.core.statement_shape import MAX_SHAPE, shape


@pytest.mark.parametrize("sql,want", [
    ("UPDATE shop.accounts SET balance=balance+10 WHERE id=2", "UPDATE shop.accounts SET balance=balance+? WHERE id=?"),
    ("INSERT INTO t (a, b) VALUES ('x', 1.5e3), ('y''s', -2)", "INSERT INTO t (a, b) VALUES (?)"),
    ("SELECT * FROM t1 WHERE id IN (1, 2,3) AND c = 0x1F -- tail", "SELECT * FROM t1 WHERE id IN (?) AND c = ?"),
    ("replace into foo values(1);", "replace into foo values(?)"),
    ("SELECT `col 1`, t2.c3 FROM `db`.`t9` /* hint 42 */ WHERE k=\"v\"", "SELECT `col 1`, t2.c3 FROM `db`.`t9` WHERE k=?"),
    ("UPDATE t SET `a1`=`a1`+1", "UPDATE t SET `a1`=`a1`+?"),
    ("", None), (None, None),
])
def test_shape(sql: str | None, want: str | None) -> None:
    assert shape(sql) == want


def test_shape_is_bounded() -> None:
    s = shape("SELECT " + ", ".join(f"c{i}" for i in range(500)) + " FROM t")
    assert s is not None and len(s) == MAX_SHAPE


def test_a_list_the_server_cut_is_one_shape_whatever_was_left_of_it() -> None:
    cut = [f"UPDATE t SET v = 'x' WHERE id IN ({', '.join(str(1000 + i) for i in range(n))}" for n in (3, 7, 12)]
    assert {shape(s) for s in cut} == {"UPDATE t SET v = ? WHERE id IN (?…"}
    assert shape("UPDATE t SET v = 1 WHERE id IN (1, 2,") == "UPDATE t SET v = ? WHERE id IN (?…"
    assert shape("SELECT * FROM t WHERE id IN (1, 2)") == "SELECT * FROM t WHERE id IN (?)"
