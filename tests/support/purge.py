"""A purge-lag scene on a throwaway server: an update load to make history, a Watcher that polls
it through mysqltop's own live source, and the sessions a test opens, all ended however it ends."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

import pymysql

from tests.support.load import LoadGenerator, LoadSpec
from tests.support.scenarios import Watcher


@dataclass
class PurgeScene:
    gen: LoadGenerator
    watcher: Watcher
    sessions: list[Any] = field(default_factory=list)     # killed when the scene ends


@contextmanager
def purge_scene(db: Any) -> Iterator[PurgeScene]:
    """A prepared (not started) update load, a Watcher, and no sessions yet."""
    gen = LoadGenerator(db.root_kwargs(), LoadSpec(mode="update", threads=4, rows=2_000, transactions=10**7,
                                                   duration=150))
    gen.prepare()
    scene = PurgeScene(gen, Watcher(db))
    try:
        yield scene
    finally:
        gen.stop()
        scene.watcher.close()
        for s in scene.sessions:    # KILL: a close() would wait for the statement another thread runs
            try:
                db.query(f"KILL {s.thread_id()}")
            except pymysql.MySQLError:
                pass                # already gone
