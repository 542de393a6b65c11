"""Which output a text holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mysqltop.core.detect import UnknownOutput, detect, parse_any

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
EXPECTED = {"innodb-status": "innodb_status", "innodb-mutex": "innodb_mutex", "ps-waits": "ps_waits",
            "global-status": "global_status"}
FILES = sorted(p for p in CORPUS.glob("*/*") if p.parent.name in EXPECTED)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name[:50]}")
def test_every_corpus_file(path: Path) -> None:
    assert detect(path.read_text(encoding="utf-8", errors="replace")) == EXPECTED[path.parent.name]


def test_manifest_and_junk_are_unknown() -> None:
    assert detect((CORPUS / "MANIFEST.tsv").read_text()) is None
    for text in ("", "\n\n", "hello world", "a\tb\nc\td\n", "\x00\x01\x02\ufffd" * 50, "Empty set (0.00 sec)\n"):
        assert detect(text) is None, text
    with pytest.raises(UnknownOutput, match="not a SHOW ENGINE INNODB STATUS/MUTEX, performance_schema or status"):
        parse_any("hello")


def test_performance_schema_engine_status_is_not_a_mutex_table() -> None:
    text = ("Type\tName\tStatus\nperformance_schema\tevents_waits_current.size\t168\n"
            "performance_schema\tevents_waits_current.count\t1536\n")
    assert detect(text) is None


def test_empty_mutex_result_after_the_statement() -> None:
    text = "MariaDB [(none)]> SHOW ENGINE INNODB MUTEX;\nEmpty set (0.000 sec)\n"
    assert parse_any(text) == {"kind": "innodb_mutex", "rows": []}
    assert parse_any("mysql> show mutex status;\nEmpty set (0.00 sec)\n")["rows"] == []


def test_status_versus_variables() -> None:
    variables = "Variable_name\tValue\nautocommit\tON\ninnodb_buffer_pool_size\t134217728\n"
    assert detect(variables) == "global_variables"
    assert parse_any(variables) == {"kind": "global_variables",
                                    "variables": {"autocommit": "ON", "innodb_buffer_pool_size": "134217728"}}
    # the statement typed at the prompt wins over the name heuristic
    assert detect("mysql> SHOW GLOBAL STATUS LIKE 'wsrep%';\n+---------------+-------+\n| Variable_name | Value |\n"
                  "+---------------+-------+\n| wsrep_ready   | ON    |\n+---------------+-------+\n") == "global_status"
    assert detect("VARIABLE_NAME\tVARIABLE_VALUE\nUPTIME\t5\n") == "global_status"


def test_tabs_lost_in_a_paste() -> None:
    text = "Type    Name                       Status\nInnoDB  rwlock: dict0dict.cc:2783  waits=1\n" \
           "InnoDB  rwlock: dict0dict.cc:2783  waits=2\n"
    d = parse_any(text)
    assert d["kind"] == "innodb_mutex"
    assert [(r["name"], r["site"], r["waits"], r["instances"]) for r in d["rows"]] == [
        ("rwlock", "dict0dict.cc:2783", 3, 2)]
    status = "Variable_name   Value\nUptime  18\nversion_comment  MariaDB Server\n"
    assert parse_any(status)["variables"] == {"Uptime": "18", "version_comment": "MariaDB Server"}


def test_mutex_and_waits_json_shapes() -> None:
    m = parse_any((CORPUS / "innodb-mutex").glob("*").__next__().read_text())
    assert set(m) == {"kind", "rows"} and {"name", "site", "os_waits", "spins", "waits"} <= set(m["rows"][0])
    w = parse_any((CORPUS / "ps-waits" / "mariadb-10.11__mysqltop-lab__oltp-rw-32thr.tsv").read_text())
    assert set(w["rows"][0]) == {"event_name", "count_star", "sum_timer_wait", "min_timer_wait", "avg_timer_wait",
                                 "max_timer_wait"}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=2000))
def test_random_text_never_raises(text: str) -> None:
    detect(text)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=2000))
def test_random_bytes_never_raise(data: bytes) -> None:
    detect(data.decode("utf-8", errors="replace"))
