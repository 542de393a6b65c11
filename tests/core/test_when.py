"""WHEN and duration parsing (pure)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from mysqltop.core.when import WhenError, parse_duration, parse_when

UTC = timezone.utc
START = datetime(2026, 11, 22, 2, 0, 0, tzinfo=UTC).timestamp()
END = START + 3600


@pytest.mark.parametrize("text, seconds", [
    ("90", 90), ("90s", 90), ("1.5s", 1.5), ("500ms", 0.5), ("10m", 600), ("1h30m", 5400),
    ("2h 5m 10s", 7510), ("2d", 172800), ("10 min", 600), ("3sec", 3),
])
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "abc", "10x", "5 m s", "10 20m", "-5m"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(WhenError):
        parse_duration(text)


@pytest.mark.parametrize("text, expected", [
    ("start", START), ("end", END),
    ("-10m", END - 600), ("10m ago", END - 600), ("+5m", START + 300), ("+90", START + 90),
    ("2026-11-22T02:13:05Z", START + 13 * 60 + 5),
    ("2026-11-22T02:13:05.250Z", START + 13 * 60 + 5.25),
    ("2026-11-22 03:13:05+01:00", START + 13 * 60 + 5),
    ("2026-11-22T02:13:05", START + 13 * 60 + 5),          # naive → tz (UTC here)
    ("02:13", START + 13 * 60), ("02:13:05", START + 13 * 60 + 5),
    (f"@{START + 7}", START + 7),
])
def test_when_forms(text: str, expected: float) -> None:
    assert parse_when(text, START, END, UTC) == pytest.approx(expected)


def test_clock_time_uses_the_recordings_day_and_crosses_midnight() -> None:
    start = datetime(2026, 11, 21, 23, 30, tzinfo=UTC).timestamp()
    end = start + 2 * 3600                                  # until 01:30 next day
    assert parse_when("23:45", start, end, UTC) == start + 15 * 60
    assert parse_when("00:30", start, end, UTC) == start + 3600     # the morning after
    # A clock time before the start when the recording does not reach the next day stays on the day.
    assert parse_when("22:00", start, start + 600, UTC) == start - 90 * 60


def test_clock_time_in_another_zone() -> None:
    tz = timezone(timedelta(hours=2))
    assert parse_when("04:13", START, END, tz) == START + 13 * 60   # 04:13 at UTC+2 = 02:13Z


@pytest.mark.parametrize("text", ["", "yesterday", "25:00", "12:61", "2026-13-01", "+", "@x", "-10 parsecs"])
def test_bad_when(text: str) -> None:
    with pytest.raises(WhenError) as exc:
        parse_when(text, START, END, UTC)
    assert str(exc.value)
