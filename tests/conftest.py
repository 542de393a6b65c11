"""Shared fixtures: the throwaway MariaDB servers (tests/support/mariadb.py).

- `mariadb` (session): one server for the whole run, started lazily by the first test that asks.
  Do not stop, pause, restart or reconfigure it: other tests share it.
- `mariadb_factory` (function): `make(extra_args=(), name="x", env=None) -> ThrowawayMariaDB`,
  started and stopped at the end of the test — for extra server options (tiny buffer pool), extra
  environment for mariadbd alone (`env`: e.g. tests/support/slow_sync.py's LD_PRELOAD) or
  destructive operations (SIGSTOP, restart). Each start costs a few seconds: use it only when needed.

If mariadbd is not installed the fixtures fail with a clear message (`./dev test` installs it).

Process hygiene (tests/support/procs.py): a run started with SIGINT/SIGHUP ignored (`nohup … &`)
keeps ignoring them but its children start with the default; every process a test started that
is still there when it ends (passed or failed) is killed, servers of the fixtures excepted, and
whatever is left below the run when it ends.
"""

from __future__ import annotations

from typing import Callable, Iterator, Mapping, Sequence

import sys

import pytest

from tests.support import procs
from tests.support.mariadb import ThrowawayMariaDB


def pytest_configure(config: pytest.Config) -> None:
    procs.keep_ignoring_in_children_default()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if session.config.pluginmanager.has_plugin("dsession"):
        return          # pytest-xdist's controller: its children are the workers, each sweeps its own
    left = procs.kill(list(procs.descendants().values()))
    if left:
        sys.stderr.write("\ntests: killed processes left behind at the end of the run:\n  "
                         + "\n  ".join(left) + "\n")


@pytest.fixture(autouse=True)
def _no_process_left_behind() -> Iterator[None]:
    """Whatever the test started is gone when it ends, even when it failed before its finally."""
    before = set(procs.descendants())
    yield
    left = procs.strays(before)
    if left:
        killed = procs.kill(left)
        sys.stderr.write("\ntests: killed processes the test left behind:\n  " + "\n  ".join(killed) + "\n")


@pytest.fixture(scope="session")
def mariadb() -> Iterator[ThrowawayMariaDB]:
    with ThrowawayMariaDB(name="session") as db:
        yield db


@pytest.fixture
def mariadb_factory() -> Iterator[Callable[..., ThrowawayMariaDB]]:
    started: list[ThrowawayMariaDB] = []

    def make(extra_args: Sequence[str] = (), name: str = "own",
             env: Mapping[str, str] | None = None, ps_base: bool = True) -> ThrowawayMariaDB:
        db = ThrowawayMariaDB(extra_args=extra_args, name=name, env=env, ps_base=ps_base)
        started.append(db)
        return db.start()

    try:
        yield make
    finally:
        for db in started:
            db.discard()


@pytest.fixture(autouse=True)
def _unfreeze_the_heap() -> Iterator[None]:
    """A TUI freezes what exists once it is up (views/tui/heap.py): right for one app per process,
    but the suite runs hundreds of apps in one, and each test's app would stay frozen for good."""
    yield
    import gc

    gc.unfreeze()
