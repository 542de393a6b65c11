"""Host counters for one sample: run queue, CPU times, context switches, disks, the mysqld process.

/proc/stat is read directly (one file gives CPU times, ctxt, procs_running and procs_blocked,
which psutil does not expose), and so are /proc/diskstats and /proc/PID/stat where they exist: a
fleet of local servers reads these once per server per second, and psutil's general paths cost
~1.5 ms a read. psutil covers the rest (which block devices are disks, systems without /proc).
Everything cumulative stays cumulative: rates are derive's job.
"""

from __future__ import annotations

import os
import time
from typing import Any

from mysqltop.core.sample import HostSample

_CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
_PROC_CACHE: dict[int, Any] = {}      # pid → psutil.Process, reused across samples
_TICK = float(os.sysconf("SC_CLK_TCK")) if hasattr(os, "sysconf") else 100.0
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_SECTOR = 512                          # /proc/diskstats counts 512-byte sectors whatever the device
DISKS_EVERY_S = 60.0                   # which devices are disks (psutil's rule), asked again this often
_disks: tuple[float, frozenset[str]] | None = None
_CPUS = os.cpu_count() or 1


def _proc_stat(path: str = "/proc/stat") -> dict[str, Any] | None:
    try:
        with open(path, "rb") as f:
            text = f.read().decode("ascii", "replace")
    except OSError:
        return None
    out: dict[str, Any] = {}
    tick = _TICK
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
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            # "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'
            fields = f.read().rsplit(b")", 1)[1].split()
        # fields[0] is field 3 (state): utime 14, stime 15, num_threads 20, rss 24 (pages)
        return (int(fields[11]) + int(fields[12])) / _TICK, int(fields[17]), int(fields[21]) * _PAGE
    except FileNotFoundError:
        if os.path.isdir("/proc/self"):
            return None, None, None          # /proc is there: the process is gone
    except (OSError, IndexError, ValueError):
        pass
    return _mysqld_psutil(pid)


def _mysqld_psutil(pid: int) -> tuple[float | None, int | None, int | None]:
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


def _disk_names(now: float) -> frozenset[str]:
    """The block devices psutil counts as disks (whole disks and partitions it keeps), asked
    only every DISKS_EVERY_S: the answer changes when a disk is added, not between samples."""
    global _disks
    if _disks is None or now - _disks[0] >= DISKS_EVERY_S:
        import psutil

        _disks = (now, frozenset(psutil.disk_io_counters(perdisk=True, nowrap=False) or {}))
    return _disks[1]


def _disk_totals() -> tuple[int, int, int, int] | None:
    """(reads, writes, read bytes, write bytes) over the disks, as psutil.disk_io_counters() sums
    them, from one read of /proc/diskstats; None where there is no such file."""
    try:
        with open("/proc/diskstats", "rb") as f:
            text = f.read().decode("ascii", "replace")
    except OSError:
        return None
    names = _disk_names(time.monotonic())
    reads = writes = rbytes = wbytes = 0
    for line in text.splitlines():
        p = line.split()
        if len(p) < 10 or p[2] not in names:
            continue
        reads += int(p[3])
        rbytes += int(p[5]) * _SECTOR
        writes += int(p[7])
        wbytes += int(p[9]) * _SECTOR
    return reads, writes, rbytes, wbytes


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
        disk = _disk_totals()
        if disk is None:
            d = psutil.disk_io_counters(perdisk=False)
            disk = (d.read_count, d.write_count, d.read_bytes, d.write_bytes) if d else None
    except (OSError, RuntimeError, ValueError):
        disk = None
    cpu_s, threads, rss = _mysqld(mysqld_pid)
    return HostSample(
        cpus=_CPUS,
        cpu_times=cpu_times,
        ctx_switches=int(ctx),
        procs_running=int(stat.get("procs_running", 0)),
        procs_blocked=int(stat.get("procs_blocked", 0)),
        loadavg=(load[0], load[1], load[2]),
        disk_reads=disk[0] if disk else None,
        disk_writes=disk[1] if disk else None,
        disk_read_bytes=disk[2] if disk else None,
        disk_write_bytes=disk[3] if disk else None,
        mysqld_cpu_s=cpu_s, mysqld_threads=threads, mysqld_rss=rss,
    )
