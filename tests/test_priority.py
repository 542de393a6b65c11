"""The live TUI's session runs at a raised CPU priority while it runs (commands.priority)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from mysqltop.commands.priority import BOOST, raised_priority, session_nice

from .tui.pty_app import PtyApp


def files(tmp_path: Path, nice: int = 0, enabled: str = "1") -> tuple[Path, Path]:
    group, switch = tmp_path / "autogroup", tmp_path / "enabled"
    group.write_text(f"/autogroup-42 nice {nice}\n")
    switch.write_text(f"{enabled}\n")
    return group, switch


def test_raised_while_the_body_runs_and_given_back_after(tmp_path: Path) -> None:
    group, switch = files(tmp_path, nice=3)
    with raised_priority(path=group, switch=switch) as now:
        assert now == BOOST and group.read_text().strip() == str(BOOST)
    assert group.read_text().strip() == "3"


def test_given_back_when_the_body_fails(tmp_path: Path) -> None:
    group, switch = files(tmp_path)
    with pytest.raises(KeyboardInterrupt), raised_priority(path=group, switch=switch):
        raise KeyboardInterrupt
    assert group.read_text().strip() == "0"


@pytest.mark.parametrize("nice, enabled, wanted", [
    (0, "0", True),             # autogroups off: the value would mean nothing
    (-15, "1", True),           # already higher: never lowered
    (0, "1", False),            # --keep-priority
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

    with raised_priority(path=tmp_path / "missing", switch=switch) as now:
        assert now is None
    monkeypatch.setattr(Path, "write_text", refuse)
    with raised_priority(path=group, switch=switch) as now:
        assert now is None
    assert session_nice(group) == 0


def _live_session_nice(mariadb, *extra: str) -> int | None:  # type: ignore[no-untyped-def]
    exe = os.path.join(os.path.dirname(sys.executable), "mysqltop")
    app = PtyApp([exe, *mariadb.cli_args(), "--interval", "0.5", *extra], (100, 30))
    try:
        assert app.wait_for(re.compile(rb"running \d"), timeout=30, raw=False) is not None
        return session_nice(Path(f"/proc/{app.pid}/autogroup"))
    finally:
        app.quit()


@pytest.mark.live
@pytest.mark.skipif(not Path("/proc/self/autogroup").exists() or os.geteuid() != 0,
                    reason="needs Linux autogroups and the right to lower a nice value")
def test_the_live_tui_runs_its_session_raised_unless_asked_not_to(mariadb) -> None:
    # PtyApp starts the TUI in a session of its own, as a login on a terminal does.
    if Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() != "1":
        pytest.skip("autogroups are off on this kernel")
    assert _live_session_nice(mariadb) == BOOST
    assert _live_session_nice(mariadb, "--keep-priority") == 0
