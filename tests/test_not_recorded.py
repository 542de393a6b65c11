"""A recording without a source says "not recorded" where that source would show, instead of
showing its absence as a fact (the bundled incident predates lock-wait capture)."""

from __future__ import annotations

from pathlib import Path

from mysqltop.timeline.polled import PolledTimeline
from mysqltop.recording.reader import RecordingReader
from mysqltop.views import locks_text
from mysqltop.views.tui.widgets.locks_pane import copy_kill_line

ROOT = Path(__file__).resolve().parents[1]


def _frame(path: Path, at: int):  # -> Frame
    pipe = PolledTimeline()
    with RecordingReader(path) as r:
        frame = None
        for i in range(at + 1):
            frame = pipe.push(r.sample(i))
    return frame


class _App:
    def __init__(self) -> None:
        self.toasts: list[str] = []

    def notify(self, message: str, **_: object) -> None:
        self.toasts.append(message)

    def copy_to_clipboard(self, text: str) -> None:
        self.toasts.append(f"copied {text}")


def test_bundled_incident_says_lock_waits_were_not_recorded() -> None:
    frame = _frame(ROOT / "mysqltop" / "data" / "incident.mtrec", 150)
    assert frame.locks.row_lock_current_waits and not frame.blocking       # "blocked 9", no tree
    assert "lock_waits" in frame.unrecorded and "sessions" in frame.unrecorded
    assert "transactions" not in frame.unrecorded                          # read from the status text
    text = "\n".join(locks_text.text_lines(frame))
    assert "LOCK WAITS  not read: not recorded here" in text and "LOCK WAITS  none" not in text
    app = _App()
    copy_kill_line(app, frame)
    assert app.toasts and "not recorded" in app.toasts[0] and "no session is blocking" not in app.toasts[0]


def test_gallery_recording_has_every_source() -> None:
    frame = _frame(ROOT / "recordings" / "row-lock-idle-trx.mtrec", 100)
    assert frame.unrecorded == [] and frame.blocking
    app = _App()
    copy_kill_line(app, frame)
    assert app.toasts[0].startswith("copied KILL ")
