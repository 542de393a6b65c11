"""SHOW GLOBAL STATUS / VARIABLES maps and the number forms they use."""

from __future__ import annotations


def status_int(status: dict[str, str], name: str) -> int | None:
    """The integer value of a status variable, None when absent or not a number."""
    raise NotImplementedError
