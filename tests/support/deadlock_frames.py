"""Frames made from deadlock texts, and a timeline's deadlock history folded over them.

    fs = frames(with_status([TWO_ROW, TWO_ROW, GAP]))     # one sample per text, 1 s apart
    history = folded(fs)                                 # DeadlockHistory: the book at each index
"""

from __future__ import annotations

import dataclasses

from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample
from mysqltop.timeline.deadlock_history import DeadlockHistory
from mysqltop.timeline.polled import PolledTimeline
from tests.tui.samples import samples


def with_status(texts: list[str]) -> list[RawSample]:
    return [dataclasses.replace(s, innodb_status=t) for s, t in zip(samples(len(texts)), texts)]


def frames(raws: list[RawSample]) -> list[Frame]:
    pipe = PolledTimeline()
    return [pipe.push(r, advise=False) for r in raws]


def folded(fs: list[Frame]) -> DeadlockHistory:
    history = DeadlockHistory()
    for i, f in enumerate(fs):
        history.add(i, f)
    return history
