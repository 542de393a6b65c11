"""The suite runs anywhere: from a background job with SIGINT/SIGHUP ignored its children still
get the default dispositions, and no test leaves a process behind when it fails or when the run
itself is killed (tests/support/procs.py, tests/conftest.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.procs import pid_gone
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[1]

INNER = textwrap.dedent("""
    import os, signal, subprocess, sys, time
    from pathlib import Path
    from tests.support.procs import child_setup

    OUT = Path(os.environ["HYGIENE_OUT"])

    def test_leaves_a_child_and_fails():
        # as a test that dies before its finally: the child is never stopped by the test
        plain = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        stubborn = subprocess.Popen([sys.executable, "-c",
                                     "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                                     "print('up', flush=True); time.sleep(600)"], stdout=subprocess.PIPE)
        stubborn.stdout.readline()
        OUT.write_text(f"{plain.pid} {stubborn.pid}")
        assert False, "deliberately failing"

    def test_children_get_default_dispositions():
        assert signal.getsignal(signal.SIGHUP) not in (signal.SIG_IGN, signal.SIG_DFL)   # the run ignores
        probe = ("import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler, "
                 "signal.getsignal(signal.SIGHUP) is signal.SIG_DFL)")
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.split()
        assert out == ["True", "True"], out

    def test_killed_run():
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], preexec_fn=child_setup)
        OUT.write_text(str(child.pid))
        time.sleep(600)
""")


def _inner(tmp_path: Path, test: str, *, ignore: bool = False) -> subprocess.Popen[str]:
    (tmp_path / "test_inner.py").write_text(INNER)

    def ignoring() -> None:                  # as `nohup … &` starts it: SIGINT and SIGHUP ignored
        os.setsid()
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest",
         f"{tmp_path / 'test_inner.py'}::{test}"],
        cwd=ROOT, env={**os.environ, "HYGIENE_OUT": str(tmp_path / "out")}, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=ignoring if ignore else None)


def test_a_failing_test_leaves_no_process_behind(tmp_path: Path) -> None:
    run = _inner(tmp_path, "test_leaves_a_child_and_fails")
    try:
        out, _ = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == 1 and "deliberately failing" in out, out
    pids = [int(p) for p in (tmp_path / "out").read_text().split()]
    assert all(pid_gone(pid) for pid in pids), pids        # the one that ignores SIGTERM too
    assert "killed processes the test left behind" in out


def test_children_of_a_run_that_ignores_sigint_and_sighup_get_the_defaults(tmp_path: Path) -> None:
    run = _inner(tmp_path, "test_children_get_default_dispositions", ignore=True)
    try:
        out, _ = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == 0, out


def test_a_killed_run_takes_its_children_with_it(tmp_path: Path) -> None:
    run = _inner(tmp_path, "test_killed_run")
    try:
        wait_until(lambda: (tmp_path / "out").exists() and (tmp_path / "out").read_text() != "", timeout=120)
        child = int((tmp_path / "out").read_text())
        run.kill()                                    # SIGKILL: no fixture, no finally runs
        run.wait(30)
        assert pid_gone(child)
    finally:
        run.kill()
        run.wait(30)
