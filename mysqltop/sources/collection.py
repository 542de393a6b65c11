"""Read a pt-stalk collection (or a plain series of saved outputs) from disk as RawSamples.

The formats are parsed by core/collection.py; this module finds the files, bounds what is read
(files are streamed line by line, a line is cut at MAX_LINE bytes, whole-file reads are capped),
refuses what is not what it claims with one line (UserError), and lines the files' samples up
on one time grid. docs/import.md is the contract.
"""

from __future__ import annotations

import heapq
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from mysqltop.core import collection as fmt
from mysqltop.core.sample import HostSample, RawSample, ServerIdentity
from mysqltop.errors import UserError
from mysqltop.sources.mysql import STATUS_NAMES

MAX_LINE = 1 << 20                  # bytes of one line kept (a longer one is cut)
MAX_SMALL_FILE = 64 << 20           # innodbstatus, mutex-status, variables: read whole
SNIFF = 64 << 10                    # bytes looked at to tell text from binary junk
INTERVAL = 1.0                      # pt-stalk's --sleep-collect default: one loop a second
_STATUS_KEEP = frozenset(STATUS_NAMES)
_NAN = float("nan")


class NotACollection(UserError):
    def __init__(self, message: str) -> None:
        super().__init__(message, 2)


@dataclass(frozen=True)
class ImportedSample:
    raw: RawSample
    bookmarks: tuple[str, ...] = ()     # notes to bookmark on this sample


@dataclass
class Plan:
    """What was found: a collection's files by kind (`processlist`, `innodbstatus1` …) or, for a
    plain series, the files by what their text is (`innodb_status`, `mysqladmin`)."""

    label: str
    prefix: str | None = None
    files: dict[str, Path] = field(default_factory=dict)
    statuses: list[Path] = field(default_factory=list)      # plain series: saved INNODB STATUS files
    mysqladmin: list[Path] = field(default_factory=list)    # plain series: mysqladmin ext outputs
    notes: list[str] = field(default_factory=list)


# --- reading ---------------------------------------------------------------------------------

def _check_text(path: Path, head: bytes) -> None:
    if b"\0" in head:
        raise UserError(f"{path}: binary data, not a text output of pt-stalk or the mysql client", 1)
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:            # not just a character cut at the sniff's end
            bad = sum(1 for b in head if b >= 0x80) / max(1, len(head))
            if bad > 0.3:
                raise UserError(f"{path}: binary data, not a text output of pt-stalk or the mysql client", 1) from None


def lines(path: Path) -> Iterator[str]:
    """The file's lines, streamed (bounded memory whatever its size), invalid UTF-8 replaced."""
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})", 1) from None
    with f:
        head = f.read(SNIFF)
        _check_text(path, head)
        f.seek(0)
        while True:
            line = f.readline(MAX_LINE)
            if not line:
                return
            if len(line) == MAX_LINE and not line.endswith(b"\n"):
                while True:                      # drop the rest of an overlong line
                    more = f.readline(MAX_LINE)
                    if not more or more.endswith(b"\n"):
                        break
            if b"\0" in line:
                raise UserError(f"{path}: binary data inside the text (a NUL byte)", 1)
            yield line.decode("utf-8", "replace")


def read_small(path: Path) -> str:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})", 1) from None
    if size > MAX_SMALL_FILE:
        raise UserError(f"{path}: {size / 1e6:.0f} MB is too large for what it claims to be "
                        f"(limit {MAX_SMALL_FILE >> 20} MB)", 1)
    return "".join(lines(path))


# --- finding the collection ------------------------------------------------------------------

