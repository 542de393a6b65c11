"""The scan of every process the host counters make while the CPUs are busy: names and CPU
seconds as /proc has them, a name holding spaces and parentheses read whole."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from mysqltop.sources.host import _all_procs

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")


def test_the_scan_names_each_process_and_its_cpu_seconds() -> None:
    code = "import ctypes,time; ctypes.CDLL(None).prctl(15, b'we (ird) one', 0, 0, 0); time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 30
        while True:
            procs = _all_procs()
            if procs.get(child.pid, ("",))[0] == "we (ird) one":
                break
            assert time.monotonic() < deadline, procs.get(child.pid)
            time.sleep(0.05)
        t0 = sum(os.times()[:2])
        while sum(os.times()[:2]) - t0 < 0.3:
            pass                                     # burn CPU the next scan must see
        name, cpu = _all_procs()[os.getpid()]
        assert name and cpu >= 0.3 - 0.05
    finally:
        child.kill()
        child.wait()
