"""Statement digests: performance_schema events_statements_summary_by_digest read as a bounded
delta, at a slower cadence than the poll (docs/instruments.md, "Statement digests").

Every DIGEST_EVERY_S one statement reads the digests seen since the previous read (`LAST_SEEN >=`
its server time, less a second of overlap: an unchanged digest read twice adds nothing), at most
ROWS_READ of them — a plain filtered read of the summary table, no ORDER BY, no GROUP BY, nothing
that needs a temporary table. The counters are cumulative, so each digest's change is taken here
against its previous read (kept per connection, at most MAX_KNOWN digests): a digest first seen
since the previous read counts whole, one already there at the first read is the baseline. The
first read of a connection is that baseline and yields no rows.

The consumer is joined in (setup_consumers `statements_digest`): with it off, one row of NULLs
says so, and the read stops for the connection — the sample then says, once per poll like every
read not sent, that statement shapes come from the processlist only.

Row shape (RawSample.digests, recorded as-is): one per digest that ran since the previous read,
the KEPT that took the most time; a monitor's reads (SHOW, performance_schema, information_schema:
mysqltop's own polls among them) are left out
  [schema, digest, digest_text, calls, total_ms, max_ms, rows_examined, rows_sent,
   tmp_disk_tables, no_index_used, span_s]
the counts are changes over span_s seconds of the server's clock (max_ms: the largest since the
server's counters started, what the table keeps).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

K_DIGESTS = "digests"
DIGEST_EVERY_S = 10.0
ROWS_READ = 2000
MAX_KNOWN = 20_000
TEXT_CHARS = 300
OVERLAP_S = 1.0
KEPT = 25                        # digests a sample keeps, by time spent (the recording's bytes stay bounded)


def monitoring(text: str) -> bool:
    """A monitor's read, not the application's work: SHOW statements and reads of
    performance_schema / information_schema (mysqltop's own polls among them)."""
    t = text.lstrip().lower().replace("`", "")
    return t.startswith("show ") or "performance_schema" in t or "information_schema" in t
PS_PER_MS = 1e9                  # timers are in picoseconds

OFF = ("skipped: statement digests are off (performance_schema consumer statements_digest): statement "
       "shapes come from the processlist only; UPDATE performance_schema.setup_consumers SET ENABLED = "
       "'YES' WHERE NAME = 'statements_digest' turns them on")

_COLS = ("c.ENABLED", "d.SCHEMA_NAME", "d.DIGEST", f"LEFT(d.DIGEST_TEXT, {TEXT_CHARS})", "d.COUNT_STAR", "d.SUM_TIMER_WAIT",
         "d.MAX_TIMER_WAIT", "d.SUM_ROWS_EXAMINED", "d.SUM_ROWS_SENT", "d.SUM_CREATED_TMP_DISK_TABLES",
         "d.SUM_NO_INDEX_USED", "UNIX_TIMESTAMP(d.FIRST_SEEN)")


def digest_sql(since: float | None) -> str:
    """The read of the digests seen since `since` (epoch, server clock; None: all of them)."""
    cond = "" if since is None else f" AND d.LAST_SEEN >= FROM_UNIXTIME({max(0.0, since):.0f})"
    return (f"SELECT {', '.join(_COLS)} FROM performance_schema.setup_consumers c "
            f"LEFT JOIN performance_schema.events_statements_summary_by_digest d ON c.ENABLED = 'YES'{cond} "
            f"WHERE c.NAME = 'statements_digest' LIMIT {ROWS_READ}")


def _num(v: Any) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) and x >= 0 else None


@dataclass
class DigestBook:
    """One connection's digest reads: when the next is due, and each digest's last counters."""

    due_at: float = float("-inf")
    read_at: float | None = None             # server clock of the last read
    known: dict[tuple[str, str], tuple[float, ...]] = field(default_factory=dict)
    off: bool = False

    def due(self, mono: float) -> bool:
        return not self.off and mono >= self.due_at

    def sql(self, mono: float) -> str:
        self.due_at = mono + DIGEST_EVERY_S
        return digest_sql(None if self.read_at is None else self.read_at - OVERLAP_S)

    def take(self, rows: Any, server_time: float | None) -> list[list[Any]] | None:
        """The rows read → the digests that ran since the previous read (None: the baseline
        read, or the consumer is off — then `off`)."""
        read = [list(r) for r in rows or () if len(r) >= 12]
        if any(str(r[0]).upper() != "YES" for r in read):
            self.off = True                  # the consumer's own row, and nothing joined to it
            return None
        rows = [r[1:] for r in read]
        if server_time is None:
            return None
        before_at, self.read_at = self.read_at, server_time
        if len(self.known) > MAX_KNOWN:
            self.known.clear()
            before_at = None                 # too many to remember: a new baseline
        out: list[list[Any]] = []
        span = None if before_at is None else server_time - before_at
        for r in rows:
            if len(r) < 11 or r[1] is None:
                continue
            counts = tuple(_num(v) or 0.0 for v in (r[3], r[4], r[6], r[7], r[8], r[9]))
            key = (str(r[0] or ""), str(r[1]))
            prev = self.known.get(key)
            self.known[key] = counts
            if span is None or span <= 0:
                continue
            if prev is None:
                first_seen = _num(r[10])
                if first_seen is None or before_at is None or first_seen < before_at - OVERLAP_S:
                    continue                 # there before the baseline, beyond what was read: unknown
                prev = (0.0,) * len(counts)
            d = [c - p for c, p in zip(counts, prev)]
            if d[0] <= 0 or any(x < 0 for x in d):
                continue                     # nothing ran, or the table was truncated
            max_ms = (_num(r[5]) or 0.0) / PS_PER_MS
            text = r[2] if isinstance(r[2], str) else ""
            if monitoring(text):
                continue
            out.append([key[0] or None, key[1], text[:TEXT_CHARS], int(d[0]), d[1] / PS_PER_MS, max_ms, int(d[2]),
                        int(d[3]), int(d[4]), int(d[5]), round(span, 3)])
        out.sort(key=lambda r: (-r[4], -r[3], r[1]))
        return out[:KEPT]