def plan(paths: list[str], prefix: str | None = None) -> Plan:
    """Which collection (or plain series) the paths name; NotACollection when none."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            try:
                files += sorted(x for x in p.iterdir() if x.is_file())
            except OSError as exc:
                raise UserError(f"{p}: cannot list ({exc.strerror})", 1) from None
        elif p.is_file():
            files.append(p)
        elif not p.exists():
            raise UserError(f"{p}: no such file or directory", 2)
        else:
            raise NotACollection(f"{p}: not a file or directory")
    if not files:
        raise NotACollection(f"{' '.join(paths)}: no files (expected a pt-stalk collection: "
                             "YYYY_MM_DD_HH_MM_SS-processlist, -innodbstatus1 …)")
    by_prefix: dict[str, dict[str, Path]] = {}
    others: list[Path] = []
    for f in files:
        split = fmt.split_prefix(f.name)
        if split is None:
            others.append(f)
        else:
            by_prefix.setdefault(split[0], {})[split[1]] = f
    if by_prefix:
        if prefix is not None:
            if prefix not in by_prefix:
                raise NotACollection(f"no collection with prefix {prefix} (found: {', '.join(sorted(by_prefix))})")
            chosen = prefix
        elif len(by_prefix) > 1:
            raise NotACollection(f"{len(by_prefix)} collections mixed here ({', '.join(sorted(by_prefix))}): "
                                 "import one at a time with --prefix PREFIX")
        else:
            chosen = next(iter(by_prefix))
        kinds = by_prefix[chosen]
        useful = {"mysqladmin", "processlist", "innodbstatus1", "innodbstatus2", "transactions", "procstat",
                  "vmstat", "mutex-status1", "mutex-status2"}
        if not useful & set(kinds):
            raise NotACollection(f"{chosen}: none of the files mysqltop reads (-mysqladmin, -processlist, "
                                 f"-innodbstatus1/2, -transactions, -mutex-status1/2, -procstat, -vmstat)")
        return Plan(f"pt-stalk collection {chosen}", chosen, kinds)
    # a plain series: each file by what its text is
    out = Plan(f"{len(others)} saved output(s)")
    for f in others:
        head = "".join(_head_lines(f, 400))
        if "INNODB MONITOR OUTPUT" in head:
            out.statuses.append(f)
        elif re.search(r"^\|?\s*Variable_name\s*\|?\s*Value", head, re.M) and "Uptime" in "".join(_head_lines(f, 4000)):
            out.mysqladmin.append(f)
        else:
            raise NotACollection(f"{f}: neither a pt-stalk file (YYYY_MM_DD_HH_MM_SS-KIND) nor a saved "
                                 "SHOW ENGINE INNODB STATUS or `mysqladmin ext` output")
    return out


def _head_lines(path: Path, n: int) -> list[str]:
    out = []
    for i, line in enumerate(lines(path)):
        if i >= n:
            break
        out.append(line)
    return out


# --- one time grid ----------------------------------------------------------------------------

# What the head of each streamed file must show to be what its name says (an empty file is
# fine: the loop ran and the server had nothing to list).
_HEADS = {
    "mysqladmin": (re.compile(r"Variable_name"), "`mysqladmin ext` tables"),
    "processlist": (re.compile(r"^(?:TS \d|\*{5,} 1\. row)", re.M), "SHOW FULL PROCESSLIST\\G pages"),
    "transactions": (re.compile(r"^(?:TS \d|\*{5,} 1\. row)", re.M), "INNODB_TRX\\G pages"),
    "procstat": (re.compile(r"^TS \d", re.M), "TS-stamped /proc/stat copies"),
    "vmstat": (re.compile(r"^\s*r\s+b\s", re.M), "vmstat output"),
}


def check_claim(kind: str, path: Path) -> bool:
    """False when a non-empty file's first lines are not the form its name says."""
    want = _HEADS.get(kind)
    if want is None:
        return True
    head = "".join(_head_lines(path, 200))
    return not head.strip() or want[0].search(head) is not None


class _Stream:
    """Timed items (sorted by time) pulled as the grid advances: the one nearest a tick wins."""

    def __init__(self, items: Iterator[tuple[float, Any]]) -> None:
        self.items = items
        self.head: tuple[float, Any] | None = next(items, None)

    def take(self, t: float, tol: float) -> Any:
        best: tuple[float, Any] | None = None
        while self.head is not None and self.head[0] <= t + tol:
            if self.head[0] >= t - tol and (best is None or abs(self.head[0] - t) < abs(best[0] - t)):
                best = self.head
            self.head = next(self.items, None)
        return best[1] if best is not None else None


def _truncated_status(path: Path, text: str) -> bool:
    return "END OF INNODB MONITOR OUTPUT" not in text


