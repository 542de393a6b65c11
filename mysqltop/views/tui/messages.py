"""Messages from the feed thread to the App. Only the latest frame matters, so frames coalesce."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from mysqltop.core.frame import Frame
from mysqltop.views.tui.position import Position


@dataclass(frozen=True)
class ReplayInfo:
    """What the replay feed learnt when it opened the recording."""

    count: int
    start: float
    end: float
    bookmarks: tuple[tuple[float, str], ...] = ()
    server: str = ""
    interval: float | None = None


class FrameReady(Message):
    """A new frame and the recent frames ending with it (oldest first) for trends and charts."""

    def __init__(self, frame: Frame, trend: tuple[Frame, ...], position: Position) -> None:
        super().__init__()
        self.frame = frame
        self.trend = trend
        self.position = position

    def can_replace(self, message: Message) -> bool:
        # A newer frame supersedes one still queued: the UI never falls behind a fast feed.
        return isinstance(message, FrameReady)


class FeedOpened(Message):
    def __init__(self, info: ReplayInfo) -> None:
        super().__init__()
        self.info = info


class FeedNotice(Message):
    """Something the user should see briefly (recording started, no more bookmarks, errors)."""

    def __init__(self, text: str, severity: str = "information") -> None:
        super().__init__()
        self.text = text
        self.severity = severity


class FeedFailed(Message):
    """The feed thread died; the App shows why and stays usable (quit, help)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
