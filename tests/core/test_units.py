"""Formatting shared by the TUI and headless views: compact, exact rounding, never cut."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from mysqltop.core import units


@pytest.mark.parametrize("x, text", [
    (None, "-"), (0, "0"), (12, "12"), (12.0, "12"), (0.333, "0.33"), (3.14, "3.1"), (33.6, "34"),
    (999.4, "999"), (999.6, "1.0k"), (1234, "1.2k"), (45_678, "46k"), (999_700, "1.0M"),
    (2_500_000_000, "2.5G"), (-2500, "-2.5k"), (0.004, "<0.01"), (0.9996, "1.0"), (0.994, "0.99"),
])
def test_num(x: float | None, text: str) -> None:
    assert units.num(x) == text


def test_rates_bytes_pct_durations() -> None:
    assert units.rate(12_668.1) == "13k/s"
    assert units.rate(None) == "-"
    assert units.bytes_(512) == "512 B"
    assert units.bytes_(3_565_158) == "3.4 MB"
    assert units.bytes_(1023.7) == "1.0 KB"
    assert units.bytes_rate(366_242.4) == "358 KB/s"
    assert units.pct(576 / 1_439_137 * 100) == "0.04%"
    assert units.pct(4.56) == "4.6%"
    assert units.pct(45.6) == "46%"
    assert units.share(0.685) == "68%"    # 68.5 rounds half to even
    assert units.ms(177.7) == "178ms"
    assert units.ms(1600) == "1.6s"
    assert units.duration(0.25) == "250ms"
    assert units.duration(7.5) == "7.5s"
    assert units.duration(303) == "5m03s"
    assert units.duration(7500) == "2h05m"
    assert units.duration(273_600) == "3d04h"


def test_fit_never_cuts_a_number() -> None:
    assert units.fit("1.2k", 6) == "  1.2k"
    assert units.fit("123.4k", 4) == "####"


@given(st.floats(min_value=-1e18, max_value=1e18, allow_nan=False))
def test_num_is_bounded(x: float) -> None:
    text = units.num(x)
    assert len(text.lstrip("-<>")) <= 5, text


@given(st.floats(min_value=0, max_value=1e18, allow_nan=False))
def test_bytes_is_bounded(x: float) -> None:
    number, unit = units.bytes_(x).split(" ")
    assert len(number) <= 4 and unit in ("B", "KB", "MB", "GB", "TB", "PB", "EB")
