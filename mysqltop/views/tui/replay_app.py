"""The replay TUI over a recording file, used by `replay` and `demo`: FILE and --start are
checked (one line each) before the screen opens."""

from __future__ import annotations

from typing import Any


def open_recording(path: str) -> Any:
    """The reader, or one line saying what is wrong with FILE (before the screen opens)."""
    from mysqltop.errors import UserError
    from mysqltop.recording.reader import RecordingReader

    reader = RecordingReader(path)          # raises UserError for a file that is not a recording
    if len(reader) == 0:
        reader.close()
        raise UserError(f"{path}: the recording holds no samples yet", 1)
    return reader


def start_index(reader: Any, when: str | None) -> int:
    from mysqltop.core.when import WhenError, parse_when
    from mysqltop.errors import UserError

    if not when:
        return 0
    meta = reader.meta
    try:
        t = parse_when(when, meta.start, meta.end)
    except WhenError as exc:
        raise UserError(f"--start {when}: {exc}", 2) from None
    return int(reader.index_at(t))


def replay_app(path: str, *, start: str | None = None, speed: float = 1.0, name: str | None = None,
               playing: bool = True) -> Any:
    """Shared by `replay` and `demo`: open and validate FILE and --start, build the App."""
    from pathlib import Path

    from mysqltop.core.pacing import check_speed
    from mysqltop.core.pipeline import FramePipeline
    from mysqltop.core.when import parse_when
    from mysqltop.errors import UserError
    from mysqltop.views.tui.app import MysqltopApp
    from mysqltop.views.tui.replay_feed import ReplayFeed

    check_speed(speed)
    reader = open_recording(path)
    try:
        first = start_index(reader, start)
    except UserError:
        reader.close()
        raise
    # The reader moves to the feed thread now and is used only there.
    feed = ReplayFeed(lambda: reader, FramePipeline, start=first, speed=speed, playing=playing)
    return MysqltopApp(feed, "replay", source_name=name or Path(path).name, parse_when=parse_when)


def replay_tui(path: str, command: str = "replay", **kw: Any) -> int:
    from mysqltop.views.terminal import check_terminal

    app = replay_app(path, **kw)            # FILE and --start first: their errors say more
    check_terminal(command)
    app.run()
    return 0
