"""--raise-priority: the interactive views' claim on the CPU of a saturated box, only when asked.

Linux schedules each session (an "autogroup": one per terminal login) as a single entity when no
cpu cgroup separates them. On a saturated box the TUI's session then gets one share beside the
server's and the load's, and its UI thread waits on a run queue about twice as long as it runs: a
5 ms repaint takes 15 ms, and a key that arrives behind a frame took 150-250 ms at p99 (bench/keys,
2 cores, 64 threads). Thread nice values act only inside a session, so the UI thread's own cannot
help; the session's can. With --raise-priority, while the TUI or the fleet view runs, its session
— the whole terminal session, the shell included — runs at BOOST when the process may lower it
(root or CAP_SYS_NICE); the previous value comes back at exit (not after a SIGKILL: then the
session keeps BOOST until it ends). Without the flag nothing changes: a monitor does not change
the scheduling of the user's processes unasked. The cost to the server is what the TUI uses, a
few % of one core: it asks for the CPU sooner, not for more of it.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

BOOST = -10
AUTOGROUP = Path("/proc/self/autogroup")
ENABLED = Path("/proc/sys/kernel/sched_autogroup_enabled")
_NICE = re.compile(r"\bnice\s+(-?\d+)")


def session_nice(path: Path = AUTOGROUP) -> int | None:
    """The session's scheduler nice value, or None where there is none to read."""
    try:
        found = _NICE.search(path.read_text())
    except OSError:
        return None
    return int(found.group(1)) if found else None


def _set(path: Path, nice: int) -> bool:
    try:
        path.write_text(f"{nice}\n")
    except OSError:                  # EPERM without CAP_SYS_NICE: the TUI runs as before
        return False
    return True


@contextmanager
def raised_priority(enabled: bool, *, path: Path = AUTOGROUP,
                    switch: Path = ENABLED) -> Iterator[int | None]:
    """Run the body with the session at BOOST; yields the nice value in force (None: unchanged)."""
    before = session_nice(path) if enabled else None
    try:
        on = switch.read_text().strip() == "1"
    except OSError:
        on = False
    if before is None or not on or before <= BOOST or not _set(path, BOOST):
        yield None
        return
    try:
        yield BOOST
    finally:
        _set(path, before)
