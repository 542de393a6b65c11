"""SampleRing: the live session's recent samples, in memory, as a store the timeline cursor reads.

The live TUI steps back through this exactly as through a recording file: both are stores of
RawSamples by index (recording/cursor.py). Indexes are absolute and never reused — index i is the
i-th sample of the session — so a cursor or a frame cache keyed by index stays right while old
samples drop out at the front.

Memory is bounded by `capacity` samples and kept small the way the recording file does it: each
sample's text (format.sample_text) is delta-coded against the one before (codec.py), with a
keyframe coded alone every KEYFRAME_EVERY samples; the server identity and the variables are held
once per change, not once per sample. Samples drop out in whole keyframe groups, so every sample
held decodes. bench/history measures the bytes per sample held.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict, deque
from dataclasses import dataclass

from mysqltop.core.sample import RawSample, ServerIdentity
from mysqltop.errors import UserError
from mysqltop.recording import codec
from mysqltop.recording.format import parse_sample_text, sample_text

KEYFRAME_EVERY = 20      # bounds the samples decoded to reach any one (as in a recording)
DEFAULT_SECONDS = 3600   # the live TUI keeps the last hour (at its interval; see capacity_for)
MAX_SAMPLES = 14_400     # … but never more samples than this (an hour at 0.25 s)
_DECODED = 48            # decoded texts kept: stepping back through a chain decodes it once


def capacity_for(interval: float, seconds: float = DEFAULT_SECONDS) -> int:
    """Samples that cover `seconds` of history at `interval` (at least two keyframe groups)."""
    return max(2 * KEYFRAME_EVERY, min(MAX_SAMPLES, int(seconds / max(interval, 1e-3)) + 1))


@dataclass(frozen=True)
class _Entry:
    wall: float
    mono: float
    key: bool                       # coded alone (else against the entry before it)
    payload: bytes
    server: ServerIdentity
    variables: dict[str, str]


class SampleRing:
    def __init__(self, capacity: int = MAX_SAMPLES) -> None:
        self.capacity = max(2 * KEYFRAME_EVERY, capacity)
        self._entries: deque[_Entry] = deque()
        self._first = 0                 # absolute index of _entries[0]
        self._prev: codec.Decoded | None = None
        self._since_key = 0
        self._decoded: OrderedDict[int, codec.Decoded] = OrderedDict()
        self._samples: OrderedDict[int, RawSample] = OrderedDict()

    # -- the store the cursor reads ---------------------------------------------------------
    def __len__(self) -> int:
        """One past the newest index (indexes below `first` have dropped out)."""
        return self._first + len(self._entries)

    @property
    def first(self) -> int:
        return self._first

    @property
    def held(self) -> int:
        return len(self._entries)

    def payload_bytes(self) -> int:
        return sum(len(e.payload) for e in self._entries)

    def sample(self, i: int) -> RawSample:
        hit = self._samples.get(i)
        if hit is not None:
            return hit
        e = self._entry(i)
        try:
            raw = parse_sample_text(self._decode(i).text, e.wall, e.mono, e.server, e.variables)
        except (codec.CodecError, ValueError, TypeError) as exc:     # never expected: say so as damage
            raise UserError(f"live history: sample {i} does not decode ({exc})", 1) from None
        self._samples[i] = raw
        if len(self._samples) > 8:
            self._samples.popitem(last=False)
        return raw

    def time_or_none(self, i: int) -> float | None:
        if not self._first <= i < len(self):
            return None
        return self._entries[i - self._first].wall

    def index_at(self, t: float) -> int:
        """The last sample at or before t (the first held when t is earlier)."""
        walls = _Walls(self._entries)
        k = bisect.bisect_right(walls, t) - 1
        return self._first + max(0, k)

    # -- appending --------------------------------------------------------------------------
    def append(self, raw: RawSample) -> int:
        """Hold `raw` (the oldest keyframe group drops out when full); its index."""
        key = self._prev is None or self._since_key >= KEYFRAME_EVERY
        payload, decoded = codec.encode(sample_text(raw), None if key else self._prev)
        last = self._entries[-1] if self._entries else None
        server = last.server if last is not None and last.server == raw.server else raw.server
        variables = last.variables if last is not None and last.variables == raw.variables else raw.variables
        self._entries.append(_Entry(raw.wall, raw.mono, key, payload, server, variables))
        self._prev = decoded
        self._since_key = 1 if key else self._since_key + 1
        index = len(self) - 1
        self._decoded[index] = decoded
        self._trim_cache(self._decoded, _DECODED)
        while len(self._entries) > self.capacity:
            self._drop_group()
        return index

    def _drop_group(self) -> None:
        """Drop the oldest keyframe and the deltas that lean on it."""
        self._pop()
        while self._entries and not self._entries[0].key:
            self._pop()

    def _pop(self) -> None:
        self._entries.popleft()
        self._decoded.pop(self._first, None)
        self._samples.pop(self._first, None)
        self._first += 1

    # -- decoding ---------------------------------------------------------------------------
    def _entry(self, i: int) -> _Entry:
        if not self._first <= i < len(self):
            raise IndexError(f"sample {i} is not held (held: {self._first}..{len(self) - 1})")
        return self._entries[i - self._first]

    def _decode(self, i: int) -> codec.Decoded:
        hit = self._decoded.get(i)
        if hit is not None:
            self._decoded.move_to_end(i)
            return hit
        j = i
        while not self._entry(j).key and j - 1 not in self._decoded:
            j -= 1
        ref = None if self._entry(j).key else self._decoded[j - 1]
        for k in range(j, i + 1):
            ref = codec.decode(self._entry(k).payload, None if self._entry(k).key else ref)
            self._decoded[k] = ref
        self._trim_cache(self._decoded, _DECODED)
        assert ref is not None
        return ref

    @staticmethod
    def _trim_cache(cache: OrderedDict, size: int) -> None:  # type: ignore[type-arg]
        while len(cache) > size:
            cache.popitem(last=False)


class _Walls:
    """The entries' wall times as a sequence bisect can search (no copy)."""

    def __init__(self, entries: deque[_Entry]) -> None:
        self._entries = entries

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, k: int) -> float:
        return self._entries[k].wall
