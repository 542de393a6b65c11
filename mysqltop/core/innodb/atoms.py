"""Regex atoms shared by the section parsers, and the time formats InnoDB prints.

Section parsers build their line patterns from these pieces so a number form (one word,
two words, hex, rate) is spelled once.
"""

from __future__ import annotations

import re


def n(name: str) -> str:
    """An integer: '20847697'."""
    return rf"(?P<{name}>\d+)"


def n2(name: str) -> str:
    """An integer in one word or as two 32-bit words (≤ 5.1): '476 3871193896'."""
    return rf"(?P<{name}>\d+(?: \d+)?)"


def f(name: str) -> str:
    """A rate or percentage: '42.96', '0.00', '-nan' is not matched (stays None)."""
    return rf"(?P<{name}>\d+(?:\.\d+)?)"


def site(name: str) -> str:
    """A source site 'in file F line L' / 'file F line L'; F may be a path or 'not yet reserved'."""
    return rf"(?:in )?file (?P<{name}_file>.+?) line (?P<{name}_line>\d+)"


# A timestamp as InnoDB prints it, with the optional thread id that follows it in headers:
#   2026-11-22 01:22:30 0x77902c6836c0      (5.7+, MariaDB)
#   2024-10-23 14:29:35 275827633680128     (8.0.2x+ decimal thread id)
#   2014-10-16 18:37:29 7fc2a95c1700        (5.6, hex without 0x)
#   070912 15:38:40 / 100831  8:56:28       (≤ 5.5, yymmdd, hour padded with a space)
TIME = (
    r"(?P<date>\d{4}-\d\d-\d\d|\d{6}) +(?P<clock>\d{1,2}:\d\d:\d\d)"
    r"(?: +(?P<thread>0x[0-9a-fA-F]+|[0-9a-fA-F]{6,}))?"
)

# 2026-11-22 01:22:30 0x77902c6836c0 INNODB MONITOR OUTPUT
HEADER_RE = re.compile(TIME + r" +INNODB MONITOR OUTPUT")
# 120906  6:03:32  (first line of LATEST DETECTED DEADLOCK / LATEST FOREIGN KEY ERROR)
TIME_RE = re.compile(TIME)


def normalise_time(date: str, clock: str) -> str:
    """'070912', '9:56:19' → '2007-09-12 09:56:19'; ISO dates pass through."""
    if len(date) == 6:
        date = f"20{date[0:2]}-{date[2:4]}-{date[4:6]}"
    if len(clock) == 7:
        clock = "0" + clock
    return f"{date} {clock}"


def time_of(line: str) -> str | None:
    """The normalised timestamp at the start of `line`, or None."""
    m = TIME_RE.match(line)
    return normalise_time(m["date"], m["clock"]) if m else None
