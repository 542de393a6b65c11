"""Shared fixtures: the throwaway MariaDB servers (tests/support/mariadb.py).

- `mariadb` (session): one server for the whole run, started lazily by the first test that asks.
  Do not stop, pause, restart or reconfigure it: other tests share it.
- `mariadb_factory` (function): `make(extra_args=(), name="x", env=None) -> ThrowawayMariaDB`,
  started and stopped at the end of the test — for extra server options (tiny buffer pool), extra
  environment for mariadbd alone (`env`: e.g. tests/support/slow_sync.py's LD_PRELOAD) or
  destructive operations (SIGSTOP, restart). Each start costs a few seconds: use it only when needed.

If mariadbd is not installed the fixtures fail with a clear message (`./dev test` installs it).
"""

from __future__ import annotations

from typing import Callable, Iterator, Mapping, Sequence

import pytest

from tests.support.mariadb import ThrowawayMariaDB


@pytest.fixture(scope="session")
def mariadb() -> Iterator[ThrowawayMariaDB]:
    db = ThrowawayMariaDB(name="session")
    db.start()
    try:
        yield db
    finally:
        db.stop()


@pytest.fixture
def mariadb_factory() -> Iterator[Callable[..., ThrowawayMariaDB]]:
    started: list[ThrowawayMariaDB] = []

    def make(extra_args: Sequence[str] = (), name: str = "own",
             env: Mapping[str, str] | None = None) -> ThrowawayMariaDB:
        db = ThrowawayMariaDB(extra_args=extra_args, name=name, env=env)
        started.append(db)
        return db.start()

    try:
        yield make
    finally:
        for db in started:
            db.stop()


@pytest.fixture(autouse=True)
def _unfreeze_the_heap() -> Iterator[None]:
    """A TUI freezes what exists once it is up (views/tui/heap.py): right for one app per process,
    but the suite runs hundreds of apps in one, and each test's app would stay frozen for good."""
    yield
    import gc

    gc.unfreeze()
