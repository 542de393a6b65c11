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
# Other processes are looked at only while the CPUs are this busy (a scan costs a few ms of CPU).
SCAN_BUSY_SHARE = 0.8
TOP_PROCS = 3
# The scan is a fact of the host, not of one server: however many local servers a fleet watches,
# the process scans at most once per this many seconds (the others' samples carry no top_procs).
SCAN_MIN_GAP_S = 0.5


class _Scan:
    """Per-process CPU seconds of the last scan and the host CPU times at the last read: to pick
    the processes busiest since then (the choice is the source's; their rates are derive's)."""

    def __init__(self, min_gap_s: float = 0.0) -> None:
        self.cpu_times: dict[str, float] | None = None
        self.procs: dict[int, tuple[str, float]] = {}
        self.min_gap_s = min_gap_s
        self.at = float("-inf")          # monotonic time of the last look


_SCAN = _Scan(SCAN_MIN_GAP_S)      # one per process: every local server's source shares it


def _pid_stat(pid: int | str) -> tuple[str, list[bytes]]:
    """(comm, the fields from field 3 on) of /proc/PID/stat. "pid (comm) state ppid …": comm may
    hold spaces and parentheses, so the fields start after the last ')'. OSError when gone."""
    # os.read, not open(): a buffered file object per process doubled the cost of a scan of
    # every process (1 ms for a hundred); a stat line is a few hundred bytes (comm ≤ 16)
    fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    try:
        text = os.read(fd, 4096)
    finally:
        os.close(fd)
    close = text.rindex(b")")
    return text[text.find(b"(") + 1:close].decode("utf-8", "replace"), text[close + 2:].split()


def _cpu_s(fields: list[bytes]) -> float:
    """User + system CPU seconds (fields 14 and 15) from _pid_stat's fields."""
    return (int(fields[11]) + int(fields[12])) / _TICK


def _all_procs() -> dict[int, tuple[str, float]]:
    """pid → (name, user+system CPU seconds) of every process: /proc directly (3× cheaper than
    psutil), psutil elsewhere."""
    out: dict[int, tuple[str, float]] = {}
    if os.path.isdir("/proc/self"):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                name, fields = _pid_stat(entry)
                out[int(entry)] = (name, _cpu_s(fields))
            except (OSError, IndexError, ValueError):
                continue                      # gone meanwhile, or not a process's stat line
        return out
    import psutil

    for p in psutil.process_iter(["name", "cpu_times"]):
        t = p.info.get("cpu_times")
        if t is not None:
            out[p.pid] = (str(p.info.get("name") or "?"), t.user + t.system)
    return out


def _busy_share(before: dict[str, float] | None, now: dict[str, float]) -> float:
    if before is None:
        return 0.0
    deltas = {k: now[k] - before.get(k, 0.0) for k in now}
    total = sum(deltas.values())
    idle = deltas.get("idle", 0.0) + deltas.get("iowait", 0.0)
    return (total - idle) / total if total > 0 else 0.0


def top_procs(cpu_times: dict[str, float], exclude: int | None, scan: _Scan = _SCAN) -> list[list[Any]] | None:
    """The TOP_PROCS processes (other than `exclude`) that used most CPU since the previous scan,
    as [pid, name, cumulative CPU seconds], while the host's CPUs are busy; else None (also when
    the scan looked less than its min_gap_s ago: another server's source of this process did)."""
    now = time.monotonic()
    if now - scan.at < scan.min_gap_s:
        return None
    scan.at = now
    busy = _busy_share(scan.cpu_times, cpu_times)
    scan.cpu_times = dict(cpu_times)
    if busy < SCAN_BUSY_SHARE:
        scan.procs = {}
        return None
    before, scan.procs = scan.procs, _all_procs()
    used = [(cpu - before[pid][1], pid, name, cpu) for pid, (name, cpu) in scan.procs.items()
            if pid != exclude and pid in before and cpu > before[pid][1]]
    used.sort(reverse=True)
    return [[pid, name, cpu] for _, pid, name, cpu in used[:TOP_PROCS]]


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
        _, fields = _pid_stat(pid)
        # fields[0] is field 3 (state): num_threads is field 20, rss field 24 (pages)
        return _cpu_s(fields), int(fields[17]), int(fields[21]) * _PAGE
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
    try:
        top = top_procs(cpu_times, mysqld_pid)
    except (OSError, ValueError):
        top = None
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
        mysqld_cpu_s=cpu_s, mysqld_threads=threads, mysqld_rss=rss, top_procs=top,
    )
