"""Paths that are not regular files (a FIFO, a device) given where a file is expected: one line,
the documented exit code, and never a wait on a pipe nobody writes to."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mysqltop.cli import main

INCIDENT = Path(__file__).resolve().parents[1] / "mysqltop" / "data" / "incident.mtrec"
STATUS = (Path(__file__).resolve().parent / "fixtures" / "corpus" / "innodb-status"
          / "mysql-8.1.0__innotop__innodb-status-011.txt")


@pytest.mark.parametrize("argv", [["report"], ["snapshot", "--replay"]])
@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "/dev/null"])
def test_a_recording_that_is_a_pipe_or_device_is_named_as_such(
        argv: list[str], special: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = special
    if special == "fifo":
        path = str(tmp_path / "rec.mtrec")
        os.mkfifo(path)
    code = main([*argv, path])
    err = capsys.readouterr().err
    kind = "a FIFO (named pipe)" if special == "fifo" else "a character device"
    assert code == 2
    assert err == (f"mysqltop: {path} is {kind}, not a recording; give the path of the .mtrec file "
                   "itself (copy a recording from a pipe or device to a file first)\n")


def test_parse_of_a_fifo_without_writer_fails_at_once(tmp_path: Path) -> None:
    # In a child process: before the fix this open() blocked forever; the timeout only bounds a
    # regression, the assertion is on the answer.
    fifo = tmp_path / "status.txt"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "mysqltop", "parse", str(fifo)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == (f"mysqltop: {fifo}: a named pipe with no writer, so nothing to read; start "
                           "what writes to it first, or save the output to a file and parse that\n")


def test_parse_of_a_fifo_being_written_reads_it_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "status.txt"
    os.mkfifo(fifo)
    opened = threading.Event()

    def write() -> None:
        with open(fifo, "wb") as f:      # blocks until the reader opened its end
            opened.set()
            f.write(STATUS.read_bytes())

    # The writer must hold the pipe open before parse opens it (as `parse <(cmd)` does): open
    # our own read end first so the writer's open returns, then parse opens another one.
    keep = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        t = threading.Thread(target=write, daemon=True)
        t.start()
        assert opened.wait(60)
        code = main(["parse", "--format", "json", str(fifo)])
        t.join(60)
    finally:
        os.close(keep)
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert '"kind": "innodb_status"' in out


@pytest.mark.parametrize("argv", [["report"], ["snapshot", "--replay"]])
@pytest.mark.parametrize("times", ["t + 3000000000", "0", "-1e18", "1e300"])
def test_a_recording_whose_every_time_is_absurd_is_one_line(
        argv: list[str], times: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every sample out of 2000–2100 (a recording "from the future") failed an assertion in the
    replay source: a traceback."""
    import shutil
    import sqlite3

    path = tmp_path / "future.mtrec"
    shutil.copyfile(INCIDENT, path)
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE samples SET t = {times}")
    code = main([*argv, str(path)])
    assert code == 1
    assert capsys.readouterr().err == (
        f"mysqltop: {path}: none of its 243 samples has a time between 2000 and 2100 (a wrong clock where "
        "it was recorded, or a damaged file): nothing to read\n")
