"""prometheus/: the rules load (`promtool check rules`), their unit tests pass (`promtool test
rules`), and the dashboard and rules speak only the registry's names (core/metrics.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mysqltop.core import metrics
from tests.support.dashboard import panel_queries

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "prometheus" / "rules.yml"


def _promtool() -> str:
    tool = shutil.which("promtool") or ("/usr/bin/promtool" if Path("/usr/bin/promtool").exists() else None)
    if tool is None:
        pytest.skip("no promtool even after ./dev's install step (apt-get install prometheus)")
    return tool


def test_promtool_check_rules() -> None:
    run = subprocess.run([_promtool(), "check", "rules", str(RULES)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "SUCCESS" in run.stdout


def test_promtool_rule_unit_tests() -> None:
    run = subprocess.run([_promtool(), "test", "rules", "rules_test.yml"], cwd=RULES.parent,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "SUCCESS" in run.stdout


_NAME = re.compile(r"\b(mysqltop_[a-z0-9_]+)")


def test_rules_and_dashboard_use_only_registry_names() -> None:
    known = {m.sample for m in metrics.ALL}
    used = set(_NAME.findall(RULES.read_text())) | {n for _, q in panel_queries() for n in _NAME.findall(q)}
    assert used, "no mysqltop names found"
    assert used <= known, f"not in the registry: {sorted(used - known)}"
    assert len(panel_queries()) >= 15


def test_promtool_check_metrics_on_the_exposition() -> None:
    """promtool's linter (names, suffixes, units, HELP) over what serve exposes for recorded frames."""
    import time

    from mysqltop.timeline.polled import PolledTimeline
    from mysqltop.fleet import ServerState
    from mysqltop.sources.replay_source import ReplaySource
    from mysqltop.views.prometheus import Exposition

    src = ReplaySource(ROOT / "mysqltop" / "data" / "incident.mtrec", on_damage=None)
    pipeline = PolledTimeline()
    try:
        frames = [pipeline.push(raw) for raw in iter(src.read, None)][:60]
    finally:
        src.close()
    frame = next(f for f in reversed(frames) if not f.stale and f.latch_counters)
    now = time.monotonic()
    states = [ServerState(name=f"db{i}:3306", frame=frame, good=frame, arrived=now, good_at=now, started=0.0)
              for i in range(3)]
    body = Exposition(lambda: states, 1.0).render()
    run = subprocess.run([_promtool(), "check", "metrics"], input=body, capture_output=True, timeout=120)
    assert run.returncode == 0, (run.stdout + run.stderr).decode()
    assert body.count(b"mysqltop_latch_waits_total{") >= 3 * 10


def test_snapshot_exposition_passes_promtool_check_metrics() -> None:
    """`snapshot --format prometheus | promtool check metrics` (the text format promtool and the
    textfile collector read): every counter's `_total` samples have their HELP and TYPE; the
    OpenMetrics form stays what strict OpenMetrics parsers take (the family named without `_total`)."""
    import sys

    from prometheus_client.openmetrics.parser import text_string_to_metric_families

    def snapshot(fmt: str) -> str:
        run = subprocess.run([sys.executable, "-m", "mysqltop", "snapshot", "--replay",
                              str(ROOT / "recordings" / "ahi-latch.mtrec"), "--count", "1", "--format", fmt],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        return run.stdout

    text = snapshot("prometheus")
    assert "# HELP mysqltop_transactions_total " in text and "# TYPE mysqltop_latch_waits_total counter" in text
    run = subprocess.run([_promtool(), "check", "metrics"], input=text, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    families = {f.name: f.type for f in text_string_to_metric_families(snapshot("openmetrics"))}
    assert families["mysqltop_transactions"] == "counter"
