"""Which saved output a text holds, and its JSON object (docs/json.md) (`parse_any`). Pure.

Kinds: innodb_status (SHOW ENGINE INNODB STATUS), innodb_mutex (SHOW ENGINE INNODB MUTEX, 5.0's
SHOW MUTEX STATUS, INFORMATION_SCHEMA.INNODB_MUTEXES), ps_waits (performance_schema
events_waits_summary_global_by_event_name), global_status / global_variables (Variable_name/Value).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mysqltop.core import mutex, status, waits
from mysqltop.core.textforms import Extracted, Table, extract, loose_table

KINDS = ("innodb_status", "innodb_mutex", "ps_waits", "global_status", "global_variables")


class UnknownOutput(ValueError):
    """The text holds none of the outputs mysqltop reads."""


@dataclass
class Detected:
    kind: str
    status_text: str | None = None     # innodb_status
    table: Table | None = None         # the other kinds (None: a known statement with "Empty set")


# Tabs lost in a paste: header words → column that takes the extra words (None: the last).
_LOOSE: tuple[tuple[list[str], int | None], ...] = (
    (["Type", "Name", "Status"], 1),
    (["Variable_name", "Value"], None),
    (["EVENT_NAME", "COUNT_STAR", "SUM_TIMER_WAIT", "MIN_TIMER_WAIT", "AVG_TIMER_WAIT", "MAX_TIMER_WAIT"], 0),
)
_MUTEX_STMT = re.compile(r"\bshow\s+(?:engine\s+innodb\s+mutex|mutex\s+status)\b", re.I)


def _engine_mutex(table: Table) -> bool:
    # SHOW ENGINE PERFORMANCE_SCHEMA STATUS shares the Type/Name/Status header: every row must
    # be an InnoDB row with a key=value status.
    return all(len(r) >= 3 and r[0].strip().lower() == "innodb"
               and (not r[2].strip() or mutex.STATUS_CELL.match(r[2])) for r in table.rows)


def _table_kind(table: Table, statements: list[str]) -> str | None:
    header_kind = mutex.mutex_header_kind(table.header)
    if header_kind == "engine":
        return "innodb_mutex" if _engine_mutex(table) else None
    if header_kind or mutex.is_mutex_row(table.header):
        return "innodb_mutex"
    if waits.is_waits_header(table.header) or waits.is_wait_row(table.header):
        return "ps_waits"
    if status.is_status_header(table.header):
        return status.status_or_variables([r[0] for r in table.rows if r], statements)
    return status.headerless_kind(table)


def classify(ext: Extracted, text: str = "") -> Detected | None:
    """The first known output in `ext` (InnoDB status wins: it is the richest)."""
    if ext.status_text:
        return Detected("innodb_status", status_text=ext.status_text)
    for table in ext.tables:
        kind = _table_kind(table, ext.statements)
        if kind:
            return Detected(kind, table=table)
    if not ext.tables and text:
        for words, spill in _LOOSE:
            loose = loose_table(text, words, spill, ext.lines)
            if loose is not None:
                kind = _table_kind(loose, ext.statements)
                if kind:
                    return Detected(kind, table=loose)
    if not ext.tables and any(_MUTEX_STMT.search(s) for s in ext.statements):
        return Detected("innodb_mutex")   # "SHOW ENGINE INNODB MUTEX;" → "Empty set" (MariaDB 10.6+)
    return None


def detect(text: str) -> str | None:
    """The kind of output `text` holds, None when unknown."""
    found = classify(extract(text), text)
    return found.kind if found else None


def to_json(found: Detected) -> dict[str, Any]:
    if found.kind == "innodb_status":
        from mysqltop.core.innodb import parse_innodb_status   # imported on use: only status text needs it

        return without_zero_window_rates(parse_innodb_status(found.status_text or "").to_dict())
    table = found.table or Table([], [])
    if found.kind == "innodb_mutex":
        return mutex.mutex_json(mutex.parse_mutex_table(table) if found.table else [])
    if found.kind == "ps_waits":
        return waits.waits_json(waits.parse_waits_table(table))
    return status.status_json(status.parse_status_table(table), found.kind)


ZERO_WINDOW_NOTE = ("per-second averages cover the last 0 seconds (two status reads in the same second): "
                    "InnoDB's rates are divisions by zero, so they are left out")


def without_zero_window_rates(d: dict[str, Any]) -> dict[str, Any]:
    """A status whose averages cover "the last 0 seconds" prints rates divided by zero (writes/s
    121k): every *_per_s becomes null and a note says why, in JSON and text alike."""
    if d.get("averaging_s") != 0:
        return d

    def clear(o: Any) -> Any:
        if isinstance(o, dict):
            return {k: (None if k.endswith("_per_s") else clear(v)) for k, v in o.items()}
        if isinstance(o, list):
            return [clear(v) for v in o]
        return o
    out = clear(d)
    out["notes"] = [*out.get("notes", []), ZERO_WINDOW_NOTE]
    return out


def parse_any(text: str) -> dict[str, Any]:
    """The JSON object (docs/json.md) for whatever `text` holds; UnknownOutput when it holds none."""
    found = classify(extract(text), text)
    if found is None:
        raise UnknownOutput("not a SHOW ENGINE INNODB STATUS/MUTEX, performance_schema or status output")
    return to_json(found)
