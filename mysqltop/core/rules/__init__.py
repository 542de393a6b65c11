"""Diagnosis rules, one small function each, grouped by what they look at.

Every rule has the signature `rule(window, vars) -> Iterable[Advice]` (see rules.base) and must
stay O(len(window)): `advise` runs them all on every live frame.
"""

from __future__ import annotations

from mysqltop.core.rules import instruments, io, latches, load
from mysqltop.core.rules.base import Rule

RULES: tuple[Rule, ...] = (*latches.RULES, *io.RULES, *load.RULES, *instruments.RULES)
