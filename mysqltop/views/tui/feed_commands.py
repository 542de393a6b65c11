"""Commands from the App to its feed thread: one small immutable type each.

The App sends them with `Feed.send`; the feed applies them between polls (live) or samples
(replay) in its own thread, so the UI never waits on a poll or a SQLite read. The moving commands
mean the same on either timeline: live, they pause in the history held in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class Stop:
    """End the feed thread (sent by Feed.stop)."""


@dataclass(frozen=True)
class SetInterval:
    """Live: poll every `seconds` from now on."""

    seconds: float


@dataclass(frozen=True)
class ToggleRecord:
    """Live: start recording (to `path`, or a file named by the time), or stop if recording."""

    path: str | None = None


@dataclass(frozen=True)
class Play:
    """Play (True), pause (False) or toggle (None). Live: pause in history / back to live."""

    playing: bool | None = None


@dataclass(frozen=True)
class Step:
    """Pause and move `n` samples (negative: back)."""

    n: int


@dataclass(frozen=True)
class SeekTime:
    """Pause at the sample at or before epoch `t`."""

    t: float


@dataclass(frozen=True)
class Jump:
    """Show the sample nearest `seconds` from the one shown."""

    seconds: float


@dataclass(frozen=True)
class NextFinding:
    """Go to where the next (+1) or previous (-1) finding starts (a finding absent just before)."""

    direction: int


@dataclass(frozen=True)
class ToEnd:
    """Live: back to live. Replay: the last sample."""


@dataclass(frozen=True)
class Speed:
    """Replay: play faster (+1) or slower (-1) along the speed ladder."""

    direction: int


@dataclass(frozen=True)
class NextBookmark:
    """Replay: go to the next bookmark (wrapping to the first)."""


@dataclass(frozen=True)
class ListLockHolders:
    """Live: run the statement that makes the server list lock holders (the user confirmed it)."""


FeedCommand = Union[Stop, SetInterval, ToggleRecord, Play, Step, SeekTime, Jump, NextFinding, ToEnd, Speed,
                    NextBookmark, ListLockHolders]
