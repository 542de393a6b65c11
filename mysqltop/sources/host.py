"""Host counters for one sample: run queue, CPU times, context switches, disks, the mysqld process.

/proc/stat is read directly (one file gives CPU times, ctxt, procs_running and procs_blocked,
which psutil does not expose); psutil covers disks, load averages, the process, and CPU times
on systems without /proc. Everything cumulative stays cumulative: rates are derive's job.
"""

from __future__ import annotations

import os
from typing import Any

from mysqltop.core.sample import HostSample

_CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
_PROC_CACHE: dict[int, Any] = {}      # pid → psutil.Process, reused across samples


def _proc_stat(path: str = "/proc/stat") -> dict[str, Any] | None:
    try:
        with open(path, "rb") as f:
            text = f.read().decode("ascii", "replace")
    except OSError:
        return None
    out: dict[str, Any] = {}
    tick = float(os.sysconf("SC_CLK_TCK")) if hasattr(os, "sysconf") else 100.0
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        key = parts[0]
        if key == "cpu":   # "cpu  6338 0 1756 102324 570 0 129 19 0 0" (USER_HZ ticks)
            out["cpu_times"] = {name: int(v) / tick for name, v in zip(_CPU_FIELDS, parts[1:])}
        elif key in ("ctxt", "procs_running", "procs_blocked") and len(parts) > 1:
            out[key] = int(parts[1])
    return out


def _mysqld(pid: int | None) -> tuple[float | None, int | None, int | None]:
    """(cpu seconds user+system, threads, rss) of the server process, or Nones."""
    if pid is None:
        return None, None, None
    import psutil

    try:
        proc = _PROC_CACHE.get(pid)
        if proc is None or not proc.is_running():
            proc = _PROC_CACHE[pid] = psutil.Process(pid)
        with proc.oneshot():
            t = proc.cpu_times()
            return t.user + t.system, proc.num_threads(), proc.memory_info().rss
    except (psutil.Error, OSError):
        _PROC_CACHE.pop(pid, None)
        return None, None, None


def read_host(mysqld_pid: int | None = None) -> HostSample:
    import psutil

    stat = _proc_stat() or {}
    cpu_times = stat.get("cpu_times")
    if cpu_times is None:
        t = psutil.cpu_times()
        cpu_times = {name: float(getattr(t, name, 0.0)) for name in _CPU_FIELDS}
    ctx = stat.get("ctxt")
    if ctx is None:
        ctx = psutil.cpu_stats().ctx_switches
    try:
        load = tuple(float(x) for x in os.getloadavg())
    except (OSError, AttributeError):
        load = tuple(float(x) for x in psutil.getloadavg())
    try:
        disk = psutil.disk_io_counters(perdisk=False)
    except (OSError, RuntimeError):
        disk = None
    cpu_s, threads, rss = _mysqld(mysqld_pid)
    return HostSample(
        cpus=psutil.cpu_count(logical=True) or 1,
        cpu_times=cpu_times,
        ctx_switches=int(ctx),
        procs_running=int(stat.get("procs_running", 0)),
        procs_blocked=int(stat.get("procs_blocked", 0)),
        loadavg=(load[0], load[1], load[2]),
        disk_reads=disk.read_count if disk else None,
        disk_writes=disk.write_count if disk else None,
        disk_read_bytes=disk.read_bytes if disk else None,
        disk_write_bytes=disk.write_bytes if disk else None,
        mysqld_cpu_s=cpu_s, mysqld_threads=threads, mysqld_rss=rss,
    )
