"""The Grafana dashboard's panel queries (prometheus/dashboard.json), as Grafana would send them."""

from __future__ import annotations

import json
from pathlib import Path

DASHBOARD = Path(__file__).resolve().parents[2] / "prometheus" / "dashboard.json"


def panel_queries() -> list[tuple[str, str]]:
    """(panel title, PromQL) for every target of every dashboard panel."""
    dash = json.loads(DASHBOARD.read_text())
    return [(p["title"], t["expr"]) for p in dash["panels"] for t in p.get("targets", [])]


def concrete(expr: str, server: str = ".*", rate_interval: str = "1m") -> str:
    """A panel query as Grafana would send it for one choice of the variables."""
    return expr.replace("$__rate_interval", rate_interval).replace("$server", server)
