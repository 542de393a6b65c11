"""Identity across failover: two throwaway servers with different datadirs swapped behind one
address (tests/support/swap_proxy.py) while `record` runs and while the live pipeline polls. The
second is a new server: a segment of its own in the recording, no rate across the swap, the
line that says so, two servers in the report; a restart of the same server stays a restart."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable

import pytest

from mysqltop.recording.reader import RecordingReader
from tests.support.mariadb import MONITOR_PASSWORD, MONITOR_USER, ThrowawayMariaDB
from tests.support.swap_proxy import SwapProxy
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]
RATES = ("tps", "qps", "commits_per_s", "rows_read_per_s", "committed_per_s")


def _conn(port: int) -> list[str]:
    return ["-h", "127.0.0.1", "-P", str(port), "-u", MONITOR_USER, f"--password={MONITOR_PASSWORD}", "--no-defaults"]


def _busy(db: ThrowawayMariaDB, n: int) -> None:
    """Counters far ahead of a fresh server's: a diff across the swap would go far negative."""
    conn = db.root_conn()
    try:
        with conn.cursor() as cur:
            for _ in range(n):
                cur.execute("SELECT 1")
    finally:
        conn.close()


def _uids(path: Path) -> list[str | None]:
    try:
        with RecordingReader(path) as r:
            return [r.sample(i).server.uid for i in range(len(r))]
    except Exception:  # noqa: BLE001 - not written yet
        return []


def _check_frames(frames: list[dict[str, Any]]) -> None:
    fresh = [f for f in frames if not f["stale"]]
    uids = [f["server"]["uid"] for f in fresh]
    assert len(set(uids)) == 2, uids
    k = next(i for i, u in enumerate(uids) if u != uids[0])
    first_b = fresh[k]
    assert first_b["elapsed"] is None and all(first_b["throughput"][r] is None for r in RATES)
    assert first_b["server"]["replaced_at"] is not None and fresh[0]["server"]["replaced_at"] is None
    for f in fresh:
        for r in RATES:
            v = f["throughput"][r]
            assert v is None or 0 <= v < 1e6, (r, v)
    assert any(f["throughput"]["qps"] is not None for f in fresh[k + 1:])     # B's own rates resume


def test_a_different_server_behind_the_address_is_a_new_server(
        mariadb_factory: Callable[..., ThrowawayMariaDB], tmp_path: Path) -> None:
    a, b = mariadb_factory(name="fo-a"), mariadb_factory(name="fo-b")
    assert a.datadir != b.datadir
    _busy(a, 3000)
    rec = tmp_path / "swap.mtrec"
    with SwapProxy(a.port) as proxy:
        # --- record across the swap -----------------------------------------------------------
        proc = subprocess.Popen([sys.executable, "-m", "mysqltop", "record", str(rec), *_conn(proxy.port),
                                 "--interval", "0.2"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        try:
            wait_until(lambda: len([u for u in _uids(rec) if u]) >= 5, timeout=60)
            proxy.swap(b.port)
            wait_until(lambda: len(set(u for u in _uids(rec) if u)) == 2
                       and _uids(rec)[-3:].count(_uids(rec)[-1]) == 3, timeout=60)
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=60)
        assert "Traceback" not in err
        assert "a different server answers at this address since" in err, err
        with RecordingReader(rec) as r:
            uids = [r.sample(i).server.uid for i in range(len(r))]
            first_b = next(i for i, u in enumerate(uids) if u and u != uids[0])
            assert r.is_segment_start(first_b)             # a segment of its own
        replay = subprocess.run([sys.executable, "-m", "mysqltop", "snapshot", "--replay", str(rec), "--format",
                                 "json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert replay.returncode == 0, replay.stderr
        _check_frames([json.loads(line) for line in replay.stdout.splitlines()])
        report = subprocess.run([sys.executable, "-m", "mysqltop", "report", str(rec), "--format", "json"],
                                cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert report.returncode == 0, report.stderr
        servers = json.loads(report.stdout)["servers"]
        assert [s["uid"] for s in servers] == [uids[0], uids[first_b]]
        text = subprocess.run([sys.executable, "-m", "mysqltop", "report", str(rec)], cwd=ROOT,
                              capture_output=True, text=True, timeout=120).stdout
        assert "2 different servers answered at this address" in text.lower()

        # --- the live path (engine, pipeline: what the TUI and serve run) across a swap back ----
        _busy(b, 3000)
        live = subprocess.Popen([sys.executable, "-m", "mysqltop", "snapshot", *_conn(proxy.port), "--count", "40",
                                 "--interval", "0.2", "--format", "json"], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(live.stdout or []), daemon=True)
        reader.start()
        try:
            wait_until(lambda: len(lines) >= 8, timeout=60)
            proxy.swap(a.port)
            live.wait(timeout=120)
        finally:
            if live.poll() is None:
                live.kill()
        reader.join(10)
        _check_frames([json.loads(line) for line in lines])


def test_a_restart_of_the_same_server_stays_a_restart(mariadb_factory: Callable[..., ThrowawayMariaDB]) -> None:
    from mysqltop.sources.mysql import MySQLSource

    db = mariadb_factory(name="fo-same")
    src = MySQLSource(db.options(), interval=0.2, answer_timeout=5.0)
    src.open()
    try:
        before = src.read()
        assert before.error is None
        db.restart()
        wait_until(lambda: src.read().error is None, timeout=60)
        after = src.read()
        assert after.server.uid == before.server.uid and after.server.replaced_at is None
        assert after.server.same_server(before.server)
    finally:
        src.close()


def test_a_restored_snapshot_at_the_same_address_is_a_different_server(
        mariadb_factory: Callable[..., ThrowawayMariaDB], tmp_path: Path) -> None:
    """Same @@server_id, @@hostname and @@datadir, but the data of an earlier moment: its redo
    log's position is lower than the one last seen, so it is not the server watched before."""
    import shutil

    from mysqltop.sources.mysql import MySQLSource, redo_lsn

    db = mariadb_factory(name="fo-snap")
    db.stop(remove=False)
    shutil.copytree(db.datadir, tmp_path / "snapshot", symlinks=True)
    db.start()
    conn = db.root_conn()
    with conn.cursor() as cur:                       # move the redo log on past the snapshot
        cur.execute("CREATE TABLE IF NOT EXISTS mysqltop_test.grow (id INT PRIMARY KEY AUTO_INCREMENT, v TEXT)")
        for _ in range(50):
            cur.execute("INSERT INTO mysqltop_test.grow (v) VALUES (REPEAT('x', 8000))")
    conn.close()
    src = MySQLSource(db.options(), interval=0.2, answer_timeout=5.0)
    src.open()
    try:
        before = src.read()
        assert before.error is None and redo_lsn(before) is not None
        db.stop(remove=False)
        shutil.rmtree(db.datadir)
        shutil.copytree(tmp_path / "snapshot", db.datadir, symlinks=True)
        db.start()
        got: list[Any] = []
        wait_until(lambda: (s := src.read()).error is None and got.append(s) is None, timeout=60)
        after = got[-1]
        assert after.server.uid == before.server.uid          # it says it is the same server …
        assert (redo_lsn(after) or 0) < (redo_lsn(before) or 0)
        assert after.server.replaced_at is not None          # … its data says otherwise
        assert not after.server.same_server(before.server)
    finally:
        src.close()
