"""Where a feed is (live interval and recording, or a replay's place): plain data, no Textual, so
the live feed can describe itself before Textual has loaded."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Position:
    """Where the feed is: live with its interval, or a replay index in a recording."""

    mode: str                          # "live" | "replay"
    interval: float = 1.0              # live poll interval (s)
    recording: str | None = None       # live: file being recorded to
    recording_stopped: str | None = None   # live: why recording stopped ("disk full"), until restarted
    index: int | None = None           # replay: sample index shown
    count: int | None = None           # replay: samples in the recording
    sample_time: float | None = None   # epoch of the sample shown
    playing: bool = True
    speed: float = 1.0
    ended: bool = False                # replay reached the last sample
    gap_s: float | None = None         # replay: recorded seconds since the sample before this one
