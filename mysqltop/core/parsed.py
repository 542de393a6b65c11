"""ParsedSample: a RawSample parsed once, so derive never re-parses the previous sample.

Parsing is defensive: a parser that raises on garbage costs that part of the sample (noted in
`errors`, shown in frame.errors), never the frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, TypeVar

from mysqltop.core import innodb as innodb_parser  # attribute access: a missing parser is a noted error
from mysqltop.core.identity_memo import IdentityMemo
from mysqltop.core.innodb.model import InnodbStatus
from mysqltop.core.mutex import MutexRow, parse_mutex_rows
from mysqltop.core.sample import RawSample
from mysqltop.core.status import lower_keys, status_int
from mysqltop.core.waits import WaitRow, parse_wait_rows

T = TypeVar("T")
MutexKey = tuple[str, str | None]


@dataclass
class ParsedSample:
    raw: RawSample
    innodb: InnodbStatus | None = None
    mutex: dict[MutexKey, MutexRow] | None = None     # summed per (name, site); None: not read
    waits: dict[str, WaitRow] | None = None           # by event name; None: P_S not read
    # numeric status, lower-case names (a counter may be fractional: on the line between two
    # reads of a paced SHOW GLOBAL STATUS, derive._status_span)
    status: dict[str, int | float] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)   # lower-case names
    errors: dict[str, str] = field(default_factory=dict)      # part → parse error

    def stat(self, name: str) -> int | float | None:
        return self.status.get(name.lower())

    def var_int(self, name: str) -> int | None:
        try:
            return status_int(self.variables, name.lower())
        except Exception:  # noqa: BLE001 — a bad variable value is just "unknown"
            return None


def parse_sample(raw: RawSample) -> ParsedSample:
    errors: dict[str, str] = {}
    innodb = None
    if raw.innodb_status:
        innodb = _guard(errors, "innodb_status", lambda: innodb_parser.parse_innodb_status(raw.innodb_status or ""))
    mutex = None
    if raw.innodb_mutex is not None:
        mutex = _guard(errors, "innodb_mutex",
                       lambda: {(r.name, r.site): r for r in parse_mutex_rows(raw.innodb_mutex or [])})  # already summed per name/site
    waits = None
    if raw.ps_waits is not None:
        waits = _guard(errors, "ps_waits", lambda: waits_of(raw.ps_waits or []))
    status = _guard(errors, "global_status", lambda: numeric_status(raw.global_status)) or {}
    variables = lower_keys(raw.variables)
    return ParsedSample(raw, innodb, mutex, waits, status, variables, errors)


# The latch summary is read every few seconds and the samples between carry the same rows (the
# same list): parsed once. Nothing mutates a parsed map.
_WAITS_MEMO: IdentityMemo[dict[str, WaitRow]] = IdentityMemo()


def waits_of(rows: list[list[object]]) -> dict[str, WaitRow]:
    """performance_schema latch summary rows by event name (duplicates summed), parsed once per
    list of rows."""
    hit = _WAITS_MEMO.get(rows)
    return hit if hit is not None else _WAITS_MEMO.put(_by_event(parse_wait_rows(rows)), rows)


def _guard(errors: dict[str, str], part: str, fn: Callable[[], T]) -> T | None:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 — garbage input must not kill the frame
        errors[f"parse:{part}"] = f"{type(exc).__name__}: {exc}"[:300]
        return None


def numeric_status(status: dict[str, str]) -> dict[str, int | float]:
    """The numeric values of SHOW GLOBAL STATUS rows, by lower-case name."""
    out: dict[str, int | float] = {}
    for name in status:
        value = status_int(status, name)
        if value is not None:
            out[name.lower()] = value
    return out


def _both(pick: Callable[[int, int], int], a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else pick(a, b)


def _by_event(rows: list[WaitRow]) -> dict[str, WaitRow]:
    out: dict[str, WaitRow] = {}
    for r in rows:
        if r.event_name in out:
            o = out[r.event_name]
            r = WaitRow(r.event_name, o.count_star + r.count_star, o.sum_timer_wait + r.sum_timer_wait,
                        _both(min, o.min_timer_wait, r.min_timer_wait), 0,
                        _both(max, o.max_timer_wait, r.max_timer_wait))
        out[r.event_name] = r
    return out
