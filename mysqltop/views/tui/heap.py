"""Full collections for a TUI that runs for hours: short, and never set off by a key.

A full (generation 2) collection walks every tracked object. Left alone, the TUI's came every
few seconds under load and took 30–55 ms of CPU each, walking again and again the modules,
widgets and caches made at start-up. Once the app is up, what exists is collected once and frozen
(kept out of later passes: gc.freeze), so a full pass walks only what was made since.

That pass still takes 20–130 ms on a saturated box (more as the trend fills), and the
interpreter starts one when allocations cross a threshold, which is most often while a key's
answer is being drawn (a screen allocates a burst of strips and segments): of 300 keys at 64
threads of load, the ten slowest (55–70 ms) had each waited on one (bench/keys --trace). So the
TUI keeps the young generations' automatic collections (under 5 ms) and runs the full one itself,
on a timer: a key then meets one only by chance (6 of 1600 keys), and garbage in cycles still
goes within FULL_EVERY seconds.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

FULL_EVERY = 30.0             # s between full collections (the interpreter's own came about as often)
_NEVER = 1 << 30              # young collections before the interpreter would start a full one


class Collections:
    """The TUI's garbage collection: `start` on mount, `stop` on unmount (the interpreter's own
    thresholds come back)."""

    def __init__(self) -> None:
        self._before: tuple[int, int, int] | None = None

    def start(self, app: App[Any]) -> None:
        app.call_after_refresh(self._freeze_and_hold)
        app.set_interval(FULL_EVERY, self.collect)

    def _freeze_and_hold(self) -> None:
        gc.collect()
        gc.freeze()
        if self._before is None:
            self._before = gc.get_threshold()
            gc.set_threshold(self._before[0], self._before[1], _NEVER)

    @staticmethod
    def collect() -> None:
        gc.collect(2)

    def stop(self) -> None:
        if self._before is not None:
            gc.set_threshold(*self._before)
            self._before = None
