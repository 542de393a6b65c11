"""The load view live: a mixed workload on the throwaway MariaDB (writers queued on one row, SLEEP
sessions, CPU-bound statements; three users from their own loopback addresses), the live TUI at
80×24 — `w` names each user, host and wait object as the polls come, and a filter follows them."""

from __future__ import annotations

from typing import Callable

import pytest

from mysqltop.core.when import parse_when
from mysqltop.engine import Engine
from mysqltop.sources.mysql import MySQLSource
from mysqltop.timeline.polled import live_timeline
from mysqltop.views.tui.app import MysqltopApp
from mysqltop.views.tui.feeds import LiveFeed
from mysqltop.views.tui.position import ViewMode
from tests.live.test_load_slices_live import WORKLOAD, _setup, listed, workload
from tests.support.mariadb import ThrowawayMariaDB
from tests.support.waiting import wait_until

from .conftest import pilot, screen_text, wait_for

pytestmark = pytest.mark.live


@pilot
async def test_w_live_names_whose_load_it_is(mariadb_factory: Callable[..., ThrowawayMariaDB]) -> None:
    db = mariadb_factory(name="tui-load")
    root = db.root_conn()
    _setup(root)
    source = MySQLSource(db.options(), interval=0.5, answer_timeout=5.0)
    source.open()
    try:
        with workload(db):
            wait_until(lambda: sum(1 for u, _ in listed(root) if u in WORKLOAD) >= 9, timeout=60)
            app = MysqltopApp(LiveFeed(Engine(source, live_timeline(0.5)), 0.5), ViewMode.LIVE,
                              address=db.options().address, parse_when=parse_when)
            async with app.run_test(size=(80, 24)) as p:
                await wait_for(p, lambda: app.frame is not None and app.frame.load.sessions_known
                               and len(app.trend) >= 3, timeout=60)
                await p.press("w")
                await wait_for(p, lambda: "UPDATE inventory SET qty = qty - ? WHERE sku = ?" in screen_text(app))
                await p.press("s")                                      # user
                await wait_for(p, lambda: all(u in screen_text(app) for u in WORKLOAD))
                await p.press("s")                                      # host
                await wait_for(p, lambda: all(a in screen_text(app) for a, *_ in WORKLOAD.values()))
                for _ in range(2):
                    await p.press("s")                                  # schema, object
                await wait_for(p, lambda: "`shop`.`inventory` (PRIMARY)" in screen_text(app))
                await p.press("enter")
                await wait_for(p, lambda: "only object `shop`.`inventory` (PRIMARY)" in screen_text(app))
                seen = len(app.trend)
                await wait_for(p, lambda: len(app.trend) > seen, timeout=30)     # new polls keep coming
                assert "only object `shop`.`inventory` (PRIMARY)" in screen_text(app)
    finally:
        source.close()
        root.close()
