"""Process hygiene for the tests: children start with default signal dispositions and die with
the test run, and whatever a test started is gone when it ends, passed or failed.

A run started from a background job (`nohup ./dev test &`) has SIGINT and SIGHUP ignored, and an
ignored signal stays ignored across exec: every mysqltop a test starts would then (rightly) keep
ignoring them, and the tests that send them would fail. A signal the run catches instead is reset
to the default in every program it execs, so `keep_ignoring_in_children_default` swaps each
inherited ignore for a handler that does nothing: the run goes on ignoring, its children do not.
"""

from __future__ import annotations

import ctypes
import signal
import time
from collections.abc import Iterable

import psutil

INHERITED = (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGTERM)
# Servers the fixtures start and stop themselves (one may serve a whole module or the session).
FIXTURE_SERVERS = frozenset({"mariadbd", "mysqld", "prometheus"})
PR_SET_PDEATHSIG = 1


def _ignore(signum: int, frame: object) -> None:
    """Caught and dropped: as ignored for this process, the default again after exec."""


def keep_ignoring_in_children_default() -> list[signal.Signals]:
    """Replace each inherited SIG_IGN of INHERITED by a handler that ignores; the signals changed."""
    changed = []
    for sig in INHERITED:
        if signal.getsignal(sig) is signal.SIG_IGN:
            signal.signal(sig, _ignore)
            changed.append(sig)
    return changed


def child_setup() -> None:
    """preexec_fn for a test's child: the default signal dispositions, and SIGKILL when the test
    run dies (PR_SET_PDEATHSIG; Linux only: elsewhere the sweep below still applies)."""
    for sig in INHERITED:
        signal.signal(sig, signal.SIG_DFL)
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def descendants() -> dict[int, psutil.Process]:
    """Every live process below this one, by pid."""
    try:
        return {p.pid: p for p in psutil.Process().children(recursive=True)}
    except psutil.Error:
        return {}


def _name(p: psutil.Process) -> str:
    try:
        return p.name()
    except psutil.Error:
        return ""


def strays(before: Iterable[int]) -> list[psutil.Process]:
    """Processes below this one that were not there in `before`, fixture servers left out."""
    known = set(before)
    return [p for pid, p in descendants().items()
            if pid not in known and _name(p) not in FIXTURE_SERVERS and not _zombie(p)]


def _zombie(p: psutil.Process) -> bool:
    try:
        return p.status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


def kill(procs: list[psutil.Process], grace: float = 3.0) -> list[str]:
    """SIGTERM, then SIGKILL for what is still there after `grace` s; what was killed (for a note)."""
    killed = []
    for p in procs:
        try:
            killed.append(f"{p.pid} {' '.join(p.cmdline())[:120]}")
            p.terminate()
        except psutil.Error:
            continue
    _gone, alive = psutil.wait_procs(procs, timeout=grace)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=grace)
    return killed


def pid_gone(pid: int, timeout: float = 30.0) -> bool:
    """Whether `pid` is gone (or a zombie) within `timeout` s."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False
