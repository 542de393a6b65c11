"""The fleet overview over three throwaway servers, one stopped mid-test: a Textual pilot.

Rows go live; the loaded server shows its tps; the stopped one turns NOT ANSWERING and moves to
the top while the others keep their one poll per interval; Enter drills into a server's panes
and Esc returns; each server is recorded into its own file.
"""

from __future__ import annotations

import time

import pytest

from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter
from mysqltop.sources.fleet_sources import open_fleet, recording_file_name
from mysqltop.fleet import FleetPoller
from mysqltop.views.fleet_rows import LIVE, NOT_ANSWERING
from mysqltop.views.tui.fleet_app import FleetApp, ServerScreen
from tests.support.load import LoadGenerator, LoadSpec
from tests.tui.conftest import pilot, screen_text, wait_for

pytestmark = pytest.mark.live
INTERVAL = 0.5


def _rows(app: FleetApp) -> list[str]:
    """The table's rows as shown (server name first), top to bottom."""
    return [line for line in screen_text(app).splitlines() if "127.0.0.1:" in line]


def _state_of(app: FleetApp, port: int) -> str:
    row = next((r for r in _rows(app) if f"127.0.0.1:{port} " in r), "")
    return row


@pilot
async def test_fleet_overview_drill_down_and_a_server_stopped_mid_test(mariadb, mariadb_factory, tmp_path) -> None:  # type: ignore[no-untyped-def]
    busy = mariadb_factory(name="fbusy")
    doomed = mariadb_factory(name="fdoomed")
    dbs = [mariadb, busy, doomed]
    members = open_fleet([db.options() for db in dbs], INTERVAL)
    poller = FleetPoller(members, INTERVAL, record_dir=str(tmp_path),
                         open_recorder=lambda path: RecordingWriter(path, interval=INTERVAL))
    gen = LoadGenerator(busy.root_kwargs(), LoadSpec(mode="oltp", threads=4, rate=40, duration=120))
    gen.prepare()
    app = FleetApp(poller, INTERVAL)
    with gen:
        async with app.run_test(size=(180, 30)) as pilot:
            await wait_for(pilot, lambda: len(_rows(app)) == 3 and all(
                f" {LIVE} " in r for r in _rows(app)), timeout=60)
            # the loaded server's tps shows (4 threads × 40/s); the idle ones show 0
            def busy_tps() -> float:
                st = app.state_of(f"127.0.0.1:{busy.port}")
                return (st.good.throughput.tps or 0.0) if st and st.good else 0.0
            await wait_for(pilot, lambda: busy_tps() > 40, timeout=60)

            # Enter drills into the selected server; its status bar names it; Esc returns.
            target = f"127.0.0.1:{busy.port}"
            for _ in range(10):             # rows may re-sort meanwhile: the cursor follows its server
                if app.selected == target:
                    break
                shown = [r.split()[0] for r in _rows(app)]
                await pilot.press("down" if shown.index(target) > shown.index(app.selected or target) else "up")
            assert app.selected == target
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, ServerScreen), timeout=10)
            assert app.screen.server == target
            await wait_for(pilot, lambda: target in screen_text(app).splitlines()[0]
                           and "TPS" in screen_text(app).upper(), timeout=20)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, ServerScreen), timeout=10)

            # Stop one server: its row says NOT ANSWERING and goes to the top; the others keep polling.
            doomed_name = f"127.0.0.1:{doomed.port}"
            doomed.stop(remove=False)
            stopped_at = time.monotonic()
            await wait_for(pilot, lambda: NOT_ANSWERING in _state_of(app, doomed.port), timeout=30)
            await wait_for(pilot, lambda: _rows(app)[0].split()[0] == doomed_name, timeout=10)
            before = {s.name: s.polls for s in poller.states()}
            t0 = time.monotonic()
            await wait_for(pilot, lambda: time.monotonic() - t0 > 6 * INTERVAL, timeout=30)
            after = {s.name: s.polls for s in poller.states()}
            elapsed = time.monotonic() - t0
            for db in (mariadb, busy):
                name = f"127.0.0.1:{db.port}"
                # one poll per interval, give or take a slow box: never held up by the dead one
                assert after[name] - before[name] >= elapsed / INTERVAL * 0.5, (name, before, after)
                assert f" {LIVE} " in _state_of(app, db.port)
            assert time.monotonic() - stopped_at < 60
            await pilot.press("q")
    for db in dbs:
        path = tmp_path / recording_file_name(f"127.0.0.1:{db.port}")
        reader = RecordingReader(path)
        try:
            assert len(reader) >= 5, path
        finally:
            reader.close()
