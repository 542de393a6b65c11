"""Fuzz: hostile inputs through every entry point, seeded and bounded by count (not by time).

Families (tests/support/fuzz.py): mutated corpus texts through parse, derive pairs through every
headless format, damaged recordings through `snapshot --replay` and `report`, hostile command
lines. Each must give 0 tracebacks and 0 raw control characters in anything printed.
bench/fuzz runs the same families with 20,000+ inputs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import fuzz

COUNTS = {"parse": 2000, "derive": 300, "recordings": 100, "cli": 250}


@pytest.mark.parametrize("family", fuzz.FAMILIES)
def test_fuzz_family(family: str, tmp_path: Path) -> None:
    [(name, tally)] = [(f, t) for f, t in fuzz.run_all({family: COUNTS[family]}, seed=10, tmp=tmp_path)
                       if f == family]
    assert tally.tried == COUNTS[family]
    assert tally.failed == 0, tally.examples


def test_a_failure_is_seen() -> None:
    # the checks themselves: a raw escape and a printed traceback are findings, a shown one is not
    assert fuzz.clean("ok \\x1b[2J\n\t") is None
    assert fuzz.clean("bad \x1b[2J") is not None and fuzz.clean("x\x9b") is not None
    assert fuzz.clean("Traceback (most recent call last):") is not None
