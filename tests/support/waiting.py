"""Waiting on a condition, never on machine speed: poll it until it holds or a generous cap."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")


def wait_until(cond: Callable[[], T], timeout: float = 60.0, step: float = 0.2) -> T:
    """cond()'s first truthy value; AssertionError when it has none within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := cond()):
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met in {timeout:g} s")
        time.sleep(step)
    return value
