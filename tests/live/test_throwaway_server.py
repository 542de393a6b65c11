"""The throwaway servers themselves (tests/support/mariadb.py): each starts from a copy of one
installed datadir, owns what it writes, and leaves nothing behind once discarded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support import mariadb as support
from tests.support.mariadb import TEST_DB

pytestmark = pytest.mark.live


def test_servers_copied_from_the_template_are_independent(mariadb_factory) -> None:  # type: ignore[no-untyped-def]
    a = mariadb_factory(name="tmpl-a")
    b = mariadb_factory(name="tmpl-b")
    assert a.datadir != b.datadir and a.port != b.port
    a.query(f"CREATE TABLE {TEST_DB}.only_in_a (id INT PRIMARY KEY)")
    assert a.query(f"SHOW TABLES IN {TEST_DB} LIKE 'only_in_a'") == [("only_in_a",)]
    assert b.query(f"SHOW TABLES IN {TEST_DB} LIKE 'only_in_a'") == []
    # both have the monitor's grants, made on each server after its start
    for db in (a, b):
        grants = " ".join(g for (g,) in db.query(f"SHOW GRANTS FOR '{support.MONITOR_USER}'@'%'"))
        assert "PROCESS" in grants, grants
    # the template is never a running datadir, and carries our pid so other runs' sweeps keep it
    template = support._template_datadir()
    assert template not in (a.datadir, b.datadir)
    assert not (template / f"{TEST_DB}").exists()
    assert (template.parent / "pid").read_text().split() == [str(os.getpid())]


def test_a_discarded_server_leaves_no_process_and_no_directory(mariadb_factory) -> None:  # type: ignore[no-untyped-def]
    db = mariadb_factory(name="discard")
    pid, top = db.pid, db.dir
    assert isinstance(top, Path) and top.is_dir()
    db.pause()                                      # even a stopped server goes at once
    db.discard()
    assert not db.running
    assert not Path(f"/proc/{pid}").exists()                  # killed and reaped
    assert not top.exists()
