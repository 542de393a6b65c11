"""Diagnosis rules: from a window of frames and the server variables to advice with evidence."""

from __future__ import annotations

from typing import Mapping, Sequence

from mysqltop.core.frame import Advice, Frame


def advise(frames: Sequence[Frame], variables: Mapping[str, str]) -> list[Advice]:
    """Advice that holds over `frames` (oldest first, the last one is now). Pure."""
    return []
