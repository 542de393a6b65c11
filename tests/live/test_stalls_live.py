"""Every stall class on a throwaway MariaDB leads the advice with the exact session to release.

Real sessions pile up behind an idle holder (tests/support/stalls.py): a row lock, a metadata lock
with an ALTER queued first, FLUSH TABLES WITH READ LOCK, LOCK TABLES, GET_LOCK, a chain two deep.
Two servers: one with MariaDB's metadata_lock_info plugin (holders listed by the server), and one
whose performance_schema has the metadata-lock instrument off (holders inferred: candidates, no
KILL, and how to enable it). With a lock list the first finding's id and root thread id are exact;
no waiter and never the monitor's own session is named; a calm server stays quiet; a stall that
ends clears its finding."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Iterator

import pytest

from mysqltop.core.frame import Frame
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.recording.writer import RecordingWriter
from mysqltop.sources.mysql import MySQLSource
from mysqltop.views.headless import json_frame, text_frame
from tests.support.mariadb import ThrowawayMariaDB
from tests.support.stalls import CLASSES, FINDING, inject
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live

WAITERS = 16


@pytest.fixture(scope="module")
def plugin_db() -> Iterator[ThrowawayMariaDB]:
    db = ThrowawayMariaDB(name="stalls", extra_args=["--plugin-load-add=metadata_lock_info"])
    db.start()
    try:
        yield db
    finally:
        db.stop()


class Monitor:
    """A live source and its pipeline: frames as the TUI and snapshot get them."""

    def __init__(self, db: ThrowawayMariaDB) -> None:
        self.src = MySQLSource(db.options(), interval=1.0)
        self.src.open()
        self.pipe = PolledTimeline()
        self.own_id = _own_id(self.src)

    def frame(self) -> Frame:
        return self.pipe.push(self.src.read())

    def until_first(self, finding: str, timeout: float = 60.0) -> Frame:
        def check() -> Frame | None:
            f = self.frame()
            return f if f.advice and f.advice[0].id == finding else None
        return wait_until(check, timeout=timeout, step=0.3)

    def close(self) -> None:
        self.src.close()


def _own_id(src: MySQLSource) -> int:
    with src.link.conn.cursor() as c:                 # the monitor's own session, to check it is never named
        c.execute("SELECT CONNECTION_ID()")
        return int(c.fetchone()[0])


def _assert_root(frame: Frame, finding: str, holder: int, waiters: list[int], own: int) -> None:
    first = frame.advice[0]
    assert first.id == finding and first.severity == "critical"
    st = next(s for s in frame.stalls if f"stall_{s.kind}" == finding)
    assert st.root is not None and st.root.thread_id == holder and st.root.kill == f"KILL {holder}"
    assert st.root.thread_id not in waiters and st.root.thread_id != own
    assert f"thread {holder} " in first.message and f"KILL {holder}" in first.message
    for w in waiters:                                   # no waiter named as the root anywhere
        assert f"thread {w} " not in first.message and f"KILL {w}" not in first.message
    assert f"KILL {own}" not in first.message
    assert st.waiting >= len(waiters) - 1 and (st.longest_wait_s or 0) >= 5
    assert frame.locks.waiting_sessions is not None and frame.locks.waiting_sessions >= len(waiters) - 1
    assert (frame.locks.waiting_ms_per_s or 0) > 1000             # waits in progress: not 0 in a total stall


@pytest.mark.parametrize("kind", CLASSES)
def test_each_stall_class_names_the_holder_listed_by_the_server(plugin_db: ThrowawayMariaDB, kind: str) -> None:
    mon = Monitor(plugin_db)
    try:
        mon.frame()
        with inject(plugin_db.root_kwargs(), kind, waiters=WAITERS) as s:
            frame = mon.until_first(FINDING[kind])
            _assert_root(frame, FINDING[kind], s.holder_id, s.waiter_ids(), mon.own_id)
            st = frame.stalls[0]
            if kind == "row_lock" or kind == "chain":
                assert st.source == "lock tables"
            else:
                assert st.source == "metadata_lock_info" and st.root is not None and st.root.lock_mode
            if kind == "chain":
                assert frame.blocking[0].depth >= 2 and frame.blocking[0].thread_id == s.holder_id
            # the locks pane's text and JSON carry it; hostile-free and exact
            text = text_frame(frame)
            assert f"release first: KILL {s.holder_id};" in text and "no session waits" not in text
            d = json.loads(json_frame(frame))
            assert d["advice"][0]["id"] == FINDING[kind] and d["stalls"][0]["root"]["thread_id"] == s.holder_id
        # released: the finding clears at once (the waits it judged are over)
        wait_until(lambda: not any(a.id.startswith("stall_") for a in mon.frame().advice), timeout=60)
    finally:
        mon.close()


@pytest.mark.parametrize("kind", ["metadata_lock", "global_read_lock", "table_lock", "user_lock"])
def test_without_a_lock_list_the_holder_is_a_candidate_with_no_kill(mariadb_factory: Any, kind: str) -> None:
    db = mariadb_factory(name="nolist")        # its own: the instrument and plugin stay off here
    mon = Monitor(db)
    try:
        mon.frame()
        with inject(db.root_kwargs(), kind, waiters=8) as s:
            # a LOCK TABLES holder reads as a metadata-lock holder when no lock list names its mode
            finding = "stall_metadata_lock" if kind == "table_lock" else FINDING[kind]
            frame = mon.until_first(finding)
            st = frame.stalls[0]
            assert st.source == "inferred" and st.root is None and "inferred" in frame.advice[0].message
            assert st.candidates[0].thread_id == s.holder_id or s.holder_id in [c.thread_id for c in st.candidates]
            assert f"KILL {s.holder_id}" not in frame.advice[0].message
            assert not set(s.waiter_ids()) & {c.thread_id for c in st.candidates}
            assert mon.own_id not in {c.thread_id for c in st.candidates}
            assert "metadata_lock_info" in (st.hint or "") and "wait/lock/metadata/sql/mdl" in (st.hint or "")
    finally:
        mon.close()


def test_calm_server_stays_quiet(mariadb: ThrowawayMariaDB) -> None:
    """Busy and healthy: transactions and autocommit writes run, short row waits come and go —
    no stall, and the committed throughput reads what runs (tps counts COMMIT statements only)."""
    from tests.support.load import LoadGenerator, LoadSpec

    gen = LoadGenerator(mariadb.root_kwargs(), LoadSpec(mode="oltp", threads=4, transactions=10**9, duration=120.0,
                                                        rows=200, table="calm"))
    gen.prepare()
    mon = Monitor(mariadb)
    try:
        with gen:
            wait_until(lambda: gen.counts().commits > 0)
            frames = [mon.frame() for _ in range(8)]
    finally:
        mon.close()
    live = [f for f in frames if f.elapsed]
    assert not [a.id for f in frames for a in f.advice if a.id.startswith("stall_")]
    assert not [s for f in frames for s in f.stalls if s.is_stall]
    # over the window, not per frame: a COMMIT counted at its start (Com_commit) and at its end
    # (the engine's commit) can fall on two sides of one poll, and a starved box may see a
    # second without a commit
    committed = sum((f.throughput.committed_per_s or 0) * (f.elapsed or 0) for f in live[1:])
    tps = sum((f.throughput.tps or 0) * (f.elapsed or 0) for f in live[1:])
    assert committed >= tps > 0, (committed, tps)
    assert all((f.locks.waiting_sessions or 0) <= 4 for f in frames)


def test_snapshot_report_and_tui_lead_with_the_stall(plugin_db: ThrowawayMariaDB, tmp_path: Any) -> None:
    """An idle transaction holds the table; an ALTER waits, selects queue behind it: `snapshot`
    JSON, the recorded window's `report` (text and JSON) and the TUI's Advice pane and `k` all
    name the idle session."""
    path = tmp_path / "stall.mtrec"
    with inject(plugin_db.root_kwargs(), "metadata_lock", waiters=9) as s:
        src = MySQLSource(plugin_db.options(), interval=1.0)
        src.open()
        pipe = PolledTimeline()
        writer = RecordingWriter(path, interval=1.0)
        raws: list[Any] = []
        try:
            def recorded() -> bool:
                raw = src.read()
                raws.append(raw)
                writer.append(raw)
                f = pipe.push(raw)
                return bool(f.advice) and f.advice[0].id == "stall_metadata_lock"
            wait_until(recorded, timeout=60, step=0.3)
            for _ in range(2):
                writer.append(src.read())
        finally:
            writer.close()
            src.close()
        snap = subprocess.run([sys.executable, "-m", "mysqltop", "snapshot", "--format", "json",
                               *plugin_db.cli_args()], capture_output=True, text=True, timeout=120)
        assert snap.returncode == 0, snap.stderr
        d = json.loads(snap.stdout)
        frame_d = d[0] if isinstance(d, list) else d
        assert frame_d["advice"][0]["id"] == "stall_metadata_lock"
        assert frame_d["stalls"][0]["root"]["thread_id"] == s.holder_id
        assert frame_d["metadata_blocking"][0]["kill"] == f"KILL {s.holder_id}"
        tui_checked = _tui_names(raws, s.holder_id)
    rep = subprocess.run([sys.executable, "-m", "mysqltop", "report", str(path)], capture_output=True, text=True,
                         timeout=120)
    assert rep.returncode == 0, rep.stderr
    head = rep.stdout[:1500]
    assert "STALL" in head and f"thread {s.holder_id}" in head and f"KILL {s.holder_id}" in head
    js = subprocess.run([sys.executable, "-m", "mysqltop", "report", "--format", "json", str(path)],
                        capture_output=True, text=True, timeout=120)
    r = json.loads(js.stdout)
    assert r["stalls"][0]["root_thread_id"] == s.holder_id and r["stalls"][0]["kind"] == "metadata_lock"
    assert r["advice"][0]["id"] == "stall_metadata_lock"
    assert tui_checked


def _tui_names(raws: list[Any], holder: int) -> bool:
    """The recorded stall in the TUI: the Advice pane leads with it and `k` copies its KILL line."""
    import asyncio

    from tests.tui.conftest import Toasts, replay_app, screen_text, wait_for

    async def run() -> tuple[str, Any]:
        app = replay_app(raws, start=len(raws) - 1)
        toasts = Toasts()
        async with app.run_test(size=(160, 48), message_hook=toasts) as p:
            await wait_for(p, lambda: app.frame is not None and bool(app.frame.advice))
            await wait_for(p, lambda: "Stall:" in screen_text(app))
            text = screen_text(app)
            await p.press("k")
            await wait_for(p, lambda: any(f"KILL {holder};" in t for t in toasts.texts))
            return text, app.clipboard

    text, clip = asyncio.run(run())
    assert "Stall:" in text and f"thread {holder} " in text and "nothing stands out" not in text
    assert clip == f"KILL {holder};"
    return True
