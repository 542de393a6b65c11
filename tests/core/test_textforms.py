"""Pasted client forms → the same status text / the same table."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mysqltop.core.innodb as innodb
from mysqltop.core.textforms import extract, loose_table, unescape

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
STATUS_FILES = sorted((CORPUS / "innodb-status").glob("*.txt"))
ROW_MARK = "*" * 27 + " 1. row " + "*" * 27


def _escape(s: str) -> str:
    """What `mysql -B` does to a cell."""
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def raw_form(status: str) -> str:
    return status


def vertical_form(status: str) -> str:
    return (f"mysql> SHOW ENGINE INNODB STATUS\\G\n{ROW_MARK}\n  Type: InnoDB\n  Name: \nStatus: \n"
            f"{status}\n1 row in set (0.00 sec)\n\nmysql> ")


def escaped_form(status: str) -> str:
    return f"Type\tName\tStatus\nInnoDB\t\t{_escape(chr(10) + status)}\n"


def bordered_form(status: str) -> str:
    # The mysql client prints a multi-line cell raw and pads it to the column width.
    cell = "\n" + status
    w = len(cell)
    border = f"+--------+------+{'-' * (w + 2)}+"
    return "\n".join([
        "mysql> show engine innodb status;", border, f"| Type   | Name | {'Status'.ljust(w)} |", border,
        f"| InnoDB |      | {cell} |", border, "1 row in set (0.01 sec)", ""])


FORMS = [raw_form, vertical_form, escaped_form, bordered_form]


def _canonical(path: Path) -> str:
    text = extract(path.read_text(encoding="utf-8", errors="replace")).status_text
    assert text is not None, path.name
    return text


@pytest.mark.parametrize("path", STATUS_FILES, ids=lambda p: p.name[:60])
def test_every_corpus_status_is_found(path: Path) -> None:
    text = _canonical(path)
    assert "INNODB MONITOR OUTPUT" in text.splitlines()[1]
    assert text.startswith("=====")
    if "END OF INNODB MONITOR OUTPUT" in path.read_text(errors="replace"):
        assert text.rstrip("\n").splitlines()[-2] == "END OF INNODB MONITOR OUTPUT"
        assert set(text.rstrip("\n").splitlines()[-1]) == {"="}


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("path", STATUS_FILES, ids=lambda p: p.name[:60])
def test_every_form_gives_the_same_status_text(path: Path, form) -> None:
    canonical = _canonical(path)
    assert extract(form(canonical)).status_text == canonical


@pytest.mark.parametrize("form", FORMS[1:], ids=lambda f: f.__name__)
def test_every_form_parses_to_the_same_result(form) -> None:
    parse = getattr(innodb, "parse_innodb_status", None)
    if parse is None:
        pytest.skip("InnoDB status parser not merged yet")
    for path in STATUS_FILES:
        canonical = _canonical(path)
        assert parse(extract(form(canonical)).status_text).to_dict() == parse(canonical).to_dict(), path.name


def test_escaped_backslashes_and_tabs_survive() -> None:
    status = ("=====\n2024-01-02 03:04:05 0x7f INNODB MONITOR OUTPUT\n=====\n"
              "update t set a='C:\\\\new\\tab' where b=1\n\tindented\nEND OF INNODB MONITOR OUTPUT\n=====\n")
    assert extract(escaped_form(status)).status_text == status


def test_truncated_status_in_a_bordered_paste_drops_the_border() -> None:
    status = "=====\n2024-01-02 03:04:05 0x7f INNODB MONITOR OUTPUT\n=====\nPer second averages\n----------\nSEMAPHORES\n"
    got = extract(bordered_form(status)).status_text
    assert got == status


def test_status_without_header_is_found_by_its_sections() -> None:
    text = "junk\n----------\nSEMAPHORES\n----------\nOS WAIT ARRAY INFO\n------------\nTRANSACTIONS\n------------\nx\n"
    assert extract(text).status_text == text[5:]


def test_status_on_the_status_line_itself() -> None:
    text = "Status: =====\n2024-01-02 03:04:05 0x7f INNODB MONITOR OUTPUT\n=====\nEND OF INNODB MONITOR OUTPUT\n=====\n"
    assert extract(text).status_text == text[len("Status: "):]


def test_unescape() -> None:
    assert unescape(r"a\nb\tc\\n\0") == "a\nb\tc\\n\0"
    assert unescape(r"keep \x as is") == r"keep \x as is"


MUTEX_BORDERED = """mysql> SHOW ENGINE INNODB MUTEX;
+--------+----------------------------+-------------+
| Type   | Name                       | Status      |
+--------+----------------------------+-------------+
| InnoDB | rwlock: dict0dict.cc:2783  | waits=1     |
| InnoDB | sum rwlock: buf0buf.cc:788 | waits=1018  |
+--------+----------------------------+-------------+
2 rows in set (0.00 sec)
"""
MUTEX_ROWS = [["InnoDB", "rwlock: dict0dict.cc:2783", "waits=1"], ["InnoDB", "sum rwlock: buf0buf.cc:788", "waits=1018"]]


def test_bordered_table() -> None:
    ext = extract(MUTEX_BORDERED)
    assert ext.statements == ["SHOW ENGINE INNODB MUTEX;"]
    assert [(t.form, t.header, t.rows) for t in ext.tables] == [("bordered", ["Type", "Name", "Status"], MUTEX_ROWS)]
    assert ext.status_text is None


def test_bordered_cell_holding_a_pipe_is_cut_at_the_border_columns() -> None:
    text = "+----+-------+\n| a  | b     |\n+----+-------+\n| x  | y | z |\n+----+-------+\n"
    assert extract(text).tables[0].rows == [["x", "y | z"]]


def test_bordered_without_header_and_markdown_tables() -> None:
    no_header = "+--------+---------------+--------------+\n| InnoDB | &kernel_mutex | os_waits=242 |\n+--------+---------------+--------------+\n"
    t = extract(no_header).tables[0]
    assert (t.header, t.rows) == ([], [["InnoDB", "&kernel_mutex", "os_waits=242"]])
    md = "| Type | Name | Status |\n|------|------|--------|\n| InnoDB | log0log.cc:844 | waits=14 |\n"
    t = extract(md).tables[0]
    assert (t.header, t.rows) == (["Type", "Name", "Status"], [["InnoDB", "log0log.cc:844", "waits=14"]])


def test_vertical_table() -> None:
    text = (f"mysql> SHOW ENGINE INNODB MUTEX\\G\n{ROW_MARK}\n  Type: InnoDB\n  Name: rwlock: dict0dict.cc:2783\n"
            f"Status: waits=1\n{ROW_MARK.replace(' 1.', ' 2.')}\n  Type: InnoDB\n  Name: sum rwlock: buf0buf.cc:788\n"
            "Status: waits=1018\n2 rows in set (0.00 sec)\n")
    t = extract(text).tables[0]
    assert (t.form, t.header, t.rows) == ("vertical", ["Type", "Name", "Status"], MUTEX_ROWS)


def test_indented_vertical_table_from_docs() -> None:
    text = f"   {ROW_MARK}\n     Type: InnoDB\n     Name: log0log.cc:844\n   Status: os_waits=14\n"
    assert extract(text).tables[0].rows == [["InnoDB", "log0log.cc:844", "os_waits=14"]]


def test_vertical_multiline_value_keeps_lines_that_look_like_keys() -> None:
    text = f"{ROW_MARK}\n  Type: InnoDB\n  Name: \nStatus: \nfirst\nLocked: thread 1 file a.cc line 2\nlast\n"
    t = extract(text).tables[0]
    assert t.header == ["Type", "Name", "Status"]
    assert t.rows[0][2] == "\nfirst\nLocked: thread 1 file a.cc line 2\nlast"


def test_tsv_table_unescapes_cells() -> None:
    text = "Variable_name\tValue\nAborted_clients\t0\nsome_path\tC:\\\\data\\tx\n"
    t = extract(text).tables[0]
    assert (t.form, t.header, t.rows) == ("tsv", ["Variable_name", "Value"],
                                          [["Aborted_clients", "0"], ["some_path", "C:\\data\tx"]])


def test_prompt_continuations_without_arrows_are_dropped() -> None:
    text = (CORPUS / "ps-waits" / "mysql-8.0__mysql-docs__mutex-waits-8.0-example.txt").read_text()
    ext = extract(text)
    assert ext.statements[0].startswith("SELECT EVENT_NAME, COUNT_STAR") and ext.statements[0].endswith("DESC;")
    assert ext.tables[0].header == ["EVENT_NAME", "COUNT_STAR", "SUM_TIMER_WAIT_MS"]
    assert len(ext.tables[0].rows) == 30


def test_mariadb_prompt_and_arrow_continuations() -> None:
    text = "MariaDB [(none)]> show global\n    -> status;\n+---------------+-------+\n| Variable_name | Value |\n" \
           "+---------------+-------+\n| Uptime        | 18    |\n+---------------+-------+\n1 row in set (0.001 sec)\n"
    ext = extract(text)
    assert ext.statements == ["show global status;"]
    assert ext.tables[0].rows == [["Uptime", "18"]]


def test_loose_table_spills_extra_words_into_the_named_column() -> None:
    text = "Type    Name    Status\nInnoDB rwlock: log0log.cc:844 waits=14\nInnoDB  &kernel_mutex  os_waits=242\n"
    t = loose_table(text, ["Type", "Name", "Status"], spill=1)
    assert t is not None and t.rows == [["InnoDB", "rwlock: log0log.cc:844", "waits=14"],
                                        ["InnoDB", "&kernel_mutex", "os_waits=242"]]
    assert loose_table("nothing here", ["Type", "Name", "Status"]) is None


# --- robustness -------------------------------------------------------------------------------

_SAMPLE = (STATUS_FILES[0].read_text(errors="replace") + MUTEX_BORDERED).splitlines()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=2000))
def test_random_text_never_raises(text: str) -> None:
    extract(text)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=2000))
def test_random_bytes_never_raise(data: bytes) -> None:
    extract(data.decode("utf-8", errors="replace"))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_SAMPLE + ["|", "+--+", "*** 1. row ***", "\\n", "mysql> x", "\t", "  a: b"]),
                max_size=200))
def test_shuffled_and_garbled_lines_never_raise(lines: list[str]) -> None:
    extract("\n".join(lines))


def test_huge_inputs_stay_fast() -> None:
    big = "\n".join(_SAMPLE) * 40                       # ~0.5 MB of real lines
    spaces = " " * 200_000 + "x\n" + "|" * 100_000 + "x\n" + "a:" * 50_000 + "\n"
    start = time.perf_counter()
    assert extract(big).status_text is not None
    extract(spaces)
    extract("\t" * 100_000)
    assert time.perf_counter() - start < 5.0
