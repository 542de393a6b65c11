"""SampleRing: the live session's recent samples, in memory, as a store the timeline cursor reads.

The live TUI steps back through this exactly as through a recording file: both are stores of
RawSamples by index (timeline/cursor.py). Indexes are absolute and never reused — index i is the
i-th sample of the session — so a cursor or a frame cache keyed by index stays right while old
samples drop out at the front.

It keeps `seconds` of history (the last hour) by the samples' monotonic time, whatever the
interval — a change of interval (`+`/`-`) keeps the history's length in seconds, not in samples
— and never more than `capacity` samples (an hour at the fastest interval; a clock that stands
still). Memory is kept small: each sample's text (format.sample_text,
as in a recording) is deflated with the text of the last keyframe as preset dictionary (successive
polls share almost every line), a keyframe deflated alone every KEYFRAME_EVERY samples; the server
identity and the variables are held once per change, not once per sample. Any sample decodes from
its keyframe and itself. Samples drop out in whole keyframe groups, so every sample held decodes.
The recording codec (codec.py) packs twice as tight but costs five times the CPU per poll, which
the live TUI pays every second whether or not anyone steps back; bench/history measures both
bytes per sample held and CPU per append.
"""

from __future__ import annotations

import bisect
import zlib
from collections import OrderedDict, deque
from dataclasses import dataclass

from mysqltop.core.sample import RawSample, ServerIdentity
from mysqltop.errors import UserError
from mysqltop.recording.format import KEYFRAME_EVERY, parse_sample_text, sample_text

DEFAULT_SECONDS = 3600   # the live TUI keeps the last hour, whatever the interval
MAX_SAMPLES = 14_400     # … but never more samples than this (an hour at 0.25 s, the fastest)
LEVEL = 6
ZDICT = 32768            # deflate's window: the preset dictionary's tail that can be referred to
_KEYS = 4                # keyframe texts kept decoded (each serves its KEYFRAME_EVERY samples)


@dataclass(frozen=True)
class _Entry:
    wall: float
    mono: float
    key: int                        # index of the keyframe it was deflated against (itself: alone)
    payload: bytes
    server: ServerIdentity
    variables: dict[str, str]


class SampleRing:
    def __init__(self, capacity: int = MAX_SAMPLES, seconds: float = DEFAULT_SECONDS) -> None:
        self.capacity = max(2 * KEYFRAME_EVERY, capacity)
        self.seconds = seconds
        self._entries: deque[_Entry] = deque()
        self._first = 0                 # absolute index of _entries[0]
        self._key: tuple[int, bytes] | None = None     # (index, text) of the newest keyframe
        self._keys: OrderedDict[int, bytes] = OrderedDict()   # decoded keyframe texts
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
            raw = parse_sample_text(self._text(i, e).decode(), e.wall, e.mono, e.server, e.variables)
        except (zlib.error, ValueError, TypeError) as exc:     # never expected: say so as damage
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
        k = bisect.bisect_right(_Walls(self._entries), t) - 1
        return self._first + max(0, k)

    # -- appending --------------------------------------------------------------------------
    def append(self, raw: RawSample) -> int:
        """Hold `raw` (the oldest keyframe group drops out when full); its index."""
        index = len(self)
        text = sample_text(raw).encode()
        if self._key is None or index - self._key[0] >= KEYFRAME_EVERY:
            self._key = (index, text)
            payload = zlib.compress(text, LEVEL)
        else:
            z = zlib.compressobj(LEVEL, zdict=self._key[1][-ZDICT:])
            payload = z.compress(text) + z.flush()
        last = self._entries[-1] if self._entries else None
        server = last.server if last is not None and last.server == raw.server else raw.server
        variables = last.variables if last is not None and last.variables == raw.variables else raw.variables
        self._entries.append(_Entry(raw.wall, raw.mono, self._key[0], payload, server, variables))
        while len(self._entries) > self.capacity or self._older_than_kept():
            self._drop_group()
        # Held decoded: the cursor derives this sample's frame now and the next one's from it.
        self._samples[index] = raw
        if len(self._samples) > 8:
            self._samples.popitem(last=False)
        return index

    def _older_than_kept(self) -> bool:
        """The oldest keyframe group lies wholly before the `seconds` kept (the sample after it
        is at least that old), so dropping it keeps the history's length in seconds."""
        after = self._entries[0].key + KEYFRAME_EVERY - self._first
        return (after < len(self._entries)
                and self._entries[-1].mono - self._entries[after].mono >= self.seconds)

    def _drop_group(self) -> None:
        """Drop the oldest keyframe and the samples deflated against it."""
        key = self._entries[0].key
        while self._entries and self._entries[0].key == key:
            self._entries.popleft()
            self._samples.pop(self._first, None)
            self._keys.pop(self._first, None)
            self._first += 1

    # -- decoding ---------------------------------------------------------------------------
    def _entry(self, i: int) -> _Entry:
        if not self._first <= i < len(self):
            raise IndexError(f"sample {i} is not held (held: {self._first}..{len(self) - 1})")
        return self._entries[i - self._first]

    def _text(self, i: int, e: _Entry) -> bytes:
        if e.key == i:
            return self._key_text(i)
        z = zlib.decompressobj(zdict=self._key_text(e.key)[-ZDICT:])
        return z.decompress(e.payload) + z.flush()

    def _key_text(self, k: int) -> bytes:
        hit = self._keys.get(k)
        if hit is None:
            hit = self._keys[k] = zlib.decompress(self._entry(k).payload)
            while len(self._keys) > _KEYS:
                self._keys.popitem(last=False)
        else:
            self._keys.move_to_end(k)
        return hit


class _Walls:
    """The entries' wall times as a sequence bisect can search (no copy)."""

    def __init__(self, entries: deque[_Entry]) -> None:
        self._entries = entries

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, k: int) -> float:
        return self._entries[k].wall
