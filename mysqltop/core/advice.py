"""Diagnosis rules: from the frames of a span of time and the server variables to findings."""

from __future__ import annotations

from typing import Mapping, Sequence

from mysqltop.core.frame import Advice, Frame, severity_rank
from mysqltop.core.rules import LAST_FRAME_RULES, RULES
from mysqltop.core.rules.rule_kit import Rule, Vars, Window, span_of, within

# The longest span any rule judges: what a judge must hold before a point to judge it.
HORIZON_S = max(span_of(rule) for rule in RULES)


def advise(frames: Sequence[Frame], variables: Mapping[str, str], min_span_s: float | None = 0.0) -> list[Advice]:
    """Findings at the last of `frames` (oldest first): each rule judges the live frames of its
    own span in seconds before it (rules.rule_kit.span), at least `min_span_s` (a report over every
    k-th sample widens it so the rules still see enough points; None: all the frames given, as
    the report does for a whole window). Pure, O(frames). Most severe first.

    Conditions must be sustained, so a span holding fewer than rules.rule_kit.MIN_FRAMES live frames
    (not stale, with rates) gives no finding but the stalls (LAST_FRAME_RULES).
    """
    live = [f for f in frames if not f.stale and f.elapsed is not None]
    if not live:
        return []
    v = Vars(variables)
    windows: dict[float | None, Window] = {}
    out: list[Advice] = []
    for rule in RULES:
        span = None if min_span_s is None else max(span_of(rule), min_span_s)
        w = windows.get(span)
        if w is None:
            w = windows[span] = Window(within(live, span), live)
        # A stall is judged on the durations the server measured (a session waiting 40 s has
        # waited 40 s), so it needs no span: a snapshot's single frame names the root too.
        if w.frames and (w.ok or _last_frame(rule)):
            out.extend(rule(w, v))
    out.sort(key=lambda a: -severity_rank(a.severity))
    return out


def _last_frame(rule: Rule) -> bool:
    return rule in LAST_FRAME_RULES
