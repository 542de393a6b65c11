"""Scheduling priority is opt-in: by default the TUI and the fleet view leave the process and its
terminal session alone; --raise-priority raises the session while they run and restores it at
exit (process/priority.py)."""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

import psutil
import pytest

from mysqltop.process.priority import BOOST, raised_priority, session_nice

from .tui.pty_app import PtyApp


def files(tmp_path: Path, nice: int = 0, enabled: str = "1") -> tuple[Path, Path]:
    group, switch = tmp_path / "autogroup", tmp_path / "enabled"
    group.write_text(f"/autogroup-42 nice {nice}\n")
    switch.write_text(f"{enabled}\n")
    return group, switch


def test_raised_while_the_body_runs_and_given_back_after(tmp_path: Path) -> None:
    group, switch = files(tmp_path, nice=3)
    with raised_priority(True, path=group, switch=switch) as now:
        assert now == BOOST and group.read_text().strip() == str(BOOST)
    assert group.read_text().strip() == "3"


def test_given_back_when_the_body_fails(tmp_path: Path) -> None:
    group, switch = files(tmp_path)
    with pytest.raises(KeyboardInterrupt), raised_priority(True, path=group, switch=switch):
        raise KeyboardInterrupt
    assert group.read_text().strip() == "0"


@pytest.mark.parametrize("nice, enabled, wanted", [
    (0, "0", True),             # autogroups off: the value would mean nothing
    (-15, "1", True),           # already higher: never lowered
    (0, "1", False),            # the default: not asked
])
def test_left_alone(tmp_path: Path, nice: int, enabled: str, wanted: bool) -> None:
    group, switch = files(tmp_path, nice, enabled)
    before = group.read_text()
    with raised_priority(wanted, path=group, switch=switch) as now:
        assert now is None and group.read_text() == before
    assert group.read_text() == before


def test_not_allowed_or_not_there_runs_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    group, switch = files(tmp_path)

    def refuse(self: Path, *args: object, **kwargs: object) -> int:
        raise PermissionError(1, "Operation not permitted")

    with raised_priority(True, path=tmp_path / "missing", switch=switch) as now:
        assert now is None
    monkeypatch.setattr(Path, "write_text", refuse)
    with raised_priority(True, path=group, switch=switch) as now:
        assert now is None
    assert session_nice(group) == 0


def _niceness_in_a_terminal(mariadb, *extra: str, fleet: bool = False) -> tuple[int | None, int, str]:  # type: ignore[no-untyped-def]
    """Run the live TUI (or the fleet view of it and a server that is down) from a shell in a terminal session of its own (as a login does): the
    session's and the TUI process's nice value while it runs, and what the shell reads of its
    session's nice value after the TUI has quit."""
    exe = os.path.join(os.path.dirname(sys.executable), "mysqltop")
    conn = mariadb.cli_args()
    if fleet:
        conn = ["-h", f"127.0.0.1:{mariadb.port},127.0.0.1:1", *conn[4:]]
    argv = " ".join(shlex.quote(a) for a in [exe, *conn, "--interval", "0.5", *extra])
    app = PtyApp(["/bin/sh", "-c", f"{argv}; echo; echo AFTER $(cat /proc/self/autogroup); sleep 30"], (100, 30))
    try:
        assert app.wait_for(re.compile(rb"127.0.0.1:1\b" if fleet else rb"running \d"), timeout=30) is not None
        tui = next(p for p in psutil.Process(app.pid).children(recursive=True) if p.name() != "sh")
        during, process = session_nice(Path(f"/proc/{tui.pid}/autogroup")), tui.nice()
        os.write(app.fd, b"q")
        assert app.wait_for(re.compile(rb"AFTER \S+ nice -?\d+"), timeout=30) is not None
        found = re.search(rb"AFTER \S+ nice -?\d+", app.raw)
        assert found is not None
        return during, process, found.group().decode()
    finally:
        app.quit()


@pytest.mark.live
@pytest.mark.skipif(not Path("/proc/self/autogroup").exists(), reason="needs Linux autogroups")
@pytest.mark.parametrize("fleet", [False, True], ids=["tui", "fleet"])
def test_the_live_tui_leaves_priorities_alone_unless_asked(mariadb, fleet: bool) -> None:
    # PtyApp starts the shell in a session of its own, as a login on a terminal does.
    if Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() != "1":
        pytest.skip("autogroups are off on this kernel")
    during, process, after = _niceness_in_a_terminal(mariadb, fleet=fleet)
    assert (during, process) == (0, os.nice(0)) and after.endswith("nice 0")
    if os.geteuid() != 0:
        pytest.skip("raising a nice value needs root or CAP_SYS_NICE")
    during, process, after = _niceness_in_a_terminal(mariadb, "--raise-priority", fleet=fleet)
    assert during == BOOST and process == os.nice(0)       # the session's value; the process's own is left
    assert after.endswith("nice 0")                        # given back at exit
