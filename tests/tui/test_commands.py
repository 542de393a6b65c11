"""The TUI commands over a real recording file: --start lands where asked, errors are one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.commands.demo import find_incident
from mysqltop.views.tui.replay_app import replay_app
from mysqltop.core import units
from mysqltop.errors import UserError
from mysqltop.recording.writer import RecordingWriter
from mysqltop.views.tui.position import ViewMode

from .conftest import pilot, screen_text, wait_for
from .samples import T0, samples


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    path = tmp_path / "incident.mtrec"
    with RecordingWriter(path, interval=1.0) as w:
        for s in samples(150):
            w.append(s)
        w.bookmark(T0 + 90, "tps", 12.0, "TPS dropped")
    return path


@pilot
async def test_replay_command_starts_at_the_requested_time(recording: Path, expected_frames) -> None:
    want = expected_frames(samples(150))[100]
    app = replay_app(str(recording), start="+100s", playing=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.position.index == 100 and len(app.trend) > 50)
        text = screen_text(app)
        assert "101/150" in text and "incident.mtrec" in text
        assert f"qps {units.num(want.throughput.qps)}" in text
        await pilot.press("b")
        await wait_for(pilot, lambda: app.position.index == 90)
        await pilot.press("g", *"-1m", "enter")
        await wait_for(pilot, lambda: app.position.index == 89)


def test_replay_errors_are_one_line(recording: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UserError, match=r"--start: bad time 'tomorrow'"):   # as report and snapshot say it
        replay_app(str(recording), start="tomorrow")
    junk = tmp_path / "junk.mtrec"
    junk.write_text("not a recording")
    assert main(["replay", str(junk)]) in (1, 2)
    assert main(["replay", str(tmp_path / "missing.mtrec")]) == 2
    assert main(["replay", str(recording), "--speed", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("mysqltop: ") for line in err)
    assert "no such recording" in err[1]


def test_live_without_a_server_says_so_and_suggests_demo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-h", "127.0.0.1", "-P", "1", "-u", "nobody", "--connect-timeout", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "mysqltop demo" in err[0] and "127.0.0.1:1" in err[0]


def test_demo_finds_the_bundled_incident() -> None:
    path = find_incident()
    if path is None:
        pytest.skip("mysqltop/data/incident.mtrec is not in this checkout yet")
    app = replay_app(str(path), playing=False)
    assert app.mode is ViewMode.REPLAY


def test_demo_starts_shortly_before_the_incident() -> None:
    from mysqltop.commands.demo import lead_in
    from mysqltop.recording.reader import RecordingReader

    path = find_incident()
    if path is None:
        pytest.skip("mysqltop/data/incident.mtrec is not in this checkout yet")
    start = lead_in(path)
    reader = RecordingReader(path)
    mark = reader.bookmarks[0].time
    assert start is not None and mark - 31 <= float(start[1:]) <= mark


def test_access_and_privilege_errors_carry_no_demo_hint(mariadb, capsys: pytest.CaptureFixture[str]) -> None:
    """The fix is in the message (GRANT …, the password); 'try the demo' is only for a missing server,
    and was glued on after the GRANT's own ';' (';;')."""
    from tests.support.mariadb import NOPROC_PASSWORD, NOPROC_USER

    base = ["-h", "127.0.0.1", "-P", str(mariadb.port)]
    assert main([*base, "-u", NOPROC_USER, f"--password={NOPROC_PASSWORD}"]) == 2
    assert main([*base, "-u", NOPROC_USER, "--password=wrong"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "GRANT PROCESS" in err[0] and "Access denied" in err[1]
    assert not any("demo" in line or ";;" in line for line in err), err


def test_live_record_into_a_directory_or_foreign_file_fails_before_connecting(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not a recording")
    for target in (tmp_path, foreign):          # port 1: reaching the server would say 'cannot connect'
        assert main(["-h", "127.0.0.1", "-P", "1", "--record", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "is a directory" in err[0] and "not a mysqltop recording" in err[1], err
    assert all(line.startswith("mysqltop: --record ") for line in err)


def test_tui_without_a_terminal_says_so(recording: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Under pytest stdout is not a terminal, as in `mysqltop replay f > out.txt` (which used to
    fill out.txt with escape codes and wait for a q that could not come)."""
    assert main(["replay", str(recording)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "`mysqltop replay` is a full-screen view and needs a terminal" in err
    assert "mysqltop snapshot" in err


def test_replay_of_a_directory_says_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path)]) == 2
    assert "is a directory, not a recording" in capsys.readouterr().err


@pilot
async def test_the_default_demo_opens_on_the_lock_tree_and_the_stall_finding() -> None:
    """The flagship view on the first screen: the stall finding names the idle holder and the
    locks pane shows the sessions it blocks, without a key pressed."""
    from mysqltop.commands.demo import DEFAULT, incidents, opening

    path = incidents()[DEFAULT][0]
    app = replay_app(str(path), start=opening(DEFAULT, path, at_finding=True), playing=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for(pilot, lambda: "Stall:" in screen_text(app))
        text = screen_text(app)
    assert "waiting on a row lock" in text and "KILL 9" in text, text
    assert "blocked 9" in text, text
