"""One poll's result sets → the fields of a RawSample. Every value is hostile server data: a
result of an unexpected shape costs its statement's rows (said in `errors`), never the sample."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from mysqltop.core.sample import HostSample, RawSample, ServerIdentity
from mysqltop.sources import locks as locks_src
from mysqltop.sources.poll_statements import (
    K_GSTATUS, K_LOCK_WAITS, K_METRICS, K_MUTEX, K_PS, K_STATUS, K_TIME, STATUS_NAMES, Poll, StatementPlan,
)


def ps_rows(rows: Any, as_json: bool) -> list[list[Any]]:
    """[EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT] rows from the plain or the JSON form."""
    if not as_json:
        return [[str(r[0]), *(int(x) for x in r[1:])] for r in rows]
    text = rows[0][0] if rows and rows[0] else None      # NULL: no row matched
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", "replace")
    out = json.loads(text) if text else []
    counted = rows[0][1] if rows and len(rows[0]) > 1 else None
    if counted is not None and isinstance(out, list) and len(out) != int(counted):
        raise ValueError(f"performance_schema waits: {len(out)} of {counted} rows in the JSON text")
    # type checks by C-level map/zip: this runs for ~100 rows of every server every poll
    if not isinstance(out, list) or not set(map(type, out)) <= {list} or not set(map(len, out)) <= {3}:
        raise ValueError("performance_schema waits: unexpected JSON shape")
    names, counts, sums = zip(*out) if out else ((), (), ())
    if not (set(map(type, names)) <= {str} and set(map(type, counts)) <= {int} and set(map(type, sums)) <= {int}):
        raise ValueError("performance_schema waits: unexpected JSON shape")
    return out


_STATUS_SPELLING = {n.upper(): n for n in STATUS_NAMES}


def status_json(rows: Any) -> dict[str, str]:
    """{Variable_name: value} from STATUS_JSON_SQL, spelt as SHOW GLOBAL STATUS spells them."""
    row: Any = rows[0] if rows else ()
    text = row[0] if row else None
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", "replace")
    out: Any = json.loads(text) if text else {}
    if not isinstance(out, dict) or not set(map(type, out.values())) <= {str}:
        raise ValueError("global status: unexpected JSON shape")
    if len(row) < 2 or len(out) != row[1]:
        raise ValueError(f"global status: {len(out)} of {row[1] if len(row) > 1 else '?'} rows in the JSON text")
    return {_STATUS_SPELLING.get(k) or str(k): v for k, v in out.items()}


def waiting(rows: Any) -> int | None:
    """Waiting transactions counted by the transactions statement's JSON form (its third
    column); None when not read."""
    row: Any = rows[0] if rows else ()
    n = row[2] if len(row) > 2 else None
    return n if type(n) is int else None


def clock_row(rows: Any) -> dict[str, Any]:
    """RawSample fields from the server_time statement: (clock, [own session's Rows_read])."""
    row: Any = rows[0] if rows else ()
    num = [float(x) if isinstance(x, (int, float, Decimal)) or (isinstance(x, str) and x.isdigit()) else None
           for x in row]
    return {"server_time": num[0] if num else None,
            "own_rows_read": int(num[1]) if len(num) > 1 and num[1] is not None else None}


def sample(plan: StatementPlan, wall: float, mono: float, server: ServerIdentity, host: HostSample | None,
           p: Poll, variables: dict[str, str]) -> RawSample:
    """The RawSample of a poll that answered."""
    v = p.values
    status_rows = v.get(K_STATUS)
    innodb_status = str(status_rows[0][2]) if status_rows else None
    mutex = v.get(K_MUTEX)
    if mutex is not None:
        plan.saw_mutex(mutex)
    errors = {**{k: f"skipped: {e}" for k, e in plan.disabled.items() if k not in p.errors}, **p.errors}
    c = plan.caps
    if c.performance_schema_on and not c.performance_schema:
        # ON but not readable by us: the fix is a GRANT, not a server setting
        errors.setdefault(K_PS, f"skipped: performance_schema is ON but not readable by {c.grantee}: "
                                f"run GRANT SELECT ON performance_schema.* TO {c.grantee};")
    lock_rows: dict[str, Any] = {k: _lock_rows(plan, k, v[k], errors) for k in locks_src.KEYS if k in v}
    if p.none_waiting:
        lock_rows[K_LOCK_WAITS] = []          # not asked: no transaction waits for a lock
    return RawSample(
        wall=wall, mono=mono, server=server, host=host, innodb_status=innodb_status,
        innodb_mutex=[[str(c) for c in r] for r in mutex] if mutex else None,
        ps_waits=_ps_waits(plan, v[K_PS], errors) if K_PS in v else None,
        global_status=_global_status(plan, v[K_GSTATUS], errors) if K_GSTATUS in v else {},
        innodb_metrics={str(k): int(c) for k, c in v[K_METRICS]} if K_METRICS in v else None,
        variables=variables, timings_ms=p.timings_ms, errors=errors,
        **clock_row(v.get(K_TIME)),
        **lock_rows)


def _ps_waits(plan: StatementPlan, rows: Any, errors: dict[str, str]) -> list[list[Any]] | None:
    try:
        return ps_rows(rows, K_PS in plan.json_sent)
    except ValueError as e:
        plan.json_refused(K_PS, e, errors)
        return None


def _global_status(plan: StatementPlan, rows: Any, errors: dict[str, str]) -> dict[str, str]:
    if K_GSTATUS not in plan.json_sent:
        return {str(k): str(val) for k, val in rows}
    try:
        return status_json(rows)
    except ValueError as e:
        plan.json_refused(K_GSTATUS, e, errors)
        return {}


def _lock_rows(plan: StatementPlan, key: str, rows: Any, errors: dict[str, str]) -> list[list[Any]] | None:
    if key not in plan.json_sent:
        return locks_src.plain_rows(rows)
    sel = plan.selects[key]
    try:
        return locks_src.json_rows(rows, len(sel.cols), sel.limit)
    except ValueError as e:
        plan.json_refused(key, e, errors)
        return None
