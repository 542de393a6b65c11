"""The live TUI when a different server takes over its address (two throwaway servers swapped
behind one port): it says so once, with the time, and shows no rate across the swap."""

from __future__ import annotations

from typing import Callable

import pytest

from mysqltop.engine import Engine
from mysqltop.sources.mysql import MySQLSource
from mysqltop.timeline.polled import live_timeline
from mysqltop.views.tui.app import MysqltopApp
from mysqltop.views.tui.feeds import LiveFeed
from mysqltop.views.tui.position import ViewMode
from mysqltop.core.when import parse_when
from tests.support.mariadb import ThrowawayMariaDB
from tests.support.swap_proxy import SwapProxy

from .conftest import Toasts, pilot, wait_for

pytestmark = pytest.mark.live


@pilot
async def test_the_tui_says_a_different_server_answers(mariadb_factory: Callable[..., ThrowawayMariaDB]) -> None:
    a, b = mariadb_factory(name="tui-a"), mariadb_factory(name="tui-b")
    with SwapProxy(a.port) as proxy:
        opts = a.options()
        opts = type(opts)(host="127.0.0.1", port=proxy.port, user=opts.user, password=opts.password)
        source = MySQLSource(opts, interval=0.2, answer_timeout=5.0)
        source.open()
        engine = Engine(source, live_timeline(0.2))
        app = MysqltopApp(LiveFeed(engine, 0.2), ViewMode.LIVE, address=opts.address, parse_when=parse_when)
        toasts = Toasts()
        async with app.run_test(size=(120, 40), message_hook=toasts) as pilot_:
            await wait_for(pilot_, lambda: app.frame is not None and app.frame.throughput.qps is not None)
            first = app.frame
            assert first is not None
            proxy.swap(b.port)
            await wait_for(pilot_, lambda: any("a different server answers at this address since" in t
                                               for t in toasts.texts), timeout=60)
            swapped = app.frame
            assert swapped is not None and swapped.server.uid != first.server.uid
            assert swapped.server.replaced_at is not None
            said = [t for t in toasts.texts if "a different server answers" in t]
            assert len(said) == 1, toasts.texts
            assert "restarted" not in " ".join(toasts.texts)
