"""A series that is zero throughout sits on a 0-based axis, not in the middle of −1..1."""

from __future__ import annotations

import re

from mysqltop.views.charts import ChartSpec, Series, chart


def _y_labels(text: str) -> list[float]:
    return [float(m[1]) for m in re.finditer(r"^\s*(-?\d+(?:\.\d+)?)┤", text, re.M)]


def test_all_zero_series_draws_a_zero_based_axis() -> None:
    out = chart(ChartSpec(times=[1.0, 2.0, 3.0, 4.0], series=[Series("waits/s", [0.0, 0.0, None, 0.0])]),
                60, 12, color=False)
    labels = _y_labels(out)
    assert labels and min(labels) == 0.0 and max(labels) > 0, out
    # a series with values keeps plotext's own axis
    out = chart(ChartSpec(times=[1.0, 2.0, 3.0], series=[Series("tps", [-5.0, 0.0, 10.0])]), 60, 12, color=False)
    assert min(_y_labels(out)) < 0
