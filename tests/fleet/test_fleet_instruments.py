"""--enable-instruments over a fleet: tried on each server, what changed (or the GRANT a server
lacks) is that server's note, and a server that refused is still watched."""

from __future__ import annotations

import pytest

from mysqltop.sources.fleet_sources import open_fleet

pytestmark = pytest.mark.live
INSTRUMENT = "wait/synch/mutex/innodb/buf_pool_mutex"      # one of the latches mysqltop ranks


def _enabled(db) -> str:  # type: ignore[no-untyped-def]
    return str(db.query(f"SELECT ENABLED FROM performance_schema.setup_instruments WHERE NAME = '{INSTRUMENT}'")[0][0])


def test_each_server_enables_or_says_why_not(mariadb) -> None:  # type: ignore[no-untyped-def]
    mariadb.query(f"UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' WHERE NAME = '{INSTRUMENT}'")
    try:
        admin, monitor = mariadb.options(user="root"), mariadb.options()
        members = open_fleet([monitor, admin], 1.0, enable_instruments=True)
        try:
            refused, enabled = members
            # the monitor account may not UPDATE setup_instruments: its note names the GRANT …
            assert refused.notes and refused.notes[0].startswith("instruments not enabled:")
            assert "GRANT UPDATE ON performance_schema.setup_instruments" in refused.notes[0]
            # … and it is watched all the same
            assert refused.error is None and refused.capabilities is not None
            assert refused.source.read().error is None
            # root turned the instrument back on and says how many it changed
            assert enabled.error is None and enabled.notes[0].startswith("enabled 1 of ")
            assert _enabled(mariadb) == "YES"
        finally:
            for m in members:
                m.source.close()
    finally:
        mariadb.query(f"UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' WHERE NAME = '{INSTRUMENT}'")


def test_without_the_flag_nothing_is_changed(mariadb) -> None:  # type: ignore[no-untyped-def]
    mariadb.query(f"UPDATE performance_schema.setup_instruments SET ENABLED = 'NO' WHERE NAME = '{INSTRUMENT}'")
    try:
        members = open_fleet([mariadb.options(user="root")], 1.0)
        try:
            assert members[0].notes == () and _enabled(mariadb) == "NO"
        finally:
            members[0].source.close()
    finally:
        mariadb.query(f"UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' WHERE NAME = '{INSTRUMENT}'")