class Importer:
    """Streams ImportedSamples of one plan; `notes` says what was converted, guessed or absent."""

    def __init__(self, p: Plan, partial: bool = False, start: float | None = None) -> None:
        self.plan = p
        self.partial = partial
        self.start = start                 # plain mysqladmin series: epoch of the first sample
        self.notes: list[str] = list(p.notes)
        self.offset = 0.0                  # collecting host's local time minus UTC
        self.relative = False

    # -- helpers ------------------------------------------------------------------------------
    def _f(self, kind: str) -> Path | None:
        return self.plan.files.get(kind)

    def _utc(self, local: float) -> float:
        return local - self.offset

    def _learn_offset(self) -> tuple[float, float] | None:
        """The host's UTC offset from the first TS line found; the loop start when given."""
        start = None
        out = self._f("output")
        if out is not None:
            start = fmt.loop_start(lines(out))
        stamp = start
        if stamp is None:
            for kind in ("procstat", "processlist", "transactions", "diskstats", "df"):
                f = self._f(kind)
                if f is None:
                    continue
                for line in _head_lines(f, 3):
                    stamp = fmt.parse_ts(line)
                    if stamp:
                        break
                if stamp:
                    break
        if stamp is not None:
            self.offset = fmt.utc_offset(stamp)
        else:
            self.notes.append("no TS line in the collection: its local times are read as UTC")
        return start

    def _claimed(self, kind: str) -> Path | None:
        """The file of `kind` when it is what its name says; one line and exit 1 when not
        (--partial: left out with a note)."""
        path = self._f(kind)
        if path is None or check_claim(kind, path):
            return path
        what = _HEADS[kind][1]
        if not self.partial:
            raise UserError(f"{path}: not {what} (what -{kind} holds); pass --partial to import the rest "
                            "without it", 1)
        self.notes.append(f"{path.name}: not {what}, left out")
        return None

    def _status_point(self, path: Path, fallback: float) -> tuple[float, str] | None:
        text = read_small(path)
        status = fmt.status_text(text)
        if status is None or _truncated_status(path, text):
            if not self.partial or status is None:
                what = "cut short (no END OF INNODB MONITOR OUTPUT)" if status else "holds no SHOW ENGINE INNODB STATUS"
                raise UserError(f"{path}: {what}; pass --partial to import the rest without it", 1)
            self.notes.append(f"{path.name}: cut short, left out")
            return None
        local = fmt.status_time_local(status)
        return (self._utc(local) if local is not None else fallback, status)

    def _mutex_point(self, path: Path, t: float) -> tuple[float, list[list[str]], str] | None:
        text = read_small(path)
        rows = fmt.mutex_rows(text)
        if rows is None and fmt.latch_deltas(text, text) is None:
            if not self.partial:
                raise UserError(f"{path}: holds no SHOW ENGINE INNODB MUTEX table; pass --partial to import the "
                                "rest without it", 1)
            self.notes.append(f"{path.name}: no mutex table, left out")
            return None
        return t, rows or [], text

    def _mysqladmin(self, paths: list[Path], t0: float) -> Iterator[tuple[float, dict[str, str]]]:
        """Samples at t0 + k × the interval (`-i`, from the first Uptime steps), checked against
        Uptime: where they part by more than a step (a skipped sample, a stall of mysqladmin
        itself) the time is taken from Uptime again. Uptime alone would give two samples one
        second or none apart whenever the poll straddles a second boundary."""
        conv = fmt.Absolutes()
        step = INTERVAL
        anchor: tuple[int, float, int] | None = None      # (sample index, time, Uptime)
        k = 0
        last_t = t0 - step

        def timed(samples: list[dict[str, str]]) -> Iterator[tuple[float, dict[str, str]]]:
            nonlocal step, anchor, k, last_t
            ups = [u for u in map(fmt.uptime, samples) if u is not None]
            if anchor is None and len(ups) >= 2:
                steps = sorted(b - a for a, b in zip(ups, ups[1:]))
                step = float(max(1, steps[len(steps) // 2]))
            for s in samples:
                up = fmt.uptime(s)
                if anchor is None:
                    anchor = (k, t0, up if up is not None else 0)
                t = anchor[1] + (k - anchor[0]) * step
                if up is not None and abs((up - anchor[2]) - (k - anchor[0]) * step) > step + 1:
                    t = anchor[1] + (up - anchor[2]) if up > anchor[2] else last_t + step
                    anchor = (k, t, up)
                last_t = t
                k += 1
                yield t, {n: v for n, v in s.items() if n in _STATUS_KEEP}

        for path in paths:
            for sample in fmt.mysqladmin_samples(lines(path)):
                yield from timed(conv.feed(sample))
        yield from timed(conv.finish())
        if conv.relative:
            self.relative = True
            self.notes.append("mysqladmin: relative (-r) samples (Uptime did not rise) summed back into "
                              "absolute counters")

    def _pages(self, path: Path, t0: float) -> Iterator[tuple[float, fmt.Page]]:
        for page in fmt.vertical_pages(lines(path)):
            t = page.ts[0] if page.ts is not None else t0 + page.index * INTERVAL
            yield t, page

    def _host(self, t0: float) -> Iterator[tuple[float, HostSample]]:
        proc = self._claimed("procstat")
        if proc is not None:
            for ps in fmt.procstat_pages(lines(proc)):
                assert ps.ts is not None
                yield ps.ts[0], HostSample(cpus=ps.cpus, cpu_times=ps.cpu_times, ctx_switches=ps.ctx_switches,
                                           procs_running=ps.procs_running, procs_blocked=ps.procs_blocked,
                                           loadavg=(_NAN, _NAN, _NAN))
            return
        vm = self._claimed("vmstat")
        if vm is None:
            return
        mp = self._f("mpstat")
        cpus = fmt.mpstat_cpus(lines(mp)) if mp is not None else None
        if cpus is None:
            self.notes.append("host: -vmstat without -procstat or -mpstat gives no CPU count: host not recorded")
            return
        # vmstat: per-interval percentages and rates, summed into cumulative CPU seconds and
        # context switches (the pipeline works from deltas)
        acc = {k: 0.0 for k in ("user", "system", "idle", "iowait", "steal")}
        ctx = 0
        for i, row in enumerate(fmt.vmstat_rows(lines(vm))):
            for key, col in (("user", "us"), ("system", "sy"), ("idle", "id"), ("iowait", "wa"), ("steal", "st")):
                acc[key] += row.get(col, 0) / 100.0 * INTERVAL * cpus
            ctx += int(row.get("cs", 0) * INTERVAL)
            yield t0 + (i + 1) * INTERVAL, HostSample(cpus=cpus, cpu_times=dict(acc), ctx_switches=ctx,
                                                      procs_running=row.get("r", 0) + 1,
                                                      procs_blocked=row.get("b", 0), loadavg=(_NAN, _NAN, _NAN))
        self.notes.append("host: from -vmstat (CPU shares, run queue) with the CPU count of -mpstat")

    # -- the samples ---------------------------------------------------------------------------
    def samples(self) -> Iterator[ImportedSample]:
        if self.plan.prefix is None:
            yield from self._plain()
            return
        loop0 = self._learn_offset()
        local0 = fmt.prefix_local(self.plan.prefix)
        if local0 is None:
            raise NotACollection(f"{self.plan.prefix}: not a date")
        t_prefix = self._utc(local0)
        t_loop = loop0[0] if loop0 is not None else t_prefix + 1.0
        var_file = self._f("variables")
        variables = fmt.variables(lines(var_file)) if var_file is not None else {}
        hostname = None
        if self._f("hostname"):
            hostname = read_small(self._f("hostname")).strip()[:255] or None  # type: ignore[arg-type]
        server = _identity(variables, hostname)

        streams: dict[str, _Stream] = {}
        admin = self._claimed("mysqladmin")
        if admin is not None:
            streams["status"] = _Stream(self._mysqladmin([admin], t_prefix))
        plist, trx = self._claimed("processlist"), self._claimed("transactions")
        if plist is not None:
            streams["processlist"] = _Stream(self._pages(plist, t_loop))
        if trx is not None:
            streams["transactions"] = _Stream(self._pages(trx, t_loop))
        host = _Stream(self._host(t_prefix))
        if host.head is not None:
            streams["host"] = host
        points: list[tuple[float, str, Any]] = []
        for n in (1, 2):
            f = self._f(f"innodbstatus{n}")
            if f is not None:
                pt = self._status_point(f, t_prefix if n == 1 else t_prefix + 30)
                if pt is not None:
                    points.append((pt[0], "innodb_status", pt[1]))
        mutex: list[tuple[float, list[list[str]], str]] = []
        status_times = sorted(t for t, kind, _ in points)
        for n in (1, 2):
            f = self._f(f"mutex-status{n}")
            if f is not None:
                # taken right after the status snapshot of the same number
                at = status_times[min(n - 1, len(status_times) - 1)] if status_times else t_prefix
                mp = self._mutex_point(f, at)
                if mp is not None:
                    mutex.append(mp)
                    points.append((mp[0], "innodb_mutex", mp[1]))
        self._absent_notes()
        points.sort(key=lambda p: p[0])
        grid: str | None = next((s for s in ("status", "processlist", "host") if s in streams), None)
        trigger = self._trigger_note()
        latch_note = _latch_note(mutex)
        t_first: float | None = None
        pending = list(points)
        marks_due = [(t_prefix, trigger)] if trigger else []
        if latch_note and len(mutex) == 2:
            marks_due.append((mutex[1][0], latch_note))

        def build(t: float, got: dict[str, Any], extra: dict[str, Any]) -> ImportedSample:
            nonlocal t_first
            if t_first is None:
                t_first = t
            kw: dict[str, Any] = dict(wall=t, mono=t - t_first, server=server, variables=variables)
            if got.get("status") is not None:
                kw["global_status"] = got["status"]
            if got.get("host") is not None:
                kw["host"] = got["host"]
            procs: dict[int, fmt.Row] = {}
            page = got.get("processlist")
            if page is not None:
                rows = [r for rs in page.results for r in rs]
                procs = {i: r for r in rows if (i := fmt._int(r.get("Id"))) is not None}
                kw["sessions"], kw["session_states"] = fmt.sessions(rows)
            tpage = got.get("transactions")
            if tpage is not None:
                local_now = t + self.offset
                kw["transactions"], kw["lock_waits"] = fmt.transactions(tpage.results, procs, local_now)
            elif "transactions" in streams and page is not None:
                kw["transactions"], kw["lock_waits"] = [], []    # the loop ran; no transaction was open
            kw.update(extra)
            marks = []
            while marks_due and marks_due[0][0] <= t + 0.5:
                marks.append(marks_due.pop(0)[1])
            return ImportedSample(RawSample(**kw), tuple(marks))

        marks_due.sort(key=lambda m: m[0])
        tol = INTERVAL * 0.6
        if grid is not None:
            master = streams.pop(grid)
            while master.head is not None:
                t, payload = master.head
                master.head = next(master.items, None)
                now: dict[str, Any] = {grid: payload}
                for name, s in streams.items():
                    now[name] = s.take(t, tol)
                extra: dict[str, Any] = {}
                while pending and pending[0][0] <= t + tol:
                    _, kind, value = pending.pop(0)
                    extra[kind] = value
                yield build(t, now, extra)
        # what lies past the grid's end (a last loop page, the second status snapshot) or
        # everything when there is no grid: its own samples, items within `tol` together
        pending_items = ((t, kind, value, False) for t, kind, value in pending)
        rest = heapq.merge(pending_items, *(_drain(name, s) for name, s in streams.items()), key=lambda r: r[0])
        group: list[tuple[float, str, Any, bool]] = []
        for item in rest:                        # streamed: a 2 GB processlist past the grid stays flat
            if group and item[0] > group[0][0] + tol:
                yield self._group(build, group)
                group = []
            group.append(item)
        if group:
            yield self._group(build, group)

    @staticmethod
    def _group(build: Callable[[float, dict[str, Any], dict[str, Any]], ImportedSample],
               group: list[tuple[float, str, Any, bool]]) -> ImportedSample:
        got: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for _, kind, value, streamed in group:
            (got if streamed else extra)[kind] = value
        return build(group[0][0], got, extra)

    def _absent_notes(self) -> None:
        for kind, what in (("mysqladmin", "server counters (TPS, QPS, rates)"),
                           ("processlist", "sessions"), ("transactions", "transactions and lock waits"),
                           ("innodbstatus1", "InnoDB status"),
                           ("mutex-status1", "latch waits (SHOW ENGINE INNODB MUTEX)")):
            if self._f(kind) is None:
                removed = self._removed_empty(kind)
                self.notes.append(f"no -{kind}: {what} not recorded"
                                  + (" (pt-stalk removed it as empty)" if removed else ""))
        if self._f("procstat") is None and self._f("vmstat") is None:
            self.notes.append("no -procstat or -vmstat: host CPU and run queue not recorded")

    def _removed_empty(self, kind: str) -> bool:
        out = self._f("output")
        if out is None:
            return False
        needle = "Removing empty file"
        return any(needle in line and f"-{kind}" in line for line in lines(out))

    def _trigger_note(self) -> str | None:
        f = self._f("trigger")
        if f is None:
            return "pt-stalk collection start"
        text = read_small(f)
        first = next((ln for ln in text.splitlines() if ln.strip()), "")
        first = re.sub(r"^\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\s*", "", first).strip()
        return f"pt-stalk trigger: {first[:200]}" if first else "pt-stalk collection start"

    # -- plain series --------------------------------------------------------------------------
    def _plain(self) -> Iterator[ImportedSample]:
        points: list[tuple[float, str]] = []
        for f in self.plan.statuses:
            pt = self._status_point(f, _mtime(f))
            if pt is not None:
                points.append(pt)
        points.sort(key=lambda p: p[0])
        if self.plan.statuses and not any(fmt.status_time_local(s) is not None for _, s in points):
            self.notes.append("status files carry no header time: file modification times used")
        if self.plan.mysqladmin:
            t0 = self.start
            if t0 is None:
                t0 = points[0][0] if points else _mtime(self.plan.mysqladmin[0])
                self.notes.append("mysqladmin series: no times in the file; the first sample is placed at "
                                  + ("the first status snapshot" if points else "the file's modification time")
                                  + " (set it with --at)")
            stream = _Stream(self._mysqladmin(self.plan.mysqladmin, t0))
            t_first: float | None = None
            while stream.head is not None:
                t, status = stream.head
                stream.head = next(stream.items, None)
                t_first = t if t_first is None else t_first
                kw: dict[str, Any] = dict(wall=t, mono=t - t_first, global_status=status)
                while points and points[0][0] <= t + INTERVAL * 0.6:
                    kw["innodb_status"] = points.pop(0)[1]
                yield ImportedSample(RawSample(**kw))
            for t, s in points:
                yield ImportedSample(RawSample(wall=t, mono=t - (t_first or t), innodb_status=s))
            return
        t_first = points[0][0] if points else None
        for t, s in points:
            yield ImportedSample(RawSample(wall=t, mono=t - (t_first or t), innodb_status=s))


def _drain(name: str, s: _Stream) -> Iterator[tuple[float, str, Any, bool]]:
    while s.head is not None:
        t, payload = s.head
        s.head = next(s.items, None)
        yield t, name, payload, True


def _mtime(path: Path) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _identity(variables: dict[str, str], hostname: str | None) -> ServerIdentity:
    version = variables.get("version")
    low = f"{version or ''} {variables.get('version_comment', '')}".lower()
    flavor = None if version is None else "mariadb" if "mariadb" in low else "percona" if "percona" in low else "mysql"
    name = variables.get("hostname") or hostname
    # pt-stalk runs on the database host: its host name is where the server was
    return ServerIdentity(version=version, flavor=flavor, address=name, hostname=name)


def _latch_note(mutex: list[tuple[float, list[list[str]], str]]) -> str | None:
    if len(mutex) != 2:
        return None
    deltas = fmt.latch_deltas(mutex[0][2], mutex[1][2])
    if deltas is None:
        return None
    span = mutex[1][0] - mutex[0][0]
    top = ", ".join(f"{d.name}{' ' + d.site if d.site and d.site not in d.name else ''} +{d.waits}"
                    for d in deltas[:5])
    return (f"latch waits mutex-status1→2 over {span:.0f} s (a start→end delta of two snapshots, "
            f"not a series): {top or 'none waited'}")


def run_import(p: Plan, on_sample: Callable[[ImportedSample], None], partial: bool = False,
               start: float | None = None) -> Importer:
    imp = Importer(p, partial=partial, start=start)
    for item in imp.samples():
        on_sample(item)
    return imp
