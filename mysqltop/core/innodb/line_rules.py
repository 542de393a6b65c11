"""The line-rule engine every section parser uses.

A rule is a cheap string test (`starts`/`has`) guarding one regex; only when the test passes is
the regex tried, so a line costs a few `startswith` calls, not a cascade of regexes. A line no
rule matches is counted as unknown (and kept for debugging), never an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from .numbers import num


@dataclass
class Context:
    """Per-parse facts the sections share."""

    old_header: bool = False                      # yymmdd header → single-word trx ids are hex
    unknown: list[str] = field(default_factory=list)
    unread: int = 0                               # lines past MAX_LINES: unknown, not read
    doubtful: set[str] = field(default_factory=set)   # titles a statement printed too (envelope)


# Far more lines than any section prints, the session list aside (which is not read line by
# line): past this a section is garbage, and splitting tens of megabytes of short lines into
# strings would cost a gigabyte.
MAX_LINES = 100_000


def lines_of(body: str, ctx: Context) -> list[str]:
    """The body's first MAX_LINES lines; the rest is counted as unknown without being read."""
    lines = body.split("\n", MAX_LINES)
    if len(lines) > MAX_LINES:
        ctx.unread += lines.pop().count("\n") + 1
    return lines


def set_fields(m: re.Match[str], st: Any) -> None:
    """Copy every named group that matched onto `st.out`, as numbers (two-word aware)."""
    out = st.out
    for key, value in m.groupdict().items():
        if value is not None:
            setattr(out, key, num(value))


def nothing(m: re.Match[str], st: Any) -> None:
    """A known line we do not keep."""


Apply = Callable[[re.Match[str], Any], None]
_ANY = re.compile(r"")


@dataclass(frozen=True, slots=True)
class Rule:
    starts: str | None          # line.startswith(starts) …
    regex: re.Pattern[str]
    apply: Apply = set_fields
    has: str | None = None      # … or `has in line` (lines that begin with a number)


def ignore(*prefixes: str) -> list[Rule]:
    """Known lines whose content we do not need."""
    return [Rule(p, _ANY, nothing) for p in prefixes]


def run(lines: list[str], rules: list[Rule], st: Any, ctx: Context) -> None:
    """Apply the first rule whose test passes and whose regex matches each (stripped) line."""
    unknown = ctx.unknown
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        for rule in rules:
            s = rule.starts
            if (line.startswith(s) if s is not None else rule.has in line):  # type: ignore[operator]
                m = rule.regex.match(line)
                if m is not None:
                    try:
                        rule.apply(m, st)
                    except (ValueError, IndexError, KeyError, OverflowError):
                        continue            # garbled numbers: try the next rule, else unknown
                    break
        else:
            unknown.append(line)


@dataclass
class Out:
    """State for sections that only fill one model object."""

    out: Any
