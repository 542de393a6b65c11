"""`report` text and Markdown draw the window as plotext charts with the findings' spans marked."""

from __future__ import annotations

import re

from mysqltop.cli import main
from mysqltop.commands.demo import find_incident

import pytest


@pytest.mark.parametrize("fmt", ["text", "md"])
def test_report_draws_tps_and_qps_charts_with_findings(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = find_incident()
    if path is None:
        pytest.skip("recordings/incident.mtrec is not in this checkout")
    assert main(["report", str(path), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "TPS (UTC)" in out and "QPS (UTC)" in out and "finding start/end" in out
    assert "▼ bookmark" in out                      # the recording has a trigger bookmark
    chart = out[out.index("TPS (UTC)"):]
    assert re.search(r"\d\d:\d\d:\d\d", chart) and "┌" in chart and "•" in chart
    assert "\x1b" not in out
    if fmt == "md":
        assert "```" in out[out.index("Charts"):]
