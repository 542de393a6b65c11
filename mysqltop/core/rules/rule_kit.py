"""What every rule shares: the window of frames it judges, the server variables, and formatting.

A rule sees a `Window` (the live frames of the span in SECONDS the rule declares with `@span`,
oldest first: RECENT_S unless it says otherwise) and `Vars` (global variables) and yields Advice.
A span is time, never a count of frames, so the same incident sampled at 0.25 s, 1 s or 10 s is
judged over the same seconds. Conditions must hold over most of
the window, never on one sample: `Window.held` counts the frames where a value is known *and*
meets the condition, over all the window's frames, so a metric the server does not offer never
fires and a short spike never reaches the sustain fraction. Evidence times are UTC.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from typing import Callable, Iterable, Mapping, Sequence

from mysqltop.core.frame import SEVERITIES, Advice, Frame, Hotspot
from mysqltop.core.frame_memo import memo_of
from mysqltop.core.status import lower_keys

Getter = Callable[[Frame], "float | None"]

# A condition is "sustained" when it holds on at least this share of the window's live frames:
# tolerates a missed poll or a noisy dip, but a burst of a few samples in a minute does not count.
SUSTAINED = 0.6
# Fewer live frames than this is not a window but a glimpse: five samples are a condition that
# lasted 5 s at 1 s polls, close to a minute at 10 s polls.
MIN_FRAMES = 5
# Live advice judges the last minute, whatever the caller's window holds: long enough that one
# bad sample cannot dominate (60 samples at 1 s), short enough that advice shows ~40 s into an
# incident and clears ~25 s after it ends.
RECENT_S = 60.0
# Trends slower than a minute (the history list growing) are judged over two minutes: the span
# a 120-frame window covered at the default 1 s interval.
TREND_S = 120.0
# Time lost waiting, as a share of the sessions running: half of their time is an incident, a
# tenth is worth tuning, less is a detail (a busy server always waits somewhere).
LOST_CRITICAL_SHARE = 0.5
LOST_WARNING_SHARE = 0.1


def clock(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%H:%M:%S")


def span_label(start: float, end: float) -> str:
    return f"over {end - start:,.0f} s ({clock(start)}–{clock(end)})"


def num(x: float | None) -> str:
    """Evidence number: thousands-separated, one decimal below 10 ("4,100", "2.5", "0.3")."""
    if x is None:
        return "n/a"
    return f"{x:,.0f}" if abs(x) >= 10 or float(x).is_integer() else f"{x:.1f}"


def size_text(n: float) -> str:
    """Bytes as "6 MiB", "1.5 GiB" (binary units, as server variables are set)."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:,.1f}".removesuffix(".0") + f" {unit}"
    return f"{n:,.0f} B"


def pct(share: float | None) -> str:
    return "n/a" if share is None else f"{share * 100:.0f} %"


def cpu_busy_pct(f: Frame) -> float | None:
    """Host CPU user + system %, None without host counters."""
    h = f.host
    return None if h is None or h.cpu_user_pct is None else h.cpu_user_pct + (h.cpu_system_pct or 0.0)


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass
class Member:
    """One latch of a family over the window: its own figures, never the family's."""

    share_sum: float = 0.0          # Σ per-frame share (÷ frames = mean share)
    waits: float = 0.0              # Σ waits/s × Δt: waits in the window
    wait_ms: float = 0.0            # Σ wait ms/s × Δt
    seconds: float = 0.0            # Σ Δt of the frames where the source had a rate
    timed: bool = False

    def waits_per_s(self) -> float | None:
        return self.waits / self.seconds if self.seconds else None

    def wait_ms_per_s(self) -> float | None:
        return self.wait_ms / self.seconds if self.seconds and self.timed else None


