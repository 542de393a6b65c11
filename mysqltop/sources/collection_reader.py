"""Read pt-stalk collections (or a plain series of saved outputs) from disk as RawSamples.

The formats are parsed by core/collection_pages.py and core/collection_series.py and files are read (regular files only, bounded)
by collection_files.py; this module finds the collections, refuses what is not what it claims
with one line (UserError; --partial: leaves it out with a note), lines each collection's samples
up on one time grid, says what it did not hold (RawSample.not_recorded), and puts several
collections one after the other. docs/import.md is the contract.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from mysqltop.core import active_sessions, collection_pages as pages, collection_series as series
from mysqltop.core.sample import POLL_STATEMENTS, HostSample, RawSample, ServerIdentity
from mysqltop.errors import UserError
from mysqltop.sources.collection_files import Unusable, blocks, head_lines, lines, read_small, regular
from mysqltop.sources.mysql import STATUS_NAMES

INTERVAL = 1.0                      # pt-stalk's --sleep-collect default: one loop a second
_STATUS_KEEP = frozenset(STATUS_NAMES)
_NAN = float("nan")
_T = TypeVar("_T")


class NotACollection(UserError):
    def __init__(self, message: str) -> None:
        super().__init__(message, 2)


@dataclass(frozen=True)
class ImportedSample:
    raw: RawSample
    bookmarks: tuple[str, ...] = ()     # notes to bookmark on this sample
    new_segment: bool = False           # does not follow the sample before (the next collection)


@dataclass(frozen=True)
class Collection:
    """One pt-stalk collection: the files sharing a prefix, by kind (`processlist`, `innodbstatus1` …)."""

    prefix: str
    files: dict[str, Path]


@dataclass
class Plan:
    """What was found: pt-stalk collections in time order or, for a plain series, the files by
    what their text is (`innodb_status`, `mysqladmin`)."""

    label: str
    collections: list[Collection] = field(default_factory=list)
    statuses: list[Path] = field(default_factory=list)      # plain series: saved INNODB STATUS files
    mysqladmin: list[Path] = field(default_factory=list)    # plain series: mysqladmin ext outputs
    notes: list[str] = field(default_factory=list)


# The files a collection must hold one of to be worth importing.
USEFUL = ("mysqladmin", "processlist", "innodbstatus1", "innodbstatus2", "transactions", "procstat", "vmstat",
          "mutex-status1", "mutex-status2")


# --- finding the collection ------------------------------------------------------------------

def _listed(paths: list[str], notes: list[str]) -> list[Path]:
    """The regular files the paths name (a directory: the regular files in it). Links, devices
    and FIFOs are left out with a note: they are never read."""
    files: list[Path] = []
    skipped: list[str] = []
    for p in map(Path, paths):
        if p.is_dir():                   # the directory itself as the user named it
            try:
                with os.scandir(p) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                raise UserError(f"{p}: cannot list ({exc.strerror})", 1) from None
            for e in entries:
                if e.is_dir(follow_symlinks=False):
                    continue
                if e.is_file(follow_symlinks=False):
                    files.append(Path(e.path))
                else:
                    skipped.append(e.name)
        elif not os.path.lexists(p):
            raise UserError(f"{p}: no such file or directory", 2)
        elif regular(p) is None:
            files.append(p)
        else:
            skipped.append(str(p))
    if skipped:
        shown = ", ".join(skipped[:5]) + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
        notes.append(f"left out {len(skipped)} entr{'y' if len(skipped) == 1 else 'ies'} that "
                     f"{'is not a regular file' if len(skipped) == 1 else 'are not regular files'} "
                     f"(symbolic links, devices, FIFOs are never read): {shown}")
    return files


def plan(paths: list[str], prefix: str | None = None) -> Plan:
    """Which collections (or plain series) the paths name; NotACollection when none. Several
    collections are all imported, oldest first; `prefix` picks one."""
    notes: list[str] = []
    files = _listed(paths, notes)
    if not files:
        raise NotACollection(f"{' '.join(paths)}: no files (expected a pt-stalk collection: "
                             "YYYY_MM_DD_HH_MM_SS-processlist, -innodbstatus1 …)"
                             + (f"; {notes[0]}" if notes else ""))
    by_prefix: dict[str, dict[str, Path]] = {}
    others: list[Path] = []
    for f in files:
        split = pages.split_prefix(f.name)
        if split is None:
            others.append(f)
        else:
            by_prefix.setdefault(split[0], {})[split[1]] = f
    if by_prefix:
        if prefix is not None:
            if prefix not in by_prefix:
                raise NotACollection(f"no collection with prefix {prefix} (found: {', '.join(sorted(by_prefix))})")
            by_prefix = {prefix: by_prefix[prefix]}
        chosen = [Collection(k, by_prefix[k]) for k in sorted(by_prefix) if set(USEFUL) & set(by_prefix[k])]
        if not chosen:
            raise NotACollection(f"{', '.join(sorted(by_prefix))}: none of the files mysqltop reads (-mysqladmin, "
                                 "-processlist, -innodbstatus1/2, -transactions, -mutex-status1/2, -procstat, -vmstat)")
        idle = sorted(set(by_prefix) - {c.prefix for c in chosen})
        if idle:
            notes.append(f"left out {', '.join(idle)}: none of the files mysqltop reads")
        if len(chosen) == 1:
            return Plan(f"pt-stalk collection {chosen[0].prefix}", chosen, notes=notes)
        notes.append(f"{len(chosen)} collections, imported oldest first, one segment each (the time between "
                     f"them not recorded): {', '.join(c.prefix for c in chosen)}; --prefix picks one")
        return Plan(f"{len(chosen)} pt-stalk collections {chosen[0].prefix} … {chosen[-1].prefix}", chosen,
                    notes=notes)
    # a plain series: each file by what its text is
    out = Plan(f"{len(others)} saved output(s)", notes=notes)
    for f in others:
        head = "".join(head_lines(f, 400))
        if "INNODB MONITOR OUTPUT" in head:
            out.statuses.append(f)
        elif re.search(r"^\|?\s*Variable_name\s*\|?\s*Value", head, re.M) and "Uptime" in "".join(head_lines(f, 4000)):
            out.mysqladmin.append(f)
        else:
            raise NotACollection(f"{f}: neither a pt-stalk file (YYYY_MM_DD_HH_MM_SS-KIND) nor a saved "
                                 "SHOW ENGINE INNODB STATUS or `mysqladmin ext` output")
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
    head = "".join(head_lines(path, 200))
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
        self.offset_known = False          # learned from a TS line (kept for a next collection without)
        self.relative = False
        self.files: dict[str, Path] = {}   # the collection being read

    # -- helpers ------------------------------------------------------------------------------
    def _f(self, kind: str) -> Path | None:
        return self.files.get(kind)

    def _refused(self, exc: Unusable, rest: bool = False) -> None:
        """--partial: a note, and the import goes on without the file (or, `rest`, without the
        rest of a file already partly read); else the one line that ends the import."""
        if not self.partial:
            raise UserError(f"{exc.path}: {exc.reason}; pass --partial to import the rest without it", 1) from None
        self.notes.append(f"{exc.path.name}: {exc.reason}, " + ("the rest of it left out" if rest else "left out"))

    def _guarded(self, items: Iterator[_T]) -> Iterator[_T]:
        """A streamed file's items until it turns out unusable."""
        try:
            yield from items
        except Unusable as exc:
            self._refused(exc, rest=True)

    def _small(self, kind: str) -> str | None:
        """A small file read whole; None when absent or (--partial) unusable."""
        path = self._f(kind)
        if path is None:
            return None
        try:
            return read_small(path)
        except Unusable as exc:
            self._refused(exc)
            return None

    def _utc(self, local: float) -> float:
        return local - self.offset

    def _learn_offset(self) -> tuple[float, float] | None:
        """The host's UTC offset from the first TS line found; the loop start when given."""
        start = None
        out = self._f("output")
        if out is not None:
            start = series.loop_start(self._guarded(lines(out)))
        stamp = start
        if stamp is None:
            for kind in ("procstat", "processlist", "transactions", "diskstats", "df"):
                f = self._f(kind)
                if f is None:
                    continue
                for line in itertools.islice(self._guarded(lines(f)), 3):
                    stamp = pages.parse_ts(line)
                    if stamp:
                        break
                if stamp:
                    break
        if stamp is not None:
            self.offset, self.offset_known = pages.utc_offset(stamp), True
        elif self.offset_known:
            self.notes.append("no TS line in the collection: the UTC offset of the collection before used")
        else:
            self.notes.append("no TS line in the collection: its local times are read as UTC")
        return start

    def _claimed(self, kind: str) -> Path | None:
        """The file of `kind` when it is what its name says; one line and exit 1 when not
        (--partial: left out with a note)."""
        path = self._f(kind)
        try:
            if path is None or check_claim(kind, path):
                return path
            raise Unusable(path, f"not {_HEADS[kind][1]} (what -{kind} holds)")
        except Unusable as exc:
            self._refused(exc)
            return None

    def _status_point(self, path: Path, fallback: float) -> tuple[float, str] | None:
        try:
            text = read_small(path)
            status = pages.status_text(text)
            if status is None or _truncated_status(path, text):
                raise Unusable(path, "cut short (no END OF INNODB MONITOR OUTPUT)" if status
                               else "holds no SHOW ENGINE INNODB STATUS")
        except Unusable as exc:
            self._refused(exc)
            return None
        local = pages.status_time_local(status)
        return (self._utc(local) if local is not None else fallback, status)

    def _mutex_point(self, path: Path, t: float) -> tuple[float, list[list[str]], str] | None:
        try:
            text = read_small(path)
            rows = series.mutex_rows(text)
            if rows is None and series.latch_deltas(text, text) is None:
                raise Unusable(path, "holds no SHOW ENGINE INNODB MUTEX table")
        except Unusable as exc:
            self._refused(exc)
            return None
        return t, rows or [], text

    def _mysqladmin(self, paths: list[Path], t0: float) -> Iterator[tuple[float, dict[str, str]]]:
        """Samples at t0 + k × the interval (`-i`, from the first Uptime steps), checked against
        Uptime: where they part by more than a step (a skipped sample, a stall of mysqladmin
        itself) the time is taken from Uptime again. Uptime alone would give two samples one
        second or none apart whenever the poll straddles a second boundary."""
        conv = series.Absolutes()
        step = INTERVAL
        anchor: tuple[int, float, int] | None = None      # (sample index, time, Uptime)
        k = 0
        last_t = t0 - step

        def timed(samples: list[dict[str, str]]) -> Iterator[tuple[float, dict[str, str]]]:
            nonlocal step, anchor, k, last_t
            ups = [u for u in map(series.uptime, samples) if u is not None]
            if anchor is None and len(ups) >= 2:
                steps = sorted(b - a for a, b in zip(ups, ups[1:]))
                step = float(max(1, steps[len(steps) // 2]))
            for s in samples:
                up = series.uptime(s)
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
            for sample in series.mysqladmin_samples(self._guarded(lines(path))):
                yield from timed(conv.feed(sample))
        yield from timed(conv.finish())
        if conv.relative:
            self.relative = True
            self.notes.append("mysqladmin: relative (-r) samples (Uptime did not rise) summed back into "
                              "absolute counters")

    def _pages(self, path: Path, t0: float) -> Iterator[tuple[float, pages.Page]]:
        head = next((ln for ln in itertools.islice(self._guarded(lines(path)), 50) if ln.strip()), "")
        paged = pages.parse_ts(head) is not None     # TS-paged: read a page at a time (bench/import)
        read = pages.ts_pages if paged else pages.untimed_pages
        for page in read(self._guarded(blocks(path))):
            t = page.ts[0] if page.ts is not None else t0 + page.index * INTERVAL
            yield t, page

    def _host(self, t0: float) -> Iterator[tuple[float, HostSample]]:
        proc = self._claimed("procstat")
        if proc is not None:
            for ps in series.procstat_pages(self._guarded(lines(proc))):
                assert ps.ts is not None
                yield ps.ts[0], HostSample(cpus=ps.cpus, cpu_times=ps.cpu_times, ctx_switches=ps.ctx_switches,
                                           procs_running=ps.procs_running, procs_blocked=ps.procs_blocked,
                                           loadavg=(_NAN, _NAN, _NAN))
            return
        vm = self._claimed("vmstat")
        if vm is None:
            return
        mp = self._f("mpstat")
        cpus = series.mpstat_cpus(self._guarded(lines(mp))) if mp is not None else None
        if cpus is None:
            self.notes.append("host: -vmstat without -procstat or -mpstat gives no CPU count: host not recorded")
            return
        # vmstat: per-interval percentages and rates, summed into cumulative CPU seconds and
        # context switches (derive works from deltas)
        acc = {k: 0.0 for k in ("user", "system", "idle", "iowait", "steal")}
        ctx = 0
        for i, row in enumerate(series.vmstat_rows(self._guarded(lines(vm)))):
            for key, col in (("user", "us"), ("system", "sy"), ("idle", "id"), ("iowait", "wa"), ("steal", "st")):
                acc[key] += row.get(col, 0) / 100.0 * INTERVAL * cpus
            ctx += int(row.get("cs", 0) * INTERVAL)
            yield t0 + (i + 1) * INTERVAL, HostSample(cpus=cpus, cpu_times=dict(acc), ctx_switches=ctx,
                                                      procs_running=row.get("r", 0) + 1,
                                                      procs_blocked=row.get("b", 0), loadavg=(_NAN, _NAN, _NAN))
        self.notes.append("host: from -vmstat (CPU shares, run queue) with the CPU count of -mpstat")

    # -- the samples ---------------------------------------------------------------------------
    def samples(self) -> Iterator[ImportedSample]:
        if not self.plan.collections:
            yield from self._plain()
            return
        several = len(self.plan.collections) > 1
        last: tuple[str, float] | None = None         # the previous collection and its last sample's time
        for c in self.plan.collections:
            self.files = c.files
            noted = len(self.notes)
            first = True
            overlap = 0
            marks: tuple[str, ...] = ()
            for item in self._collection(c.prefix):
                if last is not None and item.raw.wall <= last[1]:
                    overlap += 1                       # started before the previous one ended
                    marks += item.bookmarks
                    continue
                if first and last is not None:
                    gap = item.raw.wall - last[1]
                    what = (f"not recorded: {_span(gap)} between pt-stalk collections {last[0]} and {c.prefix}"
                            if gap > 2 * INTERVAL else f"pt-stalk collection {c.prefix} follows {last[0]}")
                    item = dataclasses.replace(item, new_segment=gap > 2 * INTERVAL,
                                               bookmarks=(what, *marks, *item.bookmarks))
                first = False
                last = (c.prefix, item.raw.wall)
                yield item
            if overlap:
                self.notes.append(f"its first {overlap} sample(s) overlap the collection before (pt-stalk --sleep "
                                  "shorter than --run-time): left out")
            if several:
                self.notes[noted:] = [f"{c.prefix}: {n}" for n in self.notes[noted:]]

    def _collection(self, prefix: str) -> Iterator[ImportedSample]:
        loop0 = self._learn_offset()
        local0 = pages.prefix_local(prefix)
        if local0 is None:
            raise NotACollection(f"{prefix}: not a date")
        t_prefix = self._utc(local0)
        t_loop = loop0[0] if loop0 is not None else t_prefix + 1.0
        var_file = self._f("variables")
        variables = series.variables(self._guarded(lines(var_file))) if var_file is not None else {}
        hostname = (self._small("hostname") or "").strip()[:255] or None
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
            procs: dict[int, pages.Row] = {}
            page = got.get("processlist")
            if page is not None:
                rows = [r for rs in page.results for r in rs]
                if got.get("transactions") is not None:      # joined by thread id
                    procs = {i: r for r in rows if (i := series._int(r.get("Id"))) is not None}
                kw["sessions"], kw["session_states"] = series.sessions(rows)
            tpage = got.get("transactions")
            if tpage is not None:
                local_now = t + self.offset
                kw["transactions"], kw["lock_waits"] = series.transactions(tpage.results, procs, local_now)
            # no -transactions page for this moment: not recorded (the loop's query may not have
            # finished), never "no transaction open" — that needs a page that lists none
            if page is not None:                      # SHOW FULL PROCESSLIST prints host:port
                kw["active_sessions"] = active_sessions.rows(series.busy_rows(rows), kw.get("lock_waits"),
                                                             with_port=True)
            kw.update(extra)
            marks = []
            while marks_due and marks_due[0][0] <= t + 0.5:
                marks.append(marks_due.pop(0)[1])
            return ImportedSample(_raw(kw), tuple(marks))

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
        return any(needle in line and f"-{kind}" in line for line in self._guarded(lines(out)))

    def _trigger_note(self) -> str | None:
        text = self._small("trigger")
        if text is None:
            return "pt-stalk collection start"
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
        if self.plan.statuses and not any(pages.status_time_local(s) is not None for _, s in points):
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
                yield ImportedSample(_raw(kw))
            for t, s in points:
                yield ImportedSample(_raw(dict(wall=t, mono=t - (t_first or t), innodb_status=s)))
            return
        t_first = points[0][0] if points else None
        for t, s in points:
            yield ImportedSample(_raw(dict(wall=t, mono=t - (t_first or t), innodb_status=s)))


def _drain(name: str, s: _Stream) -> Iterator[tuple[float, str, Any, bool]]:
    while s.head is not None:
        t, payload = s.head
        s.head = next(s.items, None)
        yield t, name, payload, True


def _raw(kw: dict[str, Any]) -> RawSample:
    """The sample, saying what the collection did not hold for this moment (RawSample.not_recorded):
    an empty map is not recorded, an empty list of rows is "none"."""
    def held(v: Any) -> bool:
        return v is not None and not (isinstance(v, dict) and not v)
    return RawSample(**kw, not_recorded=[k for k in POLL_STATEMENTS if not held(kw.get(k))])


def _span(seconds: float) -> str:
    s = max(0, round(seconds))
    return f"{s // 3600} h {s % 3600 // 60:02d} min" if s >= 3600 else f"{s // 60} min {s % 60:02d} s" if s >= 60 \
        else f"{s} s"


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
    deltas = series.latch_deltas(mutex[0][2], mutex[1][2])
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
