"""Rows from pasted client output, through the path `mysqltop parse` takes (core.detect.classify):
the tests of each table parser read their captures the way the product reads them."""

from __future__ import annotations

from mysqltop.core import mutex, status, waits
from mysqltop.core.detect import classify
from mysqltop.core.textforms import Table, extract


def _table(text: str, *kinds: str) -> Table | None:
    found = classify(extract(text), text)
    if found is None or found.kind not in kinds or found.table is None:
        return None
    return found.table


def mutex_rows(text: str) -> list[mutex.MutexRow] | None:
    table = _table(text, "innodb_mutex")
    return None if table is None else mutex.parse_mutex_table(table)


def wait_rows(text: str) -> list[waits.WaitRow] | None:
    table = _table(text, "ps_waits")
    return None if table is None else waits.parse_waits_table(table)


def status_map(text: str) -> dict[str, str] | None:
    table = _table(text, "global_status", "global_variables")
    return None if table is None else status.parse_status_table(table)