@dataclass
class LatchStats:
    """One latch family (e.g. everything AHI) per live frame, from the source that saw it most.

    Sources measure different things (P_S wait time, MUTEX wait counts, SEMAPHORES waiting
    threads) and each hotspot's share is within its own source, so shares are never added across
    sources: per frame the family's share is the highest any one source gives it.
    """

    shares: list[float]            # per live frame, 0 when the family did not appear
    waits: list[float | None]      # waits/s per live frame (None: the source has no rate)
    wait_ms: list[float | None]    # wait ms/s per live frame (None: the source has no timer)
    threads: list[float | None]    # SEMAPHORES: threads waiting on the family now
    names: dict[str, float]        # hotspot name → summed share, to name the worst
    measure: str                   # what the share is of: "wait time", "waits", "waiting threads"
    members: dict[str, Member] = field(default_factory=dict)   # per latch of the best source

    @property
    def top_name(self) -> str:
        return max(self.names, key=self.names.__getitem__) if self.names else "?"

    def ranked(self) -> list[tuple[str, Member]]:
        return sorted(self.members.items(), key=lambda kv: -kv[1].share_sum)

    def describe(self, frames: int, min_share: float = 0.02) -> str:
        """Each member with its own share, wait ms/s and waits/s, worst first ("LOCK_log 81 % of
        wait time (415 ms/s, 1,083 waits/s), LOCK_commit_ordered 7 % (37 ms/s, …)")."""
        parts = []
        for i, (name, m) in enumerate(self.ranked()):
            share = m.share_sum / frames if frames else 0.0
            if i and share < min_share:
                break
            figures = ", ".join(x for x in (
                f"{num(m.wait_ms_per_s())} ms/s" if m.wait_ms_per_s() is not None else "",
                f"{num(m.waits_per_s())} waits/s" if m.waits_per_s() is not None else "") if x)
            label = f"{pct(share)} of {self.measure}" if i == 0 else pct(share)
            parts.append(f"{name} {label}" + (f" ({figures})" if figures else ""))
        return ", ".join(parts)

    def lost_threads(self) -> float | None:
        """Thread-equivalents lost waiting on the family (wait s per s), None without a timer."""
        avg = mean([m for m in self.wait_ms if m is not None])
        return avg / 1000.0 if avg is not None else None


@dataclass
class Window:
    """The frames a rule judges. Build once per `advise` call; cheap accessors, O(frames)."""

    frames: list[Frame]                        # live frames of the rule's span: not stale, with rates
    history: list[Frame] = field(default_factory=list)   # every live frame the judge holds (the longest span)
    _latch_cache: dict[str, LatchStats] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, frames: Sequence[Frame], span_s: float | None = RECENT_S) -> "Window":
        """Live frames of the last `span_s` seconds (None: all of them)."""
        live = [f for f in frames if not f.stale and f.elapsed is not None]
        return cls(within(live, span_s), live)

    @property
    def ok(self) -> bool:
        return len(self.frames) >= MIN_FRAMES

    @property
    def start(self) -> float:
        # The first live frame's rates cover the interval before it, so the window starts there.
        first = self.frames[0]
        return first.time - (first.elapsed or 0.0)

    @property
    def end(self) -> float:
        return self.frames[-1].time

    @property
    def label(self) -> str:
        return span_label(self.start, self.end)

    def over(self, span_s: float | None) -> "Window":
        """The live frames of the last `span_s` seconds of the history (None: all of it)."""
        return Window(within(self.history, span_s), self.history)

    @property
    def last(self) -> Frame:
        return self.frames[-1]

    def values(self, get: Getter) -> list[float]:
        return [v for v in (get(f) for f in self.frames) if v is not None]

    def held(self, get: Getter, cond: Callable[[float], bool]) -> float:
        """Share of live frames where the value is known and `cond` holds."""
        if not self.frames:
            return 0.0
        return sum(1 for f in self.frames if (v := get(f)) is not None and cond(v)) / len(self.frames)

    def avg(self, get: Getter) -> float | None:
        return mean(self.values(get))

    def peak(self, get: Getter) -> float | None:
        vals = self.values(get)
        return max(vals) if vals else None

    @staticmethod
    def frame_family(f: Frame, family: "LatchFamily") -> "_FrameFamily":
        """One frame's hotspots of `family` (worked out once per frame)."""
        return _frame_family(f, family)

    def latch(self, family: "LatchFamily") -> LatchStats:
        if family.id not in self._latch_cache:
            self._latch_cache[family.id] = _latch_stats(self.frames, family)
        return self._latch_cache[family.id]


