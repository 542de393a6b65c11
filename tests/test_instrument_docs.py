"""The instrumentation hint is one set of lines (core/instrumentation.py): README and
docs/instruments.md print exactly those, and the runtime statement turns on the same latches."""

from __future__ import annotations

from pathlib import Path

from mysqltop.core.instrumentation import CONFIGS, ENABLE_SQL, HINT, LATCH_INSTRUMENTS

ROOT = Path(__file__).resolve().parents[1]


def test_readme_and_docs_carry_the_hints_lines() -> None:
    block = "\n".join(HINT.lines)
    assert block in (ROOT / "README.md").read_text()
    assert block in (ROOT / "docs" / "instruments.md").read_text()


def test_the_hint_is_a_measured_config_that_gives_the_latch_view() -> None:
    assert HINT in CONFIGS and HINT.latches and CONFIGS[0].name == "ps-off"
    assert all(f"NAME LIKE '{name}'" in ENABLE_SQL for name in LATCH_INSTRUMENTS)
    assert all(f"'{name}=ON'" in " ".join(HINT.lines) for name in LATCH_INSTRUMENTS)
    assert not any("cond" in name or name == "wait/synch/%" for name in LATCH_INSTRUMENTS)
