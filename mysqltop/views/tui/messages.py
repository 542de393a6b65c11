"""Textual messages carrying the feeds' events (feed_events.py) to the App. Only the latest frame
matters, so frames coalesce."""

from __future__ import annotations

from textual.message import Message

from mysqltop.views.tui.feed_events import DeadlocksRead, FeedEvent, Failed, FrameShown, LivePolled, Notice, Opened


class FeedMessage(Message):
    def __init__(self, event: FeedEvent) -> None:
        super().__init__()
        self.event = event


class FrameReady(FeedMessage):
    """A new frame and the recent frames ending with it (oldest first) for trends and charts."""

    event: FrameShown

    def can_replace(self, message: Message) -> bool:
        # A newer frame supersedes one still queued: the UI never falls behind a fast feed.
        return isinstance(message, FrameReady)


class LiveTick(FeedMessage):
    event: LivePolled

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LiveTick)


class DeadlocksProgress(FeedMessage):
    event: DeadlocksRead

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, DeadlocksProgress)


class FeedOpened(FeedMessage):
    event: Opened


class FeedNotice(FeedMessage):
    event: Notice


class FeedFailed(FeedMessage):
    event: Failed


_MESSAGES: dict[type, type[FeedMessage]] = {FrameShown: FrameReady, LivePolled: LiveTick, Opened: FeedOpened,
                                            DeadlocksRead: DeadlocksProgress, Notice: FeedNotice, Failed: FeedFailed}


def to_message(event: FeedEvent) -> FeedMessage:
    return _MESSAGES[type(event)](event)
