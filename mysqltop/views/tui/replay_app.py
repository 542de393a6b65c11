"""The replay TUI over a recording file, used by `replay` and `demo`: FILE and --start are
checked (one line each) before the screen opens, by the same timeline Range that `report` and
`snapshot --replay` read through, so --start lands on the same sample in all three."""

from __future__ import annotations

from typing import Any

from mysqltop.views.tui.position import ViewMode


def open_recording(path: str) -> Any:
    """The reader, or one line saying what is wrong with FILE (before the screen opens)."""
    from mysqltop.errors import UserError
    from mysqltop.recording.reader import RecordingReader

    reader = RecordingReader(path)          # raises UserError for a file that is not a recording
    if len(reader) == 0:
        reader.close()
        raise UserError(f"{path}: the recording holds no samples yet", 1)
    return reader


def replay_app(path: str, *, start: str | None = None, speed: float = 1.0, name: str | None = None,
               playing: bool = True) -> Any:
    """Shared by `replay` and `demo`: open and validate FILE and --start, build the App."""
    from pathlib import Path

    from mysqltop.core.pacing import check_speed
    from mysqltop.core.when import parse_when
    from mysqltop.timeline.range import Range
    from mysqltop.views.tui.app import MysqltopApp
    from mysqltop.views.tui.replay_feed import ReplayFeed

    check_speed(speed)
    src = Range(path, start=start, on_damage=None)   # damage is said in the TUI, as it is met
    try:
        first = src.cursor.next_readable(src.first - 1, 1)
        if first is None:
            raise src.unreadable()
    except BaseException:
        src.close()
        raise
    reader = src.reader      # moves to the feed thread now and is used only there
    feed = ReplayFeed(lambda: reader, start=first, floor=src.first, speed=speed, playing=playing)
    return MysqltopApp(feed, ViewMode.REPLAY, source_name=name or Path(path).name, parse_when=parse_when)


def replay_tui(path: str, command: str = "replay", **kw: Any) -> int:
    from mysqltop.views.terminal import check_terminal

    app = replay_app(path, **kw)            # FILE and --start first: their errors say more
    check_terminal(command)
    app.run()
    return 0
