"""Reads a live source makes at a slower cadence than its polls, as frames see them: the latch
summary (every few seconds, slower still where it is costly) and SHOW GLOBAL STATUS (where it is
costly). The samples between two reads carry them unchanged, so what they give is worked out once
per read (by the rows' identity) and every rate is over the real span between the two reads."""

from __future__ import annotations

import dataclasses
from typing import Protocol

from mysqltop.core import hotspots as hs
from mysqltop.core.counters import valid_dt
from mysqltop.core.frame import Hotspot, LatchCounter
from mysqltop.core.identity_memo import IdentityMemo
from mysqltop.core.parsed import ParsedSample, numeric_status, waits_of


class Notes(Protocol):
    """Where a read says how it was made: a frame while derive makes it."""

    notes: list[str]
    read_at: dict[str, float]
    elapsed: float | None


def status_span(prev: ParsedSample | None, cur: ParsedSample, dt: float | None,
                frame: Notes) -> ParsedSample | None:
    """`prev` with the status counters it would have had were they read at its moment, while the
    sample's SHOW GLOBAL STATUS is an older read or follows one (its cost paces it): each counter
    on the straight line between its last two reads, so every status rate over dt is the exact
    average over the real span between those reads (never a zero between reads, never a jump)."""
    raw = cur.raw
    before, at = raw.global_status_before, raw.read_at or {}
    if prev is None or not isinstance(before, dict) or not valid_dt(dt):
        return prev
    latest, first = at.get("global_status") or [raw.wall, raw.mono], at.get("global_status_before")
    try:
        span = float(latest[1]) - float(first[1])                      # type: ignore[index]
    except (TypeError, ValueError, IndexError):
        return prev
    if not valid_dt(span):
        return prev
    try:
        base = numeric_status(before)
    except Exception:  # noqa: BLE001 — a recording's odd value costs the span, not the frame
        return prev
    scale = dt / span                                                  # type: ignore[operator]
    status = {k: v - (v - base[k]) * scale for k, v in cur.status.items() if k in base}
    frame.notes.append(f"status counters: SHOW GLOBAL STATUS is read every {span:.0f} s, not every poll (each "
                       "read is costly on this server): rates over its last two reads")
    return dataclasses.replace(prev, status=status)


def latch_counters(cur: ParsedSample) -> list[LatchCounter]:
    """Every latch that has waited since the server started (or P_S was truncated), by name within
    its source: performance_schema wait/synch instruments (not cond: a sleep, not contention) and
    SHOW ENGINE INNODB MUTEX rows summed by name. Worked out once for rows carried unchanged."""
    hit = _COUNTERS.get(cur.waits, cur.mutex)
    if hit is None:
        hit = _COUNTERS.put(_count_latches(cur), cur.waits, cur.mutex)
    return list(hit)


# Values of the latch rows that later samples carry unchanged (the latch summary is read every few
# seconds), by the identity of those rows: the frames share them and never change them.
_COUNTERS: IdentityMemo[list[LatchCounter]] = IdentityMemo()
_SPAN_HOTSPOTS: IdentityMemo[tuple[float, list[Hotspot]]] = IdentityMemo()


def _count_latches(cur: ParsedSample) -> list[LatchCounter]:
    out: dict[tuple[str, str], LatchCounter] = {}
    for event, row in (cur.waits or {}).items():
        if not event.startswith(hs.SYNCH_PREFIX) or event.startswith(hs.IDLE_PREFIX) or row.count_star <= 0:
            continue
        key = (hs.ps_short_name(event), "performance_schema")
        lc = out.get(key) or out.setdefault(key, LatchCounter(key[0], key[1], 0, None))
        lc.waits = (lc.waits or 0) + row.count_star
        if row.sum_timer_wait > 0:
            lc.wait_ms = (lc.wait_ms or 0.0) + row.sum_timer_wait / hs.PS_PICO_PER_MS
    for mrow in (cur.mutex or {}).values():
        n = mrow.os_waits if mrow.os_waits is not None else mrow.waits
        if n is None or n <= 0:
            continue
        key = (hs.mutex_short_name(mrow.name, mrow.site), "innodb_mutex")
        lc = out.get(key) or out.setdefault(key, LatchCounter(key[0], key[1], 0, None))
        lc.waits = (lc.waits or 0) + n
    return sorted(out.values(), key=lambda x: (x.source, x.name))


def latch_reads(cur: ParsedSample, frame: Notes) -> list[Hotspot] | None:
    """The latch summary read at a slower cadence than the polls (its cost): the rates over its
    last two reads, which the sample carries, marked as a span (Hotspot.span_s) and said with when
    they were read; [] when only one read is carried yet. None: read every poll (the usual path)."""
    raw = cur.raw
    at = raw.read_at or {}
    if raw.ps_waits_before is None and "ps_waits" not in at:
        return None
    latest = at.get("ps_waits") or [raw.wall, raw.mono]
    before = at.get("ps_waits_before")
    if raw.ps_waits_before is None or not before or len(before) < 2 or len(latest) < 2:
        return []
    try:
        rows = waits_of(raw.ps_waits_before)
    except (ValueError, TypeError, IndexError):
        return []
    span = float(latest[1]) - float(before[1])
    if not valid_dt(span):
        return []
    now = cur.waits or {}
    # the samples between two reads carry the same two: their rates are worked out once, and
    # ranked once (a frame keeps the top MAX_HOTSPOTS of all its sources: none below the top of
    # its own source can make it); the frames share these hotspots, which nothing changes
    made = _SPAN_HOTSPOTS.get(rows, now)
    if made is None or made[0] != span:
        ranked = hs.rank(hs.ps_hotspots(rows, now, span) or [])
        for h in ranked:
            h.span_s = span
        made = _SPAN_HOTSPOTS.put((span, ranked), rows, now)
    if not made[1]:
        return []
    hot = list(made[1])
    frame.read_at["ps_waits"] = float(latest[0])
    if span > hs.PS_SUMMARY_EVERY_S + (frame.elapsed or 0.0) + 0.5:
        # slower than the routine cadence (a poll or two apart): its cost on this server
        frame.notes.append(f"latches: the performance_schema summary is read every {span:.0f} s, not every "
                           "poll (each read is costly on this server): rates over its last two reads")
    return hot
