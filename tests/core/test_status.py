"""SHOW GLOBAL STATUS / VARIABLES maps."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mysqltop.core.status import parse_status_rows, status_int, status_json
from tests.support.pasted import status_map

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CAPTURE = FIXTURES / "corpus" / "global-status" / "mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv"


def test_golden() -> None:
    golden = json.loads((FIXTURES / "golden" / "global-status" / (CAPTURE.stem + ".json")).read_text())
    assert status_json(status_map(CAPTURE.read_text()) or {}) == golden


def test_capture_values() -> None:
    v = status_map(CAPTURE.read_text())
    assert v is not None and len(v) == 562
    assert status_int(v, "Questions") == 142084
    assert status_int(v, "Innodb_checkpoint_age") == 11414995
    # a value with spaces survives whole
    assert v["Innodb_buffer_pool_load_status"] == "Buffer pool(s) load completed at 261122  1:22:13"


def test_status_int() -> None:
    m = {"Uptime": "18", "Ssl_cipher": "", "Rpl_status": "AUTH_MASTER", "Neg": "-3", "Big": "18446744073709551615",
         "Float": "1.5", "Int": 7}
    assert status_int(m, "Uptime") == 18
    assert status_int(m, "uptime") == 18          # case-insensitive fallback
    assert status_int(m, "Neg") == -3
    assert status_int(m, "Big") == 2**64 - 1
    assert status_int(m, "Int") == 7
    for name in ("Ssl_cipher", "Rpl_status", "Float", "Missing"):
        assert status_int(m, name) is None


def test_parse_status_rows() -> None:
    rows = [["Uptime", "18"], ["Ssl_cipher", None], ["  Threads_running ", 3], [], [None, "x"], ["Only_name"]]
    assert parse_status_rows(rows) == {"Uptime": "18", "Ssl_cipher": "", "Threads_running": "3", "Only_name": ""}


def test_bordered_and_vertical_forms() -> None:
    bordered = ("+-----------------+-------+\n| Variable_name   | Value |\n+-----------------+-------+\n"
                "| Threads_running | 14    |\n| Uptime          | 18    |\n+-----------------+-------+\n")
    vertical = ("*************************** 1. row ***************************\nVariable_name: Threads_running\n"
                "        Value: 14\n*************************** 2. row ***************************\n"
                "Variable_name: Uptime\n        Value: 18\n")
    assert status_map(bordered) == status_map(vertical) == {"Threads_running": "14", "Uptime": "18"}


def test_headerless_capture_is_recognised_by_known_names() -> None:
    assert status_map("Aborted_clients\t0\nUptime\t18\n") == {"Aborted_clients": "0", "Uptime": "18"}
    assert status_map("foo\t1\nbar\t2\n") is None


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=20), st.one_of(st.text(max_size=30), st.integers(), st.booleans()),
                       max_size=10), st.text(max_size=20))
def test_status_int_never_raises(m, name) -> None:
    status_int(m, name)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=1500))
def test_random_text_never_raises(text: str) -> None:
    status_map(text)
    status_map("Variable_name\tValue\n" + text)
