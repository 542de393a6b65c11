"""The page model: a Report (or a Comparison of two) as the sections of the HTML page, in the
order a reader needs them — the headline, the timeline charts, the stalls with their blocking
trees, the deadlocks, the findings with their evidence and settings, the top load, the figures,
the server and what was and was not recorded.

The words are the text report's own (views/report_text, locks_text, deadlocks_text: the same
builder output, the same lines), so the page says exactly what `report` says. Every string here
is final text with server text made visible (core/safe_text); the template escapes it. Frozen
values; pure.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Sequence

from mysqltop import __version__
from mysqltop.core import units
from mysqltop.core.blocking import Blocker, LockWaiter
from mysqltop.core.frame import WAIT_CLASSES, severity_rank
from mysqltop.core.incident_report import AdviceEpisode, Comparison, Report
from mysqltop.core.safe_text import visible
from mysqltop.core.wait_load import LABELS
from mysqltop.recording.reader import RecordingMeta
from mysqltop.views import deadlocks_text, locks_text, report_text
from mysqltop.views.page.page_charts import Bookmark, bookmarks, clock, plots
from mysqltop.views.page.svg_plot import Plot
from mysqltop.views.page.top_load import LoadTable, load_tables

LEAD_FINDINGS = 3          # findings the headline names when no stall does
TREE_NODES = 40            # waiters drawn under a root (the rest counted)
STALLS_SHOWN = 20          # stalls listed, biggest first (the rest counted: every one is in text and JSON)
TREES_SHOWN = 5            # of those, the ones drawn with their blocking tree
BOOKMARKS_SHOWN = 100      # bookmarks listed under the charts (the charts mark every one)
SPANS_SHOWN = 24           # episodes of one finding listed by time (the rest counted)

# What each row source a sample may lack is, in words (core/sample.POLL_STATEMENTS).
SOURCE_WORDS = {
    "innodb_status": "SHOW ENGINE INNODB STATUS", "innodb_mutex": "SHOW ENGINE INNODB MUTEX",
    "ps_waits": "performance_schema latch waits", "global_status": "global status counters",
    "innodb_metrics": "INNODB_METRICS", "server_time": "the server's clock", "lock_waits": "row-lock waits",
    "row_locks": "row locks", "transactions": "transactions", "sessions": "sessions (processlist)",
    "session_states": "session states", "lock_sessions": "sessions waiting for locks",
    "metadata_locks": "metadata locks", "mdl_plugin": "metadata_lock_info", "variables": "server variables",
}


@dataclass(frozen=True)
class Block:
    title: str
    lines: tuple[str, ...] = ()
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class TreeNode:
    text: str
    children: tuple["TreeNode", ...] = ()


@dataclass(frozen=True)
class StallView:
    heading: str
    lines: tuple[str, ...]
    tree: TreeNode | None
    more: str                       # waiters not drawn, in words ("" when all are)


@dataclass(frozen=True)
class FindingView:
    """One finding: its episodes in the window (most often one), told as at its longest."""
    severity: str
    id: str
    span: str               # the episodes' from–to, UTC
    samples: int
    message: str
    evidence: str
    episodes: int = 1


@dataclass(frozen=True)
class PatternView:
    line: str
    signature: tuple[str, ...]
    fixes: tuple[str, ...]
    story: tuple[str, ...]


@dataclass(frozen=True)
class Deadlocks:
    counts: str
    before: str
    patterns: tuple[PatternView, ...]


@dataclass(frozen=True)
class Window:
    key: str                        # "" for a report, "a" / "b" for a comparison's windows
    label: str
    headline: str | None            # the STALL line, as the text report's first line
    head: tuple[str, ...]           # server, window, resolution
    lead: tuple[FindingView, ...]   # the findings the headline names when no stall does
    empty: str | None               # why there is nothing to summarise
    charts: tuple[Plot, ...]
    bookmarks: tuple[Bookmark, ...]
    bookmarks_more: str
    stalls: tuple[StallView, ...]
    stalls_more: str                # stalls not listed, in words
    locks: tuple[Block, ...]        # longest blocking chains, longest transactions
    deadlocks: Deadlocks | None
    findings: tuple[FindingView, ...]
    holding: tuple[tuple[str, str, str], ...]     # (severity, id, evidence) over the whole window
    settings: tuple[tuple[str, str], ...]
    drops: Block | None
    load_head: str                  # average active sessions against the cores, the peak
    load_classes: tuple[tuple[str, str, str], ...]    # (colour class, wait class, average sessions)
    top_load: tuple[LoadTable, ...]
    figures: tuple[Block, ...]
    recorded: tuple[str, ...]
    notes: tuple[Block, ...]        # servers that answered, outages and restarts, notes


@dataclass(frozen=True)
class Page:
    title: str
    version: str
    redacted: bool
    redaction: str
    source: tuple[str, ...]
    compare: tuple[Block, ...]
    windows: tuple[Window, ...]


def _block(b: report_text.Block) -> Block:
    return Block(b.title, tuple(b.lines), tuple(b.header or ()), tuple(tuple(r) for r in b.rows))


def _span(e: AdviceEpisode) -> str:
    return clock(e.first) if e.first == e.last else f"{clock(e.first)}–{clock(e.last)}"


def _finding(e: AdviceEpisode) -> FindingView:
    return FindingView(visible(e.severity), visible(e.id), _span(e), e.frames, visible(e.message), visible(e.evidence))


def findings(episodes: Sequence[AdviceEpisode]) -> tuple[FindingView, ...]:
    """The episodes grouped by finding, in the report's order (stalls first, then as each began):
    a finding that came back twenty times is one entry with its twenty spans, told as at its
    most severe, longest episode."""
    groups: dict[str, list[AdviceEpisode]] = {}
    for e in episodes:
        groups.setdefault(e.id, []).append(e)
    out = []
    for eps in groups.values():
        if len(eps) == 1:
            out.append(_finding(eps[0]))
            continue
        top = max(eps, key=lambda e: (severity_rank(e.severity), e.last - e.first, -e.first))
        spans = ", ".join(_span(e) for e in eps[:SPANS_SHOWN])
        if len(eps) > SPANS_SHOWN:
            spans += f" and {len(eps) - SPANS_SHOWN} more"
        out.append(FindingView(visible(top.severity), visible(top.id), spans, sum(e.frames for e in eps),
                               visible(top.message), visible(top.evidence), len(eps)))
    return tuple(out)


def _waiter(w: LockWaiter, budget: list[int]) -> TreeNode:
    budget[0] -= 1
    kids = []
    for child in w.waiters:
        if budget[0] <= 0:
            break
        kids.append(_waiter(child, budget))
    return TreeNode(locks_text.waiter_line(w), tuple(kids))


def tree(b: Blocker) -> tuple[TreeNode, int]:
    """The root and who waits behind it, at most TREE_NODES waiters; and how many were drawn."""
    budget = [TREE_NODES]
    kids = []
    for w in b.waiters:
        if budget[0] <= 0:
            break
        kids.append(_waiter(w, budget))
    return TreeNode(locks_text.blocker_line(b), tuple(kids)), TREE_NODES - budget[0]


def _stalls(r: Report) -> tuple[StallView, ...]:
    out = []
    for i, ep in enumerate(r.stalls[:STALLS_SHOWN]):
        lines = [visible(x.strip()) for x in locks_text.episode_lines(ep)]
        root, more = None, ""
        if ep.tree is not None and i < TREES_SHOWN:
            root, drawn = tree(ep.tree)
            if ep.tree.blocked > drawn:
                more = f"… {ep.tree.blocked - drawn} more waiting"
        out.append(StallView(lines[0], tuple(lines[1:]), root, more))
    return tuple(out)


def _deadlocks(r: Report) -> Deadlocks | None:
    s = r.deadlocks
    if not (s.captured or s.before or s.counted):
        return None
    pats = tuple(PatternView(visible(deadlocks_text.pattern_line(i, p)),
                             tuple(visible(x) for x in p.signature.split(" || ")),
                             tuple(visible(f) for f in p.fixes),
                             tuple(deadlocks_text.story(p.example)) if p.example is not None else ())
                 for i, p in enumerate(s.patterns, 1))
    return Deadlocks(visible(s.counts), visible(s.before or ""), pats)


def _load_head(r: Report) -> str:
    ld = r.load
    if ld.active_avg is None:
        return "no session counts in this window (an older recording, or the processlist was not read)"
    cores = f" against {units.num(ld.cores)} cores" if ld.cores else " (core count unknown: not on this host)"
    peak = f", peak {units.num(ld.active_peak)}" + (f" at {clock(ld.peak_time)} UTC" if ld.peak_time else "")
    return f"average active sessions {units.num(ld.active_avg)}{cores}{peak}"


def _load_classes(r: Report) -> tuple[tuple[str, str, str], ...]:
    return tuple((f"c-{c}", LABELS[c], units.num(v)) for c in WAIT_CLASSES
                 if (v := r.load.classes.get(c)) is not None)


def _recorded(r: Report) -> tuple[str, ...]:
    n = max(r.samples, r.frames)
    out = []
    cpus = r.host.get("cpus")
    out.append(f"host counters (CPU, run queue): recorded ({units.num(cpus)} CPUs)" if cpus is not None else
               "host counters (CPU, run queue): not recorded (the server was not on the recording host)")
    out.append("active sessions by wait class: recorded" if r.load.active_avg is not None else
               "active sessions by wait class: not recorded (no session counts)")
    sources = sorted({h.source for h in r.hotspots})
    out.append(f"latch waits from: {', '.join(sources)}" if sources else "latch waits: none measured")
    for key, k in r.unrecorded.items():
        out.append(f"{SOURCE_WORDS.get(key, visible(key))}: not recorded in {k} of {n} samples "
                   "(unknown there, not none)")
    for key, k in r.errors.items():
        out.append(visible(f"{SOURCE_WORDS.get(key, key)}: failed in {k} sample(s)"))
    return tuple(out)


def window(r: Report, key: str = "", label: str = "") -> Window:
    blocks = {b.key: b for b in report_text.report_blocks(r)}
    head = blocks["head"].lines
    headline = head[0] if r.headline else None
    rest = tuple(head[1:] if r.headline else head)
    marks = bookmarks(r)
    grouped = findings(r.advice)
    ranked = sorted(grouped, key=lambda f: -severity_rank(f.severity))      # stable: then as they began
    lead = () if r.headline else tuple(ranked[:LEAD_FINDINGS])
    empty = None if r.live_frames else "no frames with rates in this window: nothing to summarise"
    return Window(
        key=key, label=label, headline=headline, head=rest, lead=lead, empty=empty,
        charts=plots(r, f"{key}-" if key else "") if r.live_frames else (),
        bookmarks=tuple(marks[:BOOKMARKS_SHOWN]),
        bookmarks_more=(f"… {len(marks) - BOOKMARKS_SHOWN} more: every one is in --format text and json"
                        if len(marks) > BOOKMARKS_SHOWN else ""),
        stalls=_stalls(r),
        stalls_more=(f"… {len(r.stalls) - STALLS_SHOWN} more stall(s), smaller: every one is in --format text "
                     "and json" if len(r.stalls) > STALLS_SHOWN else ""),
        locks=tuple(_block(blocks[k]) for k in ("chains", "transactions") if k in blocks),
        deadlocks=_deadlocks(r),
        findings=grouped,
        holding=tuple((visible(a.severity), visible(a.id), visible(a.evidence)) for a in r.window_advice),
        settings=tuple((visible(k), visible(v)) for k, v in sorted(r.variables.items())),
        drops=_block(blocks["drops"]) if "drops" in blocks else None,
        load_head=_load_head(r), load_classes=_load_classes(r),
        top_load=load_tables(r),
        figures=tuple(_block(blocks[k]) for k in ("throughput", "hotspots", "peaks", "host") if k in blocks),
        recorded=_recorded(r),
        notes=tuple(_block(blocks[k]) for k in ("servers", "outages", "notes") if k in blocks))


def redaction(meta: RecordingMeta | None) -> tuple[bool, str]:
    if meta is not None and meta.redacted and not meta.recorder_host:
        return True, ("Redacted: made from a copy written by mysqltop redact — no statement text; user, host, "
                      "schema, table and index names are pseudonyms (user_1, host_2, …).")
    if meta is not None and meta.redacted:
        return True, ("SQL text redacted when recorded (record --redact); user, host and schema names are as "
                      "recorded. For a page to share outside the company: mysqltop redact FILE COPY, then "
                      "report COPY --format html.")
    return False, ("Not redacted: statement text and user, host and schema names as recorded. For a page to "
                   "share outside the company: mysqltop redact FILE COPY, then report COPY --format html.")


def source_lines(meta: RecordingMeta | None, damaged: Sequence[str]) -> tuple[str, ...]:
    if meta is None:
        return ()
    name = visible(meta.path.rsplit("/", 1)[-1])
    every = f"every {meta.interval:g} s" if meta.interval else "interval unknown"
    out = [f"recording {name}: {meta.samples} samples ({every}) in {meta.segments} segment(s), "
           f"format {meta.format_version}, recorded by mysqltop {visible(meta.mysqltop_version or '?')}"]
    if meta.recorder_host:
        out.append(f"recorded on {visible(meta.recorder_host)}")
    out += [visible(d) for d in damaged]
    return tuple(out)


def page(obj: Report | Comparison, meta: RecordingMeta | None = None, damaged: Sequence[str] = ()) -> Page:
    redacted, words = redaction(meta)
    windows: tuple[Window, ...]
    first = obj.a if isinstance(obj, Comparison) else obj
    when = (datetime.fromtimestamp(first.start, timezone.utc).strftime(" — %Y-%m-%d %H:%M UTC")
            if first.start is not None else "")
    if isinstance(obj, Comparison):
        windows = (window(obj.a, "a", "Window A"), window(obj.b, "b", "Window B"))
        compare = tuple(_block(dataclasses.replace(b, title="") if b.key == "head" else b)   # the section's own
                        for b in report_text.compare_blocks(obj))
        address = obj.a.server.get("address")
    else:
        windows, compare, address = (window(obj),), (), obj.server.get("address")
    title = visible(f"mysqltop report — {address or 'unknown server'}{when}")
    return Page(title, __version__, redacted, words, source_lines(meta, damaged), compare, windows)