def within(live: list[Frame], span_s: float | None) -> list[Frame]:
    """The frames of `live` (oldest first) whose interval lies in the last `span_s` seconds: a
    frame's rates cover the interval before it, so it counts when that interval starts inside."""
    if span_s is None or not live:
        return live
    since = live[-1].time - span_s - 1e-6
    lo = len(live)
    while lo > 0 and live[lo - 1].time - (live[lo - 1].elapsed or 0.0) >= since:
        lo -= 1
    return live[lo:] if lo else live


@dataclass(frozen=True)
class LatchFamily:
    """Hotspots belonging to one structure, matched on name or created-at site (case-insensitive)."""

    id: str
    pattern: str                   # regex searched in "name site"
    exclude: str | None = None     # regex that disqualifies a hotspot the pattern caught

    def matches(self, h: Hotspot) -> bool:
        return _matches(self.pattern, self.exclude, h.name, h.site)


@lru_cache(maxsize=4096)   # a server has a few hundred latch names: match each once, not per frame
def _matches(pattern: str, exclude: str | None, name: str, site: str | None) -> bool:
    text = f"{name} {site or ''}"
    if re.search(pattern, text, re.IGNORECASE) is None:
        return False
    return exclude is None or re.search(exclude, text, re.IGNORECASE) is None


@dataclass
class _FrameFamily:
    """One frame's hotspots of one family, worked out once per frame (Frame.memo)."""

    by_source: dict[str, list[Hotspot]]
    share: float                       # the best source's summed share, capped at 1
    waits: float | None
    wait_ms: float | None
    threads: float | None
    kind: str | None                   # what the best source measures; None when nothing matched
    sources: frozenset[str]            # sources with a rate this frame (SEMAPHORES has none)
    # per source, each hotspot's (name, share, waits in the interval, wait ms in the interval):
    # what a window adds up, worked out once per frame rather than once per window holding it
    adds: tuple[tuple[str, tuple[tuple[str, float, float | None, float | None], ...]], ...] = ()


def _frame_family(f: Frame, family: LatchFamily) -> _FrameFamily:
    memo = memo_of(f)
    key = ("latch_family", family)
    hit = memo.get(key)
    if hit is not None:
        return hit
    by_source: dict[str, list[Hotspot]] = {}
    for h in f.hotspots:
        if family.matches(h) and not h.own:
            by_source.setdefault(h.source, []).append(h)
    best = max(by_source.values(), key=lambda hs: sum(h.share or 0.0 for h in hs), default=[])
    wait_ms = _total(h.wait_ms_per_s for h in best)
    kind = None
    if best:
        kind = ("waiting threads" if best[0].source == "semaphores"
                else "wait time" if wait_ms is not None else "waits")
    dt = f.elapsed or 0.0
    adds = tuple((src, tuple((h.name, h.share or 0.0, None if h.waits_per_s is None else h.waits_per_s * dt,
                              None if h.wait_ms_per_s is None else h.wait_ms_per_s * dt) for h in hs))
                 for src, hs in by_source.items())
    hit = memo[key] = _FrameFamily(
        by_source, min(sum(h.share or 0.0 for h in best), 1.0), _total(h.waits_per_s for h in best), wait_ms,
        _total(h.waiting_threads for h in best), kind, frozenset(h.source for h in f.hotspots) - {"semaphores"},
        adds)
    return hit


def _latch_stats(frames: Iterable[Frame], family: LatchFamily) -> LatchStats:
    st = LatchStats([], [], [], [], {}, "waits")
    measures: dict[str, int] = {}
    by_source_members: dict[str, dict[str, Member]] = {}
    source_seconds: dict[str, float] = {}
    names = st.names
    for f in frames:
        dt = f.elapsed or 0.0
        ff = _frame_family(f, family)
        for src, rows in ff.adds:
            members = by_source_members.setdefault(src, {})
            for name, share, waits, wait_ms in rows:
                names[name] = names.get(name, 0.0) + share
                m = members.get(name)
                if m is None:
                    m = members[name] = Member()
                m.share_sum += share
                if waits is not None:
                    m.waits += waits
                if wait_ms is not None:
                    m.wait_ms += wait_ms
                    m.timed = True
        # a rate covers the whole interval for every latch of its source, whether it waited or not
        for src in ff.sources:
            source_seconds[src] = source_seconds.get(src, 0.0) + dt
        st.shares.append(ff.share)
        st.waits.append(ff.waits)
        st.wait_ms.append(ff.wait_ms)
        st.threads.append(ff.threads)
        if ff.kind is not None:
            measures[ff.kind] = measures.get(ff.kind, 0) + 1
    if measures:
        st.measure = max(measures, key=measures.__getitem__)
    if by_source_members:
        best_src = max(by_source_members, key=lambda s: sum(m.share_sum for m in by_source_members[s].values()))
        st.members = by_source_members[best_src]
        for m in st.members.values():
            m.seconds = source_seconds.get(best_src, 0.0)
    return st


