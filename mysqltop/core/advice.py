"""Diagnosis rules: from a window of frames and the server variables to advice with evidence."""

from __future__ import annotations

from typing import Mapping, Sequence

from mysqltop.core.frame import Advice, Frame, severity_rank
from mysqltop.core.rules import LAST_FRAME_RULES, RULES
from mysqltop.core.rules.base import RECENT_S, Vars, Window

def advise(frames: Sequence[Frame], variables: Mapping[str, str],
           span_s: float | None = RECENT_S) -> list[Advice]:
    """Advice that holds over the last `span_s` seconds of `frames` (oldest first, the last one
    is now; None: over all of them, as the report does for a whole window). Pure, O(frames).

    Conditions must be sustained over the window, so fewer than rules.base.MIN_FRAMES live
    frames (not stale, with rates) give no advice but the stalls (LAST_FRAME_RULES). Most severe first.
    """
    window = Window.of(frames, span_s)
    if not window.frames:
        return []
    v = Vars(variables)
    # A stall is judged on the durations the server measured (a session waiting 40 s has waited
    # 40 s), so it needs no window: a snapshot's single frame names the root too.
    rules = RULES if window.ok else LAST_FRAME_RULES
    out = [a for rule in rules for a in rule(window, v)]
    out.sort(key=lambda a: -severity_rank(a.severity))
    return out
