"""Database load by wait class as a stacked chart of text cells: one column per sample (or report
point), the classes stacked bottom-up in WAIT_CLASSES order, the core count as a line. The TUI's
load view (`w`) and `report` draw the same cells; each class has its own glyph, so the chart reads
without colour too. Statement shapes are server text: made visible before they are returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Sequence

from mysqltop.core import units
from mysqltop.core.frame import WAIT_CLASSES, WaitLoad
from mysqltop.core.wait_load import LoadSummary
from mysqltop.core.safe_text import visible
from mysqltop.core.wait_load import CPU, IO, LABELS, LATCH

GLYPHS = {"cpu": "█", "row_lock": "▓", "metadata_lock": "▒", "latch": "░", "io": "▚", "commit": "▞", "other": "·"}
STYLES = {"cpu": "green", "row_lock": "red", "metadata_lock": "magenta", "latch": "yellow", "io": "blue",
          "commit": "cyan", "other": "bright_black"}
CORES_GLYPH = "╌"
AXIS_W = 6
REPORT_CHART_H = 8
# Average sessions of latch + IO wait moved out of the running ones before the CPU heading says so.
MOVED_SHOWN = 0.05


@dataclass
class Point:
    """One column: the sessions of each class (None: not known at that sample)."""
    values: dict[str, float] | None


def point(load: WaitLoad) -> Point:
    return Point(None if load.active is None else {c: load.value(c) or 0.0 for c in WAIT_CLASSES})


Cell = tuple[str, str]          # (text, style)


def columns(width: int) -> int:
    """How many samples a chart `width` cells wide shows, one per column."""
    return max(1, width - AXIS_W)


def chart(points: Sequence[Point], width: int, height: int, cores: float | None) -> list[list[Cell]]:
    """Rows top to bottom, each AXIS_W + columns cells; the newest point on the right."""
    span = columns(width)
    cols = list(points)[-span:]
    cols = [Point(None)] * (span - len(cols)) + cols          # the newest point at the right edge
    known = [p.values for p in cols if p.values is not None]
    top = max([sum(v.values()) for v in known] + [cores or 0.0, 1.0])
    step = top / height
    rows: list[list[Cell]] = []
    for r in range(height - 1, -1, -1):
        lo, hi = r * step, (r + 1) * step
        mid = (lo + hi) / 2
        # the top row also holds the cores when they are the top (no sample rose above them)
        cores_row = cores is not None and (lo <= cores < hi or (r == height - 1 and cores >= top))
        label = (units.num(top) if r == height - 1 else units.num(cores) if cores and cores_row
                 else "0" if r == 0 else "")
        row: list[Cell] = [(f"{label:>{AXIS_W - 1}}┤" if label else " " * (AXIS_W - 1) + "│", "dim")]
        for p in cols:
            row.append(_cell(p, mid, cores_row))
        rows.append(row)
    return rows


def _cell(p: Point, mid: float, cores_row: bool) -> Cell:
    if p.values is not None:
        acc = 0.0
        for c in WAIT_CLASSES:
            acc += p.values[c]
            if mid < acc:
                return GLYPHS[c], STYLES[c]
    return (CORES_GLYPH, "dim") if cores_row else (" ", "")


def averages(points: Sequence[Point]) -> dict[str, float] | None:
    known = [p.values for p in points if p.values is not None]
    if not known:
        return None
    return {c: sum(v[c] for v in known) / len(known) for c in WAIT_CLASSES}


def legend(points: Sequence[Point], cores: float | None) -> list[str]:
    """'█ CPU / running 1.2  ▓ row lock 3.4 …' and the active sessions against the cores."""
    avg = averages(points)
    if avg is None:
        return ["no session counts in these samples (an older recording, or the processlist was not read)"]
    total = [sum(p.values.values()) for p in points if p.values is not None]
    head = (f"average active sessions {units.num(sum(avg.values()))}, peak {units.num(max(total))}"
            + (f", against {units.num(cores)} cores ({CORES_GLYPH})" if cores else ", core count unknown (not on this host)"))
    parts = [f"{GLYPHS[c]} {LABELS[c]} {units.num(avg[c])}" for c in WAIT_CLASSES]
    return [head, "  ".join(parts)]


def top_shapes(loads: Sequence[WaitLoad], per_class: int = 3) -> list[str]:
    """The statement shapes of each class, by average sessions over the loads given."""
    known = [ld for ld in loads if ld.active is not None]
    if not known:
        return []
    sums: dict[tuple[str, str], float] = {}
    for ld in known:
        for t in ld.top:
            sums[(t.wait_class, t.shape)] = sums.get((t.wait_class, t.shape), 0.0) + t.sessions
    # Latch and pending-IO time is moved out of the running sessions as thread-equivalents: the
    # server times it but does not say which session waits, so their statements stay listed here.
    moved = sum((ld.value(LATCH) or 0.0) + (ld.value(IO) or 0.0) for ld in known) / len(known)
    out = []
    for c in WAIT_CLASSES:
        ranked = sorted(((s, n / len(known)) for (cls, s), n in sums.items() if cls == c), key=lambda x: -x[1])
        if ranked:
            among = " (and the latch / IO waits among them)" if c == CPU and moved >= MOVED_SHOWN else ""
            out.append(f"{GLYPHS[c]} {LABELS[c]}{among}")
            out += [visible(f"    {units.num(n)}  {s}") for s, n in ranked[:per_class]]
    return out


def report_block(load: LoadSummary, block: Callable[..., Any]) -> Any:
    """The report's load block: the window's chart (one column per point), the averages against
    the cores, the peak, and each class's top statement shapes."""
    b = block("Database load by wait class (average active sessions; docs/wait-classes.md)", key="load")
    if load.active_avg is None:
        b.lines.append("no session counts in this window (an older recording, or the processlist was not read)")
        return b
    series = load.series
    n = len(series.get("time", []))
    pts = [Point({c: series[c][i] or 0.0 for c in WAIT_CLASSES}) for i in range(n)]
    b.pre = ["".join(t for t, _ in row) for row in chart(pts, AXIS_W + len(pts), REPORT_CHART_H, load.cores)]
    cores = f" against {units.num(load.cores)} cores ({CORES_GLYPH})" if load.cores else " (core count unknown)"
    b.lines.append(f"average active sessions {units.num(load.active_avg)}{cores}, peak {units.num(load.active_peak)}")
    b.lines.append("  ".join(f"{GLYPHS[c]} {LABELS[c]} {units.num(load.classes.get(c))}" for c in WAIT_CLASSES))
    for c in WAIT_CLASSES:
        shapes = [t for t in load.top if t["wait_class"] == c]
        if shapes:
            b.lines.append(f"{GLYPHS[c]} {LABELS[c]}: " + "; ".join(
                f"{units.num(t['sessions'])} {t['shape']}" for t in shapes))
    return b


