"""What a feed reports: plain immutable data, no Textual. The App turns each into a Textual message
(messages.py); a headless caller can consume them as they are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from mysqltop.core.frame import Frame
from mysqltop.timeline.deadlock_history import DeadlocksAt
from mysqltop.views.tui.position import Position


@dataclass(frozen=True)
class TimelineInfo:
    """What the feed learnt when it opened a recording."""

    count: int
    start: float
    end: float
    bookmarks: tuple[tuple[float, str], ...] = ()
    server: str = ""
    interval: float | None = None


@dataclass(frozen=True)
class FrameShown:
    """A frame to show and the recent frames ending with it (oldest first), for charts; the
    timeline's deadlocks up to it (None: a replay has not read that far yet)."""

    frame: Frame
    trend: tuple[Frame, ...]
    position: Position
    deadlocks: DeadlocksAt | None = None


@dataclass(frozen=True)
class LivePolled:
    """Live, while paused in history: a poll came in (freshness, outages, how far behind)."""

    frame: Frame
    position: Position


@dataclass(frozen=True)
class DeadlocksRead:
    """A replay has read the deadlocks of its first `read` samples of `total`; `deadlocks`: those
    up to the sample shown when it said so (None: not read that far yet)."""

    read: int
    total: int
    deadlocks: DeadlocksAt | None = None


@dataclass(frozen=True)
class Opened:
    info: TimelineInfo


@dataclass(frozen=True)
class Notice:
    """Something the user should see briefly (recording started, no more bookmarks, errors)."""

    text: str
    severity: str = "information"


@dataclass(frozen=True)
class Failed:
    """The feed thread died; the App shows why and stays usable (quit, help)."""

    text: str


FeedEvent = Union[FrameShown, LivePolled, DeadlocksRead, Opened, Notice, Failed]
