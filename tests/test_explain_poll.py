"""`mysqltop --explain-poll`: every statement a poll may send, with its cap and cadence."""

from __future__ import annotations

import pytest

from mysqltop.cli import main
from mysqltop.core.sample import POLL_STATEMENTS
from mysqltop.sources import read_caps
from mysqltop.sources.explain_poll import CADENCE, statements


def test_it_lists_every_statement_with_its_cap_and_cadence(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--explain-poll"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert read_caps.MARIADB_SET[1] in out and read_caps.MYSQL_SET[1] in out and read_caps.NO_CAP_SET[1] in out
    mariadb = dict(statements("mariadb", (10, 11, 0), True))
    mysql8 = dict(statements("mysql", (8, 0, 40), True))
    for key in POLL_STATEMENTS:
        assert key in mariadb or key in mysql8, key       # every statement of a poll is explained
        assert key in CADENCE
    for sql in (*mariadb.values(), *mysql8.values()):
        assert sql in out
    assert "cap 2 s (max_statement_time)" in out
    assert "cap none (MySQL caps SELECTs only)" in out          # SHOW statements on MySQL
    assert "cap none (no statement time cap on this server)" in out
