"""Waiting on a condition, never on machine speed: poll it until it holds or a generous cap."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")


def wait_until(cond: Callable[[], T], timeout: float = 60.0, step: float = 0.2,
               pause: Callable[[float], object] = time.sleep) -> T:
    """cond()'s first truthy value; AssertionError when it has none within `timeout` seconds.
    `pause` waits a step (a pty's drain, where the program must not block on a full terminal)."""
    deadline = time.monotonic() + timeout
    while not (value := cond()):
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met in {timeout:g} s")
        pause(step)
    return value
