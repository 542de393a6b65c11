"""Short full collections for a TUI that runs for hours.

A full (generation 2) collection walks every tracked object. Left alone, the TUI's came every
few seconds under load and took 30–55 ms of CPU each, walking again and again the modules,
widgets and caches made at start-up; on a saturated box one landing on a key press held the
answer back by 100 ms and more. Once the app is up, what exists is collected once and frozen
(kept out of later passes: gc.freeze), so a full pass walks only what was made since (~9 ms).
"""

from __future__ import annotations

import gc


def freeze_start_up_objects() -> None:
    gc.collect()
    gc.freeze()
