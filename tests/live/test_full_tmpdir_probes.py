"""A full tmpdir on the server: connecting and reconnecting write nothing to its error log.

Probes of information_schema.COLUMNS and PLUGINS built on-disk temporary tables, so every
(re)connect of every mysqltop process logged "[ERROR] Disk got full writing
'information_schema.(temporary)'" into the server's log while its tmpdir was full.
"""

from __future__ import annotations

import pytest

from mysqltop.sources.mysql import MySQLSource
from tests.support.tmpfs import fill, mounted
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live


def _log_since(db, start: int) -> str:  # type: ignore[no-untyped-def]
    with db.log_path.open(errors="replace") as f:
        f.seek(start)
        return f.read()


def test_reconnects_with_a_full_tmpdir_leave_the_error_log_clean(mariadb_factory) -> None:  # type: ignore[no-untyped-def]
    with mounted("1m") as tmp:
        if tmp is None:
            pytest.skip("cannot mount a small tmpfs here (needs root)")
        db = mariadb_factory(extra_args=[f"--tmpdir={tmp}"], name="fulltmp")
        try:
            # the plugin the stall view reads where it is active (a second probe to check)
            db.query("INSTALL SONAME 'metadata_lock_info'")
            plugin = True
        except Exception:  # noqa: BLE001 - not shipped with this server build
            plugin = False
        fill(tmp)
        # the technique works: a look in information_schema.PLUGINS now fails with the disk full
        start = db.log_path.stat().st_size
        with pytest.raises(Exception, match="Disk got full|1021"):
            db.query("SELECT PLUGIN_NAME FROM information_schema.PLUGINS WHERE PLUGIN_NAME='x'")
        assert "Disk got full" in _log_since(db, start)

        start = db.log_path.stat().st_size
        src = MySQLSource(db.options(), interval=0.2)
        try:
            caps = src.open()
            assert caps.metrics_column == "ENABLED"
            assert src.plan is not None and src.plan.locks.metadata_locks is not None
            assert (src.plan.locks.metadata_locks.cols[0] == "'metadata_lock_info'") is plugin
            assert src.read().error is None
            for k in range(3):                      # the server drops us: reconnect, probe again
                db.query(f"KILL {int(src.link.conn.server_thread_id[0])}")
                wait_until(lambda k=k: src.read().error is None and src.reconnects == k + 1, timeout=60)
            assert src.reconnects == 3
        finally:
            src.close()
            log = _log_since(db, start)
            db.stop()                               # before its tmpdir is unmounted
        assert "Disk got full" not in log and "[ERROR]" not in log, log
