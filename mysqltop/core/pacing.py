"""The poll interval and the replay speed: their default, bounds, ladders and checks, in one place.

Every command, feed and source takes these from here, so "the interval" has one default and one
set of limits. argparse's `type=float` accepts "nan" and "inf"; neither is a usable interval or
speed (NaN slips through `<= 0` and polls flat out, inf overflows the socket timeout).
"""

from __future__ import annotations

import math

from mysqltop.errors import UserError

DEFAULT_INTERVAL = 1.0       # seconds between polls unless --interval says otherwise
MAX_INTERVAL_S = 86400.0     # one poll a day; beyond that a socket timeout overflows anyway
FIRST_GAP = 0.3              # s between the first two live polls (the first frame has no rates)
INTERVALS = (0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0)    # the TUI's +/- ladder
DEFAULT_SPEED = 1.0
MAX_SPEED = 1000.0
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)       # the replay's </> ladder
MAX_ANSWER_TIMEOUT_S = 3600.0


def step_choice(choices: tuple[float, ...], current: float, direction: int) -> float:
    """The next value up (+1) or down (-1) the ladder from `current` (which may be off-ladder)."""
    if direction > 0:
        return next((c for c in choices if c > current + 1e-9), choices[-1])
    return next((c for c in reversed(choices) if c < current - 1e-9), choices[0])


def check_interval(value: float, flag: str = "--interval") -> float:
    if not (math.isfinite(value) and 0 < value <= MAX_INTERVAL_S):
        raise UserError(f"{flag} must be a number of seconds above 0 and at most {MAX_INTERVAL_S:g} "
                        f"(e.g. 0.5, 1, 10), not {value:g}", 2)
    return value


def check_speed(value: float) -> float:
    if not (math.isfinite(value) and 0 < value <= MAX_SPEED):
        raise UserError(f"--speed must be a number above 0 and at most {MAX_SPEED:g} "
                        f"(1 = real time, 4 = four times faster), not {value:g}", 2)
    return value


def check_answer_timeout(value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and 0 < value <= MAX_ANSWER_TIMEOUT_S):
        raise UserError(f"--answer-timeout must be a number of seconds above 0 and at most "
                        f"{MAX_ANSWER_TIMEOUT_S:g}, not {value:g}", 2)
    return value
