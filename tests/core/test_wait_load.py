"""Database load by wait class: every active session in one class, the classes adding up to the
active sessions, the largest class the incident the gallery recording holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from mysqltop.core.frame import WAIT_CLASSES, Frame, Hotspot, Io, Locks
from mysqltop.core.blocking import Blocker, LockWaiter, Session, SessionState
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.hotspots import ps_hotspots
from mysqltop.core.wait_load import of, state_class
from mysqltop.core.waits import WaitRow
from mysqltop.recording.reader import RecordingReader

GALLERY = Path(__file__).resolve().parents[2] / "recordings"


@pytest.mark.parametrize("command,state,cls", [
    ("Query", "Sending data", "cpu"), ("Query", "executing", "cpu"), ("Execute", "Updating", "cpu"),
    ("Query", "Waiting for table metadata lock", "metadata_lock"), ("Query", "Waiting for table level lock",
                                                                    "metadata_lock"),
    ("Query", "Waiting for global read lock", "metadata_lock"), ("Query", "User lock", "metadata_lock"),
    ("Query", "Commit", "commit"), ("Query", "waiting for handler commit", "commit"), ("Query", "query end", "commit"),
    ("Query", "Copying to tmp table on disk", "io"), ("Query", "converting HEAP to ondisk", "io"),
    ("Query", "User sleep", "other"), ("Binlog Dump", "Master has sent all binlog", None), ("Sleep", "", None),
    ("Daemon", "InnoDB purge worker", None), ("Query", "", "cpu"),
])
def test_state_classes(command: str, state: str, cls: str | None) -> None:
    assert state_class(command, state) == cls


def frame(**kw) -> Frame:
    return Frame(time=0.0, elapsed=1.0, **kw)


def test_counts_move_out_of_cpu_and_add_up() -> None:
    f = frame(session_states=[SessionState("Query", "Updating", 6), SessionState("Query", "Commit", 2),
                              SessionState("Query", "Waiting for table metadata lock", 3),
                              SessionState("Sleep", "", 40), SessionState("(other)", "", 5)],
              blocking=[Blocker(thread_id=1, trx_id="1", waiters=[LockWaiter(thread_id=2, trx_id="2",
                                                                             waiters=[LockWaiter(thread_id=3, trx_id="3")])])],
              hotspots=[Hotspot("btr_search_latch", "rwlock", "performance_schema", wait_ms_per_s=1500.0),
                        Hotspot("trx_i_s_cache_lock", "rwlock", "performance_schema", wait_ms_per_s=9000.0, own=True)],
              io=Io(pending_reads=1), locks=Locks(row_lock_current_waits=9),
              sessions=[Session(2, statement="UPDATE t SET v=v+1 WHERE id=1", command="Query", state="Updating"),
                        Session(3, statement="UPDATE t SET v=v+1 WHERE id=7", command="Query", state="Updating"),
                        Session(9, statement="ALTER TABLE t ADD c INT", command="Query",
                                state="Waiting for table metadata lock")])
    ld = of(f)
    assert (ld.active, ld.cpu, ld.row_lock, ld.latch, ld.io, ld.commit, ld.metadata_lock, ld.other) == (
        11, 1.5, 2, 1.5, 1, 2, 3, 0)
    assert sum(v for _, v in ld.classes()) == ld.active
    assert [(t.wait_class, t.shape, t.sessions) for t in ld.top] == [
        ("row_lock", "UPDATE t SET v=v+? WHERE id=?", 2), ("metadata_lock", "ALTER TABLE t ADD c INT", 1)]


def test_moves_are_capped_by_the_sessions_on_cpu() -> None:
    f = frame(session_states=[SessionState("Query", "Sending data", 1)], io=Io(pending_reads=50),
              locks=Locks(row_lock_current_waits=7))
    ld = of(f)
    assert (ld.active, ld.row_lock, ld.io, ld.cpu) == (1, 1, 0, 0)


def test_no_session_counts_is_unknown_not_zero() -> None:
    ld = of(frame())
    assert ld.active is None and all(ld.value(c) is None for c in WAIT_CLASSES)


@pytest.mark.parametrize("name,largest", [
    ("row-lock-idle-trx", "row_lock"), ("metadata-lock", "metadata_lock"), ("fsync-commits", "commit"),
    ("small-redo-log", "cpu"),
])
def test_gallery_incidents_largest_class(name: str, largest: str) -> None:
    with RecordingReader(GALLERY / f"{name}.mtrec") as r:
        pipe = PolledTimeline()
        loads = [f.load for f in (pipe.push(r.sample(i), advise=False) for i in range(len(r)))
                 if f.load.active is not None]
    assert loads
    avg = {c: sum(ld.value(c) or 0.0 for ld in loads) / len(loads) for c in WAIT_CLASSES}
    assert max(avg, key=avg.__getitem__) == largest
    for ld in loads:
        assert abs(sum(v for _, v in ld.classes()) - (ld.active or 0.0)) < 1e-9


def test_report_load_of_the_metadata_lock_incident() -> None:
    from mysqltop.commands.report import window_report

    r = window_report(str(GALLERY / "metadata-lock.mtrec"), None, None)
    ld = r.load
    assert ld.active_avg is not None and ld.cores == 2
    assert max(ld.classes, key=ld.classes.__getitem__) == "metadata_lock"
    assert abs(sum(ld.classes.values()) - ld.active_avg) < 1e-9
    assert ld.top[0]["wait_class"] == "metadata_lock" and ld.top[0]["shape"] == "SELECT c FROM sbtest1 WHERE id=?"
    assert 0 < len(ld.series["time"]) <= 60 and len(ld.series["metadata_lock"]) == len(ld.series["time"])


def test_latch_time_is_thread_time_from_picoseconds() -> None:
    # 2.5e12 ps of SUM_TIMER_WAIT over 2 s: 1250 ms/s of latch waiting, 1.25 sessions on average
    hot = ps_hotspots({"wait/synch/rwlock/innodb/btr_search_latch": WaitRow("wait/synch/rwlock/innodb/btr_search_latch",
                                                                            10, 10**12)},
                      {"wait/synch/rwlock/innodb/btr_search_latch": WaitRow("wait/synch/rwlock/innodb/btr_search_latch",
                                                                            510, 35 * 10**11)}, 2.0)
    assert hot is not None and [(h.name, h.waits_per_s, h.wait_ms_per_s) for h in hot] == [
        ("btr_search_latch", 250.0, 1250.0)]
    ld = of(frame(session_states=[SessionState("Query", "Sending data", 4)], hotspots=hot))
    assert (ld.active, ld.cpu, ld.latch) == (4, 2.75, 1.25)


def test_ahi_gallery_recording_is_cpu_bound_with_latch_second() -> None:
    """16 sessions and their client on 2 cores (docs/wait-classes.md): the queue for the CPU
    outweighs the AHI latch waiting the server measured, and the chart says so."""
    with RecordingReader(GALLERY / "ahi-latch.mtrec") as r:
        pipe = PolledTimeline()
        frames = [f for f in (pipe.push(r.sample(i), advise=False) for i in range(len(r))) if f.load.active]
    avg = {c: sum(f.load.value(c) or 0.0 for f in frames) / len(frames) for c in WAIT_CLASSES}
    ranked = sorted(avg, key=avg.__getitem__, reverse=True)
    assert ranked[:2] == ["cpu", "latch"] and avg["latch"] > 0.5
    used = [f.host.mysqld_cpu_pct / 100 for f in frames if f.host is not None and f.host.mysqld_cpu_pct is not None]
    active = sum(f.load.active or 0.0 for f in frames) / len(frames)
    assert used and max(used) < 1.0 and active > 8       # mysqld used under a core; ~10 sessions active
