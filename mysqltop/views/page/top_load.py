"""The page's TOP LOAD section: who carries the load, by statement, user, client host and schema.

The section draws one table per dimension (sql, user, host, schema, object) from a small
interface — `Slices`: for each dimension, rows of (label, wait class → average active sessions
over the window), filled from the fold of the active session samples (Report.load.slices,
core/load_slices.py). A recording without them gives each wait class's busiest statement shapes
(Report.load.top, from the sessions each poll listed); the other dimensions' tables say they
are not recorded. Labels are server text: made
visible here, escaped by the template. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from mysqltop.core import units
from mysqltop.core.frame import WAIT_CLASSES
from mysqltop.core.incident_report import Report
from mysqltop.core.safe_text import visible
from mysqltop.core.wait_load import LABELS

# (dimension, table title, column heading)
DIMENSIONS: tuple[tuple[str, str, str], ...] = (
    ("sql", "Statements", "statement shape"), ("user", "Users", "user"), ("host", "Client hosts", "client host"),
    ("schema", "Schemas", "schema"), ("object", "Objects waited on", "wait object"))
ROWS = 10
BAR = 100.0                 # the mix bar's width in its own units (the template's viewBox)
LABEL_CHARS = 300

# dimension → rows of (label, wait class → average active sessions over the window)
Slices = Mapping[str, Sequence[tuple[str, Mapping[str, float]]]]

NOT_RECORDED = "not recorded: this recording holds no active-session samples by this dimension"


@dataclass(frozen=True)
class MixPart:
    css: str                # the wait class's colour class
    x: float
    w: float
    title: str


@dataclass(frozen=True)
class LoadRow:
    label: str
    sessions: str           # average active sessions, formatted
    mix: tuple[MixPart, ...]


@dataclass(frozen=True)
class LoadTable:
    dimension: str
    title: str
    column: str
    rows: tuple[LoadRow, ...]
    note: str               # what the figures are, or why there are none


def report_slices(r: Report) -> tuple[Slices, str]:
    """What the report holds: the fold of the active session samples by every dimension, else
    (older recordings) the statement shapes — the busiest of each wait class, summed by shape —
    and a note saying what they are."""
    if r.load.slices:
        got = {d: [(str(x["value"]) or "(none)", dict(x["classes"])) for x in r.load.slices.get(d, [])]
               for d, _, _ in DIMENSIONS}
        return got, ("average active sessions over the window, with their wait classes (every active "
                     "session of each poll: docs/wait-classes.md, Dimensions)")
    by: dict[str, dict[str, float]] = {}
    for t in r.load.top:
        mix = by.setdefault(str(t["shape"]), {})
        mix[str(t["wait_class"])] = mix.get(str(t["wait_class"]), 0.0) + float(t["sessions"])
    rows = sorted(by.items(), key=lambda kv: -sum(kv[1].values()))
    note = ("average active sessions over the window of the busiest statement shapes of each wait class "
            "(from the sessions each poll listed)")
    return ({"sql": rows} if rows else {}), note


def _mix(classes: Mapping[str, float], total: float) -> tuple[MixPart, ...]:
    out, x = [], 0.0
    for c in WAIT_CLASSES:
        v = classes.get(c, 0.0)
        if v <= 0 or total <= 0:
            continue
        w = BAR * v / total
        out.append(MixPart(f"c-{c}", round(x, 2), round(w, 2), f"{LABELS[c]} {units.num(v)}"))
        x += w
    return tuple(out)


def tables(slices: Slices, note: str) -> tuple[LoadTable, ...]:
    out = []
    for dim, title, column in DIMENSIONS:
        rows = slices.get(dim)
        if not rows:
            out.append(LoadTable(dim, title, column, (), NOT_RECORDED))
            continue
        drawn = []
        for label, classes in list(rows)[:ROWS]:
            total = sum(classes.values())
            text = visible(" ".join(label.split()))
            text = text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"
            drawn.append(LoadRow(text, units.num(total), _mix(classes, total)))
        out.append(LoadTable(dim, title, column, tuple(drawn), note))
    return tuple(out)


def load_tables(r: Report) -> tuple[LoadTable, ...]:
    return tables(*report_slices(r))
