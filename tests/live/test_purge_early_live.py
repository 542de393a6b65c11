"""The purge early hint on a throwaway MariaDB: a consistent snapshot held while a slow update load
grows the history list steadily; long before purge_lag's 10,000 the hint names the snapshot's
session, and the history it reports agrees with the server's own."""

from __future__ import annotations

import time
from typing import Any

import pymysql
import pytest

from mysqltop.core.advice import advise
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.rules.load import HLL_MIN, HINT_MIN_SPAN_S
from mysqltop.sources.mysql import MySQLSource
from tests.support.load import LoadGenerator, LoadSpec, ReadViewHolder
from tests.support.waiting import wait_until

pytestmark = pytest.mark.live


def _history(kw: dict[str, Any]) -> int:
    conn = pymysql.connect(**{**kw, "autocommit": True})
    try:
        with conn.cursor() as c:
            c.execute("SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'")
            return int(c.fetchone()[1])
    finally:
        conn.close()


def test_an_old_read_view_with_history_rising_gets_the_early_hint(mariadb_factory: Any) -> None:
    db = mariadb_factory(name="purge-early")
    kw = db.root_kwargs()
    gen = LoadGenerator(kw, LoadSpec(mode="update", threads=2, rate=20, rows=2_000, duration=240))
    gen.prepare()
    holder = ReadViewHolder(kw)
    src = MySQLSource(db.options(), interval=1.0)
    src.open()
    pipe = PolledTimeline()
    frames: list[Any] = []
    try:
        with gen:
            def hinted() -> Any:
                started = time.monotonic()
                frames.append(pipe.push(src.read(), advise=False))
                time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))
                got = [a for a in advise(frames, {}, min_span_s=None) if a.id == "purge_early"]
                return got[0] if got else None
            hint = wait_until(hinted, timeout=HINT_MIN_SPAN_S + 120, step=0.0)
            server_history = _history(kw)
    finally:
        src.close()
        holder.close()
    last = frames[-1].flush.history_list_length
    assert last is not None and 1_000 <= last < HLL_MIN
    assert abs(server_history - last) <= max(200, 0.1 * last)       # the server's own, read just after
    assert hint.severity == "info" and hint.message.startswith("Early hint")
    assert f"thread {holder.thread_id}," in hint.message and f"KILL {holder.thread_id}" in hint.message
    assert "purge_lag" not in [a.id for a in advise(frames, {}, min_span_s=None)]
