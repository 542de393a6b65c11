"""MariaDB's metadata_lock_info plugin uninstalled while mysqltop watches, then installed again:
the holders' read must come back with it, not stay switched off for the session."""

from __future__ import annotations

import threading
import time

import pymysql

from mysqltop.sources.mysql import MySQLSource


def _wait(pred, what: str, bound: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + bound
    while not pred():
        assert time.monotonic() < end, what
        time.sleep(0.1)


def test_lock_holders_read_again_after_the_plugin_is_reinstalled(mariadb_factory) -> None:  # type: ignore[no-untyped-def]
    db = mariadb_factory(name="mdlgone")
    db.query("INSTALL SONAME 'metadata_lock_info'")
    db.query("CREATE TABLE mysqltop_test.m (id INT PRIMARY KEY) ENGINE=InnoDB")
    holder = db.root_conn()
    alter = db.root_conn()
    src = MySQLSource(db.options(), interval=1.0)
    try:
        with holder.cursor() as cur:
            cur.execute("SELECT CONNECTION_ID()")
            hid = int(cur.fetchone()[0])
            cur.execute("BEGIN")
            cur.execute("SELECT * FROM mysqltop_test.m")
        threading.Thread(target=lambda: _quiet(alter.query, "ALTER TABLE mysqltop_test.m FORCE"), daemon=True).start()
        _wait(lambda: db.query("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                               "WHERE STATE = 'Waiting for table metadata lock'")[0][0] > 0, "no MDL waiter")
        src.open()

        def holders() -> set[int]:
            rows = src.read().metadata_locks or []
            return {r[1] for r in rows if r[0] == "metadata_lock_info"}

        _wait(lambda: hid in holders(), "holder not listed with the plugin active")
        db.query("UNINSTALL SONAME 'metadata_lock_info'")
        for _ in range(3):
            assert hid not in holders()
        db.query("INSTALL SONAME 'metadata_lock_info'")
        _wait(lambda: hid in holders(), "holder not listed again after the plugin came back", bound=20.0)
    finally:
        src.close()
        for c in (holder, alter):
            try:
                c.close()
            except Exception:  # noqa: BLE001
                pass


def _quiet(fn, *args) -> None:  # type: ignore[no-untyped-def]
    try:
        fn(*args)
    except pymysql.err.MySQLError:
        pass
