"""Cursor: the one way to move through a store of samples and get frames out of it.

A store is a recording file (RecordingReader), the live session's samples (session_store: the
recent ones in memory, ring.SampleRing, then the older ones the session recorded) or a headless
session's newest ones (sample_tail.SampleTail): each hands out RawSamples by index. Live (the
engine appends each sample and asks for its frame: polled.PolledTimeline), the live TUI paused in
its history, the replay TUI, `snapshot` and `report` all go through a Cursor, so a moment gives
the same frame — numbers *and* findings — however it was reached (live is the newest index):

- `derived(i)` is sample i's frame from the good sample before it (two samples, nothing more),
  cached; `frame_at(i)` composes it with the findings the cursor's Judge gives at i, judged from
  the derived frames of the spans (in seconds) before it. The first frame of a recording costs
  two samples; its findings cost the frames of the longest span, derived once and cached, so
  stepping back or to the next finding derives nothing twice.
- `seek(t)`, `nearest(t)` and `step(n)` land on readable samples only: a damaged sample is a
  stale moment the cursor steps over, in both directions, never a wall. `frame_at` of a damaged
  index gives a stale frame saying why, for charts that show the gap.
- `gap(i, j)`: the recorded time between two samples for pacing (0 across a segment start, so
  the pause between two incident windows is not replayed).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Iterator, Protocol

from mysqltop.core.derive import derive
from mysqltop.core.frame import Frame
from mysqltop.timeline.judge import NOTHING, Judge, Judgement, Judgements, compose
from mysqltop.core.parsed import ParsedSample, parse_sample
from mysqltop.core.sample import Failure, RawSample
from mysqltop.errors import UserError

# Derived frames kept (~30-40 KB each with a busy server's latches and transactions; bench/timeline):
# the longest span a rule judges (core/advice.HORIZON_S, five minutes) at 0.25 s, and twenty
# minutes of stepping back at 1 s without deriving again.
CACHE = 1300
PARSED = 8            # parsed samples kept (each frame parses its own and the one before)
LOOK_BACK = 3600      # samples searched back for the previous good one (a long outage)


class SampleStore(Protocol):
    """Samples by absolute index: `first` (the oldest held) to len() - 1. sample(i) raises
    UserError when sample i is damaged."""

    @property
    def first(self) -> int: ...
    def __len__(self) -> int: ...
    def sample(self, i: int) -> RawSample: ...
    def time_or_none(self, i: int) -> float | None: ...
    def index_at(self, t: float) -> int: ...


class Spacing(Protocol):
    """How far apart a store's samples are in polls, for a store of every k-th sample
    (strided.py): `polls(j, i)` polls between samples j and i; `restarts(i)`: sample i has no
    sample before it to take rates from (the first of a recording segment)."""

    def polls(self, j: int, i: int) -> int: ...
    def restarts(self, i: int) -> bool: ...


class Cursor:
    def __init__(self, store: SampleStore, *, cache: int = CACHE, floor: int = 0, every_s: float = 0.0,
                 min_span_s: float | None = 0.0, spacing: Spacing | None = None,
                 judgements: Judgements | None = None, counters: bool = True) -> None:
        """`every_s`, `floor`, `min_span_s`, `judgements`: the judge's (timeline/judge.py).
        `spacing`: a store whose neighbours are more than one poll apart (strided.py).
        `counters`: derive's."""
        self.store = store
        self.counters = counters
        self.spacing = spacing
        self.cache_size = max(1, cache)
        self.index = 0
        self._derived: OrderedDict[int, Frame] = OrderedDict()
        self._parsed: OrderedDict[int, ParsedSample] = OrderedDict()
        self._shown: tuple[int, Judgement, Frame] | None = None    # the last composed frame
        self.derives = 0          # frames derived (not served from the cache): for benches and tests
        # A timeline opened at --start (report, snapshot --replay, the replay TUI alike) judges only
        # from there: samples before `floor` give rates and charts, not evidence, so a relief window
        # is not judged on the storm before it.
        self.judge = Judge(self, every_s=every_s, floor=max(0, floor), min_span_s=min_span_s, judgements=judgements)

    @property
    def floor(self) -> int:
        return self.judge.floor

    @floor.setter
    def floor(self, i: int) -> None:
        if i != self.judge.floor:
            self.judge.floor = max(0, i)
            self.judge.forget_from(0)

    def __len__(self) -> int:
        return len(self.store)

    # -- samples ----------------------------------------------------------------------------
    def sample(self, i: int) -> RawSample | None:
        """Sample i, or None when it is damaged."""
        try:
            return self.store.sample(i)
        except (UserError, IndexError):   # damaged (or a damaged page under it), or dropped out of memory
            return None

    @property
    def lo(self) -> int:
        """The oldest index the store still holds."""
        return self.store.first

    def readable(self, i: int) -> bool:
        return self.lo <= i < len(self) and self.sample(i) is not None

    def time_at(self, i: int) -> float | None:
        """Epoch of sample i (None: its time is damaged too)."""
        return self.store.time_or_none(i)

    def clock_at(self, i: int) -> float:
        """A time to show for index i: its own, else the nearest readable neighbour's."""
        for j in (i, i - 1, i + 1):
            if self.lo <= j < len(self):
                t = self.time_at(j)
                if t is not None:
                    return t
        k = self._readable_from(i, -1)
        k = k if k is not None else self._readable_from(i, 1)
        t = self.time_at(k) if k is not None else None
        return t if t is not None else 0.0

    def _readable_from(self, i: int, direction: int, lo: int | None = None, hi: int | None = None) -> int | None:
        """The first readable index from i (included) going `direction`, within [lo, hi]."""
        lo = self.lo if lo is None else lo
        hi = len(self) - 1 if hi is None else hi
        j = i
        while lo <= j <= hi:
            if self.readable(j):
                return j
            j += direction
        return None

    def next_readable(self, i: int, direction: int) -> int | None:
        """The readable sample after i (direction 1) or before it (-1), None at the end."""
        return self._readable_from(i + direction, direction)

    # -- moving -----------------------------------------------------------------------------
    def clamp(self, i: int) -> int:
        """Index i if readable, else the next readable one after it, else the last before it."""
        i = max(self.lo, min(len(self) - 1, i))
        j = self._readable_from(i, 1)
        if j is None:
            j = self._readable_from(i, -1)
        return i if j is None else j

    def go(self, i: int) -> int:
        self.index = self.clamp(i)
        return self.index

    def step(self, n: int) -> int:
        """Move n readable samples (negative: back), stepping over damaged ones; stops at the ends."""
        j = self.index
        direction = 1 if n > 0 else -1
        for _ in range(abs(n)):
            k = self._readable_from(j + direction, direction)
            if k is None:
                break
            j = k
        self.index = j
        return j

    def seek(self, t: float) -> int:
        """Go to the last readable sample at or before t (the first one when t is before them)."""
        i = self.store.index_at(t)
        j = self._readable_from(i, -1)
        return self.go(i if j is None else j)

    def nearest(self, t: float) -> int:
        """The readable sample closest to t (not moving there). Samples are never exactly an
        interval apart, so 'at or before' landed one early whenever the later one came late."""
        i = self.store.index_at(t)
        before = self._readable_from(i, -1)
        after = self._readable_from(i + 1, 1)
        best: int | None = None
        for k in (before, after):
            if k is None:
                continue
            tk = self.time_at(k)
            if tk is None:
                continue
            tb = self.time_at(best) if best is not None else None
            if best is None or tb is None or abs(tk - t) < abs(tb - t):
                best = k
        return self.clamp(i) if best is None else best

    def at_end(self, i: int | None = None) -> bool:
        """No readable sample after i (default: the cursor's index)."""
        return self._readable_from((self.index if i is None else i) + 1, 1) is None

    def gap(self, i: int, j: int) -> float:
        """Recorded seconds between samples i and j (monotonic, 0 across a segment start)."""
        a, b = self.sample(i), self.sample(j)
        if a is None or b is None:
            ta, tb = self.time_at(i), self.time_at(j)
            return max(0.0, tb - ta) if ta is not None and tb is not None else 0.0
        return max(0.0, b.mono - a.mono)

    # -- frames -----------------------------------------------------------------------------
    def frame_at(self, i: int) -> Frame:
        """Frame of sample i with its findings, as a replay from the start would show it."""
        frame = self.derived(i)
        if _damaged(frame):
            return frame
        judgement = self.findings_at(i)
        shown = self._shown
        if shown is not None and shown[0] == i and shown[1] is judgement:
            return shown[2]         # the same moment asked again: the same value
        out = compose(frame, judgement)
        self._shown = (i, judgement, out)
        return out

    def findings_at(self, i: int) -> Judgement:
        """The findings at sample i (cached by the judge)."""
        raw = self.sample(i)
        return self.judge.at(i, raw.variables) if raw is not None else NOTHING

    def span_start(self, i: int) -> int:
        """The oldest index a judgement at i reads (the longest span a rule judges, back from i's
        time; the floor without a horizon)."""
        stop = max(self.lo, self.floor)
        horizon, t = self.judge.horizon_s, self.time_at(i)
        if horizon is None or t is None:
            return stop
        k = self.store.index_at(t - horizon)
        tk = self.time_at(k)
        return max(stop, k + 1 if tk is not None and tk <= t - horizon else k)

    def missing_for_findings(self, i: int, limit: int) -> int:
        """How many frames a judgement at i would derive first, counted up to `limit` (0: its
        findings are judged, or every frame they read is derived)."""
        if self.judge.cached(i) is not None:
            return 0
        missing = 0
        for j in range(i, self.span_start(i) - 1, -1):
            if j not in self._derived:
                missing += 1
                if missing >= limit:
                    break
        return missing

    def frames(self, lo: int, hi: int) -> Iterator[tuple[int, Frame]]:
        """(index, frame) for each readable sample in [lo, hi], in order."""
        for i in range(lo, hi + 1):
            frame = self.frame_at(i)
            if not _damaged(frame):
                yield i, frame

    def forget_before(self, lo: int, since: int) -> None:
        """The store let go of samples since..lo-1: their frames and findings go too."""
        for j in range(since, lo):
            self._derived.pop(j, None)
            self._parsed.pop(j, None)
        self.judge.forget_before(lo, since)

    # FrameSeries: what the judge reads
    def frame_at_position(self, i: int) -> Frame | None:
        hit = self._derived.get(i)          # the judge reads a span every judgement: no LRU bookkeeping
        if hit is not None:
            return hit
        return self.derived(i) if self.lo <= i < len(self) else None

    def derived(self, i: int) -> Frame:
        """Sample i's frame from the good sample before it, no findings (cached)."""
        hit = self._derived.get(i)
        if hit is not None:
            self._derived.move_to_end(i)
            return hit
        raw = self.sample(i)
        if raw is None:
            frame = self._damaged_frame(i)
        else:
            self.derives += 1
            prev, prev_host, j = self._before(i)
            cur = self._parse(i, raw)
            prev_mutex = self._mutex_before(i) if cur.mutex and (prev is None or prev.mutex is None) else None
            polls = self.spacing.polls(j, i) if self.spacing is not None and j is not None else 1
            frame = derive_guarded(prev, cur, prev_host, polls, prev_mutex, counters=self.counters)
        self._derived[i] = frame
        if len(self._derived) > self.cache_size:
            self._derived.popitem(last=False)
        return frame

    def _before(self, i: int) -> tuple[ParsedSample | None, RawSample | None, int | None]:
        """The last good sample before i (parsed: its counters give i's rates), the last one
        with host counters, stale or not, and the good one's index."""
        host: RawSample | None = None
        for j in self._back_from(i):
            raw = self.sample(j)
            if raw is None:
                continue
            if host is None and raw.host is not None:
                host = raw
            if raw.error is None:
                return self._parse(j, raw), host, j
        return None, host, None

    def _back_from(self, i: int) -> range:
        """The indexes before i that may give its rates, newest first: back to LOOK_BACK samples,
        and not past the start of i's segment where the store is spaced (strided.py)."""
        stop = max(self.lo, i - LOOK_BACK) - 1
        spacing = self.spacing
        if spacing is not None:
            if spacing.restarts(i):
                return range(0)
            for j in range(i - 1, stop, -1):
                if spacing.restarts(j):
                    stop = j - 1
                    break
        return range(i - 1, stop, -1)

    def _mutex_before(self, i: int) -> ParsedSample | None:
        """The last sample before i with SHOW ENGINE INNODB MUTEX rows (an import's two mutex
        snapshots: the latch waits over the span between them)."""
        for j in self._back_from(i):
            raw = self.sample(j)
            if raw is not None and raw.error is None and raw.innodb_mutex:
                parsed = self._parse(j, raw)
                if parsed.mutex:
                    return parsed
        return None

    def _parse(self, j: int, raw: RawSample) -> ParsedSample:
        hit = self._parsed.get(j)
        if hit is None:
            hit = self._parsed[j] = parse_sample(raw) if raw.error is None else ParsedSample(raw)
            if len(self._parsed) > PARSED:
                self._parsed.popitem(last=False)
        return hit

    def history(self, i: int, n: int, fill: int = 0, last: Frame | None = None) -> list[Frame]:
        """Up to n frames ending at i (i's own with its findings, or `last`: its frame while they
        are judged), for charts and sparklines: the derived frames cached before it, and the
        `fill` samples before it derived when not (a range's first frame is shown before its
        charts are filled in)."""
        frame = self.frame_at(i) if last is None else last
        out = []
        for j in range(max(self.lo, i - n + 1), i):
            hit = self.derived(j) if j > i - fill - 1 else self._derived.get(j)
            if hit is not None:
                out.append(hit)
        out.append(frame)
        return out

    def missing(self, i: int, n: int) -> int:
        """How many of the n samples before i have no derived frame cached."""
        return sum(1 for j in range(max(self.lo, i - n), i) if j not in self._derived)

    def _damaged_frame(self, i: int) -> Frame:
        try:
            self.store.sample(i)
            why = "damaged sample"
        except UserError as exc:
            why = exc.message
        return Frame(time=self.clock_at(i), stale=True, errors={"recording": why})


def derive_guarded(prev: ParsedSample | None, cur: ParsedSample, prev_host: RawSample | None = None,
                   polls: int = 1, prev_mutex: ParsedSample | None = None, *, counters: bool = True) -> Frame:
    """derive(), and a stale frame saying why when it fails: a derive bug on odd input costs that
    frame, never a live session or a replay."""
    try:
        return derive(prev, cur, prev_host, polls, prev_mutex, counters=counters)
    except Exception as exc:  # noqa: BLE001 — see above
        return Frame(time=cur.raw.wall, stale=True, errors={"derive": f"{type(exc).__name__}: {exc}"[:300]},
                     failure=Failure.OTHER.value)


def _damaged(frame: Frame) -> bool:
    return frame.stale and "recording" in frame.errors
