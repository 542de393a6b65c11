"""Where the view is on the timeline: plain data, no Textual, so a feed can describe itself before
Textual has loaded (and a headless caller can use the feeds without it)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ViewMode(enum.Enum):
    """What the timeline is: a live server (its history in memory, the newest sample is now) or a
    recording file. The same keys move through both; a few apply to one only (keymap.py)."""

    LIVE = "live"
    REPLAY = "replay"


@dataclass(frozen=True)
class Position:
    """Where the feed is: following live, or a sample of the timeline (live history or recording)."""

    mode: ViewMode
    interval: float | None = None      # live: the poll interval (s), as the engine holds it
    recording: str | None = None       # live: file being recorded to
    recording_stopped: str | None = None   # live: why recording stopped ("disk full"), until restarted
    recording_paused: str | None = None    # live: why recording waits ("disk full"), until it resumes
    index: int | None = None           # the sample shown (None: following live)
    count: int | None = None           # samples in the timeline (one past the newest index)
    first: int = 0                     # the oldest index still held (live history drops old ones)
    sample_time: float | None = None   # epoch of the sample shown
    span: tuple[float, float] | None = None   # epochs of the oldest and newest samples held
    playing: bool = True               # live: following live (False: paused in history); replay: playing
    speed: float = 1.0
    ended: bool = False                # the newest sample is shown (replay: playback stopped there)
    gap_s: float | None = None         # recorded seconds since the sample before this one
    behind_s: float | None = None      # live, paused: how far the sample shown is behind the newest
    judging: bool = False              # the findings at the sample shown are still being judged
    history_recorded: bool = False     # live: the history reaches back past memory into the recording

    @property
    def live(self) -> bool:
        """Following a live server (the newest sample is on screen as it comes)."""
        return self.mode is ViewMode.LIVE and self.playing
