"""A thread's scheduler figures from /proc/PID/task/TID/schedstat: ns on a CPU and ns waiting in a
run queue, the kernel's own count (the benches read it for the TUI's threads and for the server
threads that serve a monitor)."""

from __future__ import annotations

from pathlib import Path


def thread_ns(pid: int, tid: int | str) -> tuple[int, int] | None:
    """(ns on a CPU, ns waiting for one) so far, or None when the thread is gone."""
    try:
        run, wait, _ = Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()
        return int(run), int(wait)
    except (OSError, ValueError):
        return None
