"""Reset-safe rates: None on the first sample, on Δt ≤ 0 and on resets — exact otherwise."""

from __future__ import annotations

import pytest

from mysqltop.core.counters import delta, first_rate, rate, rate_of_sum, total


def test_first_sample_has_no_rate() -> None:
    assert rate(None, 100, 1.0) is None


def test_missing_current_value_has_no_rate() -> None:
    assert rate(100, None, 1.0) is None


@pytest.mark.parametrize("dt", [0.0, -1.0, None, float("nan"), float("inf")])
def test_non_positive_or_bad_dt_has_no_rate(dt: float | None) -> None:
    assert rate(100, 200, dt) is None


def test_counter_going_backwards_is_a_reset_not_a_negative_rate() -> None:
    assert rate(1_000_000, 12, 1.0) is None
    assert delta(5, 4) is None


def test_normal_rates_are_exact() -> None:
    assert rate(142_084, 284_168, 18.0) == pytest.approx(142_084 / 18)
    assert rate(7, 7, 2.0) == 0.0
    assert rate(0, 30, 30.0) == 1.0
    assert delta(3, 10) == 7


def test_rate_of_sum_uses_kinds_present_in_both_and_nulls_on_any_reset() -> None:
    # mutex + RW-shared + RW-excl OS waits of the percona-5.5 pair, RW-sx absent (5.5 has none)
    pairs = [(2335696, 2335699), (17684023, 17684029), (15143736, 15143737), (None, None)]
    assert rate_of_sum(pairs, 30.0) == pytest.approx(10 / 30)
    assert rate_of_sum([(5, 4), (1, 100)], 1.0) is None
    assert rate_of_sum([(None, 4)], 1.0) is None
    assert rate_of_sum([(1, 2)], 0.0) is None


def test_first_rate_falls_back_only_when_a_source_is_absent() -> None:
    assert first_rate([(None, 10), (100, 160)], 60.0) == 1.0
    # present in both but reset: no fallback that would hide the reset
    assert first_rate([(100, 10), (100, 160)], 60.0) is None
    assert first_rate([(None, None)], 1.0) is None


def test_total() -> None:
    assert total([None, None]) is None
    assert total([1, None, 2]) == 3
