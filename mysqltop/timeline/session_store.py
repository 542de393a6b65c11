"""SessionStore: the live session's whole timeline as one store the timeline cursor reads — its
recent samples from memory (ring.SampleRing), older ones from what the session recorded.

Indexes are the session's: index i is the i-th sample polled, whoever holds it. The ring holds
the newest (the last hour, whatever the interval). When the live TUI records (`--record FILE`, or
`r`), each recording made during the session is a span of session indexes [start, end): recording
starts and stops between polls, and the engine appends every sample here (`append`) and writes it
to the recorder in the same poll, so a recording started when the ring had `start` samples holds the session's samples from `start` on, one for one,
numbered in the file from the count it had then (a file appended to keeps its earlier samples
before that; its segments' monotonic shift is taken out, so Δt across the ring/recording seam is
the session's). Samples still in the ring come from the ring; older ones from their recording,
through a RecordingReader opened when first needed (a sample the ring has dropped was written
long before). Samples polled while nothing recorded exist nowhere once out of the ring: `first`
is the oldest sample the ring or a recording holds, and indexes between spans read as not held.

A recording that cannot serve — unreadable, removed, replaced, or no longer holding this
session's samples where they should be (the newest sample it should hold is checked by time
against the ring, or against the time kept when recording stopped) — costs its samples only:
they read as damaged (UserError, which the cursor steps over) and `first` falls back to what is
still held. Nothing here raises past the SampleStore protocol, so live goes on. Readers are
closed by `release()` — on leaving the history, and before a recording is closed, so the
recorder still leaves one self-contained file (no -wal beside it).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from mysqltop.core.sample import RawSample
from mysqltop.errors import UserError
from mysqltop.timeline.ring import SampleRing
from mysqltop.recording.reader import RecordingReader


@dataclass
class _Span:
    """One recording made during the session."""

    path: str
    start: int                         # session index of its first sample
    file_first: int = 0                # that sample's number in the file
    end: int | None = None             # one past its last session index (None: still recording)
    last_time: float | None = None     # epoch of sample end - 1, kept when recording stopped
    start_time: float | None = None    # epoch of sample `start`, once read
    reader: RecordingReader | None = None
    why: str | None = None             # why it cannot serve older samples (None: usable)

    def seq(self, i: int) -> int:
        return self.file_first + i - self.start


class SessionStore:
    def __init__(self, ring: SampleRing) -> None:
        self.ring = ring
        self._spans: list[_Span] = []

    # -- what the session recorded ----------------------------------------------------------
    def recording_started(self, path: str | os.PathLike[str]) -> None:
        """The session records to `path` from its next sample on: call once the recorder has the
        file open and before the next poll (its sample count then numbers the next sample)."""
        self.recording_ended(len(self.ring))
        span = _Span(str(path), len(self.ring))
        try:
            with RecordingReader(path) as reader:
                span.file_first = len(reader)
        except Exception as exc:       # any failure costs the recorded history only, never live
            span.why = _cannot(span.path, exc)
        self._spans.append(span)

    def recording_ended(self, next_index: int) -> None:
        """Recording stopped (by `r`, or an error): it holds the session's samples up to
        `next_index` - 1, which stay readable. Call before the recorder closes the file."""
        span = next((s for s in self._spans if s.end is None), None)
        if span is None:
            return
        span.end = max(span.start, min(next_index, len(self.ring)))
        span.last_time = self.ring.time_or_none(span.end - 1) if span.end > span.start else None
        self.release()
        if span.end == span.start:
            self._spans.remove(span)

    def release(self) -> None:
        """Close the readers (they open again when a recorded sample is asked for)."""
        for span in self._spans:
            if span.reader is not None:
                reader, span.reader = span.reader, None
                try:
                    reader.close()
                except Exception:
                    pass

    close = release

    @property
    def recorded(self) -> bool:
        """The timeline reaches back past the ring into a recording."""
        return self.first < self.ring.first

    # -- the store the cursor reads ---------------------------------------------------------
    def append(self, raw: RawSample) -> int:
        """The session's next sample (into the ring); its index."""
        return self.ring.append(raw)

    def __len__(self) -> int:
        return len(self.ring)

    @property
    def first(self) -> int:
        """The oldest sample the ring or a usable recording holds."""
        lo = self.ring.first
        for span in self._spans:
            if span.why is None and span.start < self._end(span):
                return min(lo, span.start)
        return lo

    def sample(self, i: int) -> RawSample:
        if self._in_ring(i):
            return self.ring.sample(i)
        span = self._span_of(i)
        if span is None:
            raise UserError(f"live history: sample {i} was not recorded and is no longer in memory", 1)
        reader = self._reader(span)
        seq = span.seq(i)
        try:
            if seq >= len(reader):
                reader.refresh()
            raw = reader.sample(seq)
            shift = reader.mono_shift(seq)
        except UserError:              # a damaged sample (DamagedSample) or page: that sample only
            raise
        except Exception as exc:
            raise UserError(f"live history: sample {i} is not readable in {span.path} ({exc})", 1) from None
        return dataclasses.replace(raw, mono=raw.mono - shift) if shift else raw

    def time_or_none(self, i: int) -> float | None:
        if self._in_ring(i):
            return self.ring.time_or_none(i)
        span = self._span_of(i)
        if span is None or span.why is not None:
            return None
        if i == span.start and span.start_time is not None:
            return span.start_time
        try:
            t = self._reader(span).time_or_none(span.seq(i))
        except Exception:
            return None
        if i == span.start:
            span.start_time = t
        return t

    def index_at(self, t: float) -> int:
        """The last sample at or before t (the first held when t is earlier)."""
        ring = self.ring
        t0 = ring.time_or_none(ring.first)
        lo = self.first
        if t0 is not None and (t >= t0 or lo >= ring.first):
            return ring.index_at(t)
        best, a, b = None, lo, ring.first - 1      # bisect the recorded part, before the ring
        while a <= b:
            m = (a + b) // 2
            j, tj = self._known_at_or_before(m, a)
            if j is None or tj is None:
                a = m + 1
            elif tj <= t:
                best, a = j, m + 1
            else:
                b = j - 1
        return lo if best is None else best

    # -- internals --------------------------------------------------------------------------
    def _in_ring(self, i: int) -> bool:
        return self.ring.first <= i < len(self.ring)

    def _end(self, span: _Span) -> int:
        return len(self.ring) if span.end is None else span.end

    def _span_of(self, i: int) -> _Span | None:
        for span in reversed(self._spans):
            if span.start <= i < self._end(span):
                return span
        return None

    def _known_at_or_before(self, m: int, lo: int) -> tuple[int | None, float | None]:
        """The nearest index in [lo, m] with a readable time, and that time (indexes nothing
        holds are skipped in one go: between two recordings there may be days of them)."""
        j = m
        while j >= lo:
            span = None if self._in_ring(j) else self._span_of(j)
            if span is not None and span.why is not None:
                j = span.start - 1
                continue
            if span is None and not self._in_ring(j):
                j = max((self._end(s) - 1 for s in self._spans if self._end(s) - 1 < j), default=lo - 1)
                continue
            tj = self.time_or_none(j)
            if tj is not None:
                return j, tj
            j -= 1
        return None, None

    def _reader(self, span: _Span) -> RecordingReader:
        """The span's reader, opened (and checked) when first needed; UserError: unusable."""
        if span.why is None and span.reader is None:
            try:
                reader = RecordingReader(span.path)
            except Exception as exc:
                span.why = _cannot(span.path, exc)
            else:
                span.why = self._mismatch(span, reader)
                if span.why is None:
                    span.reader = reader
                else:
                    reader.close()
        if span.why is not None:
            raise UserError(span.why, 1)
        assert span.reader is not None
        return span.reader

    def _mismatch(self, span: _Span, reader: RecordingReader) -> str | None:
        """Why the file does not hold this session's samples where the span says (None: it
        does): the newest sample it should hold has the time the ring (or the stop) saw."""
        k = self._end(span) - 1
        if k < span.start:
            return None
        want = self.ring.time_or_none(k) if self._in_ring(k) else span.last_time
        if want is None:
            return None
        try:
            seq = span.seq(k)
            if seq >= len(reader):
                reader.refresh()
            got = reader.time_or_none(seq) if seq < len(reader) else None
        except Exception as exc:
            return _cannot(span.path, exc)
        if got != want:
            return f"{span.path} no longer holds this session's samples (replaced, rotated or cut short)"
        return None


def _cannot(path: str, exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return f"the recorded history in {path} cannot be read ({message})"
