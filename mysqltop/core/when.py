"""WHEN and duration parsing for replay ranges and recorder options. Pure: no clock.

WHEN forms (all resolve to epoch seconds, given the recording's start and end):
  2026-11-22T02:13:05Z, 2026-11-22 02:13:05+01:00   ISO 8601 (no offset → `tz`)
  02:13, 02:13:05                                     on the recording's day (in `tz`); when that
                                                      falls before the start and the recording
                                                      runs past midnight, the next day
  -10m, 10m ago                                       before the end
  +5m                                                 after the start
  start, end                                          the first / last sample
  @1763777585                                         epoch seconds

`tz=None` means the machine's local time zone (what `date` shows); the caller decides.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, tzinfo

_UNIT = {"ms": 0.001, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
# "90", "1.5s", "10m", "1h30m", "2h 5m 10s"
_DUR_PART = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|sec|min|s|m|h|d)?", re.IGNORECASE)
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?$")


class WhenError(ValueError):
    """Bad WHEN or duration text; the message says what was expected."""


MAX_DURATION_S = 100 * 366 * 86400.0        # a century: longer is a typo or an attack, not a range
_EPOCH_RANGE = (0.0, 253_402_300_799.0)     # 1970 … 9999-12-31: what datetime can show


def parse_duration(text: str) -> float:
    """Seconds from `90`, `1.5s`, `500ms`, `10m`, `1h30m`, `2d`. Raises WhenError."""
    s = text.strip()
    if not s:
        raise WhenError("empty duration (expected e.g. 90s, 10m, 1h30m)")
    total, pos, parts = 0.0, 0, 0
    while pos < len(s):
        m = _DUR_PART.match(s, pos)
        if not m or m.end() == pos:
            raise WhenError(f"bad duration {text!r} at position {pos + 1} (expected e.g. 90s, 10m, 1h30m)")
        unit = (m.group(2) or "s").lower()
        total += float(m.group(1)) * _UNIT[unit]
        pos, parts = m.end(), parts + 1
        if m.group(2) is None and pos < len(s):  # a bare number must be the last part
            raise WhenError(f"bad duration {text!r} at position {pos + 1} (expected e.g. 90s, 10m, 1h30m)")
    if not total <= MAX_DURATION_S:
        raise WhenError(f"duration {text[:40]!r} is longer than a century")
    return total


def parse_when(text: str, start: float, end: float, tz: tzinfo | None = None) -> float:
    """Epoch seconds for WHEN relative to a recording spanning [start, end]. Raises WhenError."""
    t = _parse_when(text, start, end, tz)
    if not _EPOCH_RANGE[0] <= t <= _EPOCH_RANGE[1]:
        raise WhenError(f"time {text[:40]!r} is outside 1970 … 9999")
    return t


def _parse_when(text: str, start: float, end: float, tz: tzinfo | None) -> float:
    s = text.strip()
    low = s.lower()
    if not s:
        raise WhenError("empty time (expected ISO time, HH:MM[:SS], -10m, 10m ago or +5m)")
    if low == "start":
        return start
    if low == "end":
        return end
    if s.startswith("@"):
        try:
            return float(s[1:])
        except ValueError:
            raise WhenError(f"bad epoch time {text!r} (expected @SECONDS)") from None
    if s.startswith("+"):
        return start + parse_duration(s[1:])
    if s.startswith("-"):
        return end - parse_duration(s[1:])
    if low.endswith(" ago"):
        return end - parse_duration(s[:-4])
    m = _CLOCK.match(s)
    if m:
        return _clock_on_recording_day(m, start, end, tz)
    try:
        dt = datetime.fromisoformat(s.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise WhenError(
            f"bad time {text!r} (expected ISO time like 2026-11-22T02:13:05Z, HH:MM[:SS], "
            "-10m or 10m ago (before the end), +5m (after the start))"
        ) from None
    return _epoch(dt, tz)


def _clock_on_recording_day(m: re.Match[str], start: float, end: float, tz: tzinfo | None) -> float:
    hh, mm, ss = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    if hh > 23 or mm > 59 or ss > 59:
        raise WhenError(f"bad clock time {m.group(0)!r} (expected HH:MM[:SS], 24-hour)")
    frac = float(m.group(4) or 0.0)
    day = _local(start, tz).replace(hour=hh, minute=mm, second=ss, microsecond=0)
    t = _epoch(day, tz) + frac
    # A recording that crosses midnight: 00:30 means the morning after the start.
    if t < start and _epoch(day + timedelta(days=1), tz) + frac <= end:
        t = _epoch(day + timedelta(days=1), tz) + frac
    return t


def _local(epoch: float, tz: tzinfo | None) -> datetime:
    if tz is None:
        return datetime.fromtimestamp(epoch)        # naive, local wall clock
    return datetime.fromtimestamp(epoch, tz)


def _epoch(dt: datetime, tz: tzinfo | None) -> float:
    if dt.tzinfo is None and tz is not None:
        dt = dt.replace(tzinfo=tz)
    return dt.timestamp()                           # naive → local time zone


def format_clock(epoch: float, tz: tzinfo | None = None) -> str:
    """`2026-11-22 02:13:05` in `tz` (local when None), for messages about ranges."""
    return _local(epoch, tz).strftime("%Y-%m-%d %H:%M:%S")
