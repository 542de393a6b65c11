"""FrameMemo: results the rules work out once per frame, beside the frame (which never changes).

A frame is judged in every window it is part of (each rule's span, each later position), so a
rule's per-frame figure (which hotspots belong to a latch family, a frame's P_S wait total) is
kept here, by frame, for as long as the frame lives: a rule's cost per window stays proportional
to the frames, not to frames × hotspots. Never part of the frame: not in JSON, equality or copies.
"""

from __future__ import annotations

import weakref
from typing import Any

from mysqltop.core.frame import Frame

_MEMOS: dict[int, dict[Any, Any]] = {}


def memo_of(frame: Frame) -> dict[Any, Any]:
    """The memo of `frame` (empty at first); it goes when the frame does."""
    key = id(frame)
    memo = _MEMOS.get(key)
    if memo is None:
        memo = _MEMOS[key] = {}
        weakref.finalize(frame, _MEMOS.pop, key, None)
    return memo