def _total(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


class Vars:
    """Global variables as the server printed them, with typed accessors."""

    def __init__(self, raw: Mapping[str, str]) -> None:
        self._raw = lower_keys(raw) if raw else {}

    def has(self, name: str) -> bool:
        return name in self._raw

    def text(self, name: str) -> str | None:
        return self._raw.get(name)

    def int(self, name: str) -> int | None:
        try:
            return int(float(self._raw[name]))
        except (KeyError, TypeError, ValueError):
            return None

    def on(self, name: str) -> bool | None:
        v = self._raw.get(name)
        if v is None:
            return None
        return v.strip().upper() in ("ON", "1", "YES", "TRUE")

    def show(self, name: str) -> str:
        """`name = value` for messages ("= 6291456 (6 MiB)" for sizes), or just the name when the
        server did not report it."""
        v = self._raw.get(name)
        if v is None:
            return name
        n = self.int(name)
        if name.endswith(("_size", "_capacity")) and n is not None and n >= 2**20:
            return f"{name} = {v} ({size_text(n)})"
        return f"{name} = {v}"


def running_sessions(f: Frame) -> float | None:
    """Client sessions inside the server: Threads_running without the monitor's own poll."""
    tr = f.throughput.threads_running
    return None if tr is None else max(tr - 1.0, 0.0)


def time_severity(lost_threads: float | None, running: float | None, critical_ok: bool = True) -> str:
    """Severity from the time a problem costs against the sessions running: a latch costing 0.2
    thread-equivalents of 16 running sessions is a detail, the same 0.2 of 1 is half the work."""
    if lost_threads is None:
        return "warning"
    share = lost_threads / max(running or 0.0, 1.0)
    if critical_ok and lost_threads >= 1.0 and share >= LOST_CRITICAL_SHARE:
        return "critical"
    return "warning" if share >= LOST_WARNING_SHARE else "info"


def advice(id: str, severity: str, message: str, evidence: str) -> Advice:
    assert severity in SEVERITIES
    return Advice(id=id, severity=severity, message=message, evidence=evidence)


Rule = Callable[[Window, Vars], Iterable[Advice]]


def span(seconds: float) -> Callable[[Rule], Rule]:
    """Declare the span in seconds a rule judges (`@span(TREND_S)`); undeclared: RECENT_S."""
    def mark(rule: Rule) -> Rule:
        rule.span_s = float(seconds)    # type: ignore[attr-defined]
        return rule
    return mark


def span_of(rule: Rule) -> float:
    """The span in seconds `rule` judges."""
    return float(getattr(rule, "span_s", RECENT_S))


# A pool with this share of its pages free is not short of memory: growing it cannot help.
POOL_FREE_PLENTY_PCT = 20.0


def pool_has_room(w: Window, v: Vars) -> float | None:
    """The buffer pool's average free share (%) when free pages are plentiful, else None.

    The page cleaner evicts to keep up to innodb_lru_scan_depth free pages per instance: a free
    list no larger than that reserve is eviction at work, not room (a 6 MB pool under scans is
    ~40 % free that way), so the free pages must exceed it."""
    free = w.avg(lambda f: f.flush.free_pct)
    if free is None or free < POOL_FREE_PLENTY_PCT:
        return None
    size, page = v.int("innodb_buffer_pool_size"), v.int("innodb_page_size") or 16384
    depth = v.int("innodb_lru_scan_depth") or 1024
    reserve = depth * (v.int("innodb_buffer_pool_instances") or 1)
    if size is not None and free / 100 * size / page <= reserve:
        return None
    return free
