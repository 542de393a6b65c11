"""The poll's JSON wire forms are hostile input like any server byte: a text of another shape, or
with fewer rows than the server counted, is refused (the poller then reads plain rows); a good
one gives exactly the rows the plain form would. Pure: no server (tests/live/test_poll.py reads
both forms from a real one)."""

from __future__ import annotations

import pytest

from mysqltop.sources.locks import json_rows
from mysqltop.sources.poll_results import ps_rows as _ps_rows
from mysqltop.sources.poll_results import status_json as _status_json
from mysqltop.sources.poll_results import waiting as _waiting


def test_ps_waits_text_of_the_right_shape_is_taken_as_is() -> None:
    assert _ps_rows([('[["wait/synch/mutex/a", 1, 2]]', 1)], True) == [["wait/synch/mutex/a", 1, 2]]
    assert _ps_rows([(None, 0)], True) == []                       # no latch waited yet


@pytest.mark.parametrize("text, counted", [
    ('[["a", 1, true]]', 1), ('[["a", 1]]', 1), ('[[1, 1, 2]]', 1), ('{"a": 1}', 1), ('[["a", 1.5, 2]]', 1),
    ('[["a", 1, 2, 3]]', 1), ('[["a", 1, 2], 3]', 2), ('[["a", 1, 2]]', 2), ('[["a", 1, ', 1)])
def test_ps_waits_text_of_another_shape_or_cut_short_is_refused(text: str, counted: int) -> None:
    with pytest.raises(ValueError):
        _ps_rows([(text, counted)], True)


def test_lock_rows_text_gives_the_plain_forms_values() -> None:
    assert json_rows([('[[1, "x", null], [2, "y", 5]]', 2)], 3, 10) == [[1, "x", None], [2, "y", 5]]
    assert json_rows([('[[1, "x", null]]', 7)], 3, 1) == [[1, "x", None]]        # 7 rows, LIMIT 1
    assert json_rows([(None, 0)], 3, 10) == []
    # an escaped lone surrogate is no text a server holds: replaced, never passed on
    assert json_rows([('[[1, "a\\ud800b", 2]]', 1)], 3, 10) == [[1, "a?b", 2]]


@pytest.mark.parametrize("text, counted", [
    ('[[1, 2]]', 1), ('[1]', 1), ('{"a": 1}', 1), ('[[1, 2, 3]]', 2), ('[[1, 2, 3]]', None), ('[[1, 2', 1)])
def test_lock_rows_text_of_another_shape_or_cut_short_is_refused(text: str, counted: int | None) -> None:
    with pytest.raises(ValueError):
        json_rows([(text, counted)], 3, 10)


def test_status_object_is_spelt_as_show_global_status_spells_it() -> None:
    assert _status_json([('{"COM_COMMIT": "5", "INNODB_ROW_LOCK_WAITS": "0"}', 2)]) == {
        "Com_commit": "5", "Innodb_row_lock_waits": "0"}
    for text, counted in (('{"COM_COMMIT": 5}', 1), ('["COM_COMMIT"]', 1), ('{"COM_COMMIT": "5"}', 2)):
        with pytest.raises(ValueError):
            _status_json([(text, counted)])


def test_waiting_count_is_only_a_plain_integer() -> None:
    assert _waiting([("[]", 0, 0)]) == 0 and _waiting([("[]", 3, 2)]) == 2
    assert _waiting(None) is None and _waiting([("[]", 3)]) is None and _waiting([("[]", 3, "2")]) is None
