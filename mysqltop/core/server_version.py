"""Server identity helpers: flavor and version comparisons (derive and the rules both read them)."""

from __future__ import annotations

import re

from mysqltop.core.frame import ServerInfo


def version_tuple(version: str | None) -> tuple[int, ...] | None:
    """"10.11.19-MariaDB-0+deb12u1" → (10, 11, 19); None when not a version."""
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", version or "")
    return tuple(int(g) for g in m.groups() if g is not None) if m else None


def predates_performance_schema(version: str | None) -> bool:
    """MySQL/Percona 5.0/5.1 have no performance_schema (it came with 5.5): no advice to enable it."""
    v = version_tuple(version)
    return v is not None and v < (5, 5)


def is_mariadb(server: ServerInfo) -> bool:
    return (server.flavor or "").lower() == "mariadb" or "mariadb" in (server.version or "").lower()


def is_mariadb_at_least(server: ServerInfo, at_least: tuple[int, ...]) -> bool:
    v = version_tuple(server.version)
    return is_mariadb(server) and v is not None and v >= at_least