# (dimension, heading) of the TOP LOAD tables, in the order a DBA asks
TOP_LOAD_DIMENSIONS = (("sql", "statement"), ("user", "user"), ("host", "client host"), ("schema", "schema"),
                       ("object", "wait object"))
TOP_LOAD_ROWS = 5
LABEL_CHARS = 100


def mix_text(classes: dict[str, float]) -> str:
    """A slice's wait classes as shares, largest first: 'row lock 74 %, CPU / running 26 %'."""
    total = sum(v for v in classes.values() if v > 0)
    if total <= 0:
        return ""
    ranked = sorted(((c, v) for c, v in classes.items() if v > 0 and c in LABELS), key=lambda x: -x[1])
    return ", ".join(f"{LABELS[c]} {100.0 * v / total:.0f} %" for c, v in ranked[:3])


def _cut(text: str, n: int = LABEL_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 1] + "…"


def top_load_lines(slices: dict[str, Any], rows: int = TOP_LOAD_ROWS, indent: str = "") -> list[str]:
    """The load by dimension as lines: per dimension its top values, average sessions, wait mix."""
    out: list[str] = []
    for dim, heading in TOP_LOAD_DIMENSIONS:
        got = slices.get(dim) or []
        if not got:
            continue
        out.append(f"{indent}by {heading}:")
        for x in got[:rows]:
            value = x["value"] if x["value"] != "" else "(none)"
            out.append(visible(f"{indent}  {units.num(x['sessions']):>6}  {_cut(value)}  [{mix_text(x['classes'])}]"))
    return out


def top_sql_lines(digests: Sequence[dict[str, Any]], rows: int = TOP_LOAD_ROWS) -> list[str]:
    """The window's top statement digests with their per-call figures."""
    if not digests:
        return []
    out = ["top SQL (statement digests): load, calls/s, avg ms, rows examined/call, statement"]
    for d in digests[:rows]:
        out.append(visible(f"  {units.num(d['load']):>6}  {units.num(d['calls_per_s']):>6}/s  "
                           f"{units.num(d['avg_ms']):>6} ms  {units.num(d['rows_examined_per_call']):>6}  "
                           f"{_cut(d['sql'])}"))
    return out


def top_load_block(load: LoadSummary, block: Callable[..., Any],
                   digests: Sequence[dict[str, Any]] = ()) -> Any:
    """The report's TOP LOAD: who carries the load over the window and over each finding's span,
    and the top statement digests where the server keeps them."""
    b = block("Top load (average active sessions by statement, user, client host, schema and object)",
              key="top_load")
    if not load.slices:
        b.lines.append("not recorded: this window holds no active-session samples (an older recording, an "
                       "import without a processlist)")
        b.lines += top_sql_lines(digests)
        return b
    b.lines += top_load_lines(load.slices)
    b.lines += top_sql_lines(digests)
    for span in load.spans:
        b.lines.append(visible(f"during {span['id']} ({_clock(span['first'])}–{_clock(span['last'])} UTC):"))
        b.lines += top_load_lines(span["slices"], rows=3, indent="  ")
    return b


def _clock(epoch: float) -> str:
    try:
        return datetime.fromtimestamp(epoch, timezone.utc).strftime("%H:%M:%S")
    except (ValueError, OverflowError, OSError):
        return "?"


def compare_block(grown: dict[str, list[dict[str, Any]]], block: Callable[..., Any]) -> Any:
    """Two windows' load by dimension side by side, what grew most first."""
    b = block("Top load compared (average active sessions, what grew most first)", key="top_load",
              header=["dimension", "A", "B", "change", "value"])
    for dim, heading in TOP_LOAD_DIMENSIONS:
        for x in grown.get(dim, [])[:TOP_LOAD_ROWS]:
            d = x["b"] - x["a"]
            b.rows.append([heading, units.num(x["a"]), units.num(x["b"]), ("+" if d >= 0 else "") + units.num(d),
                           visible(_cut(x["value"] if x["value"] != "" else "(none)"))])
    if not b.rows:
        b.lines.append("not recorded: neither window holds active-session samples")
    return b
