"""BUFFER POOL AND MEMORY (totals) and INDIVIDUAL BUFFER POOL INFO (one block per instance)."""

from __future__ import annotations

import dataclasses
import re

from .atoms import f, n
from .model import BufferPool, InnodbStatus
from .numbers import ratio
from .line_rules import Context, Out, Rule, ignore, lines_of, run


def _line(label: str, name: str) -> re.Pattern[str]:
    return re.compile(rf"{re.escape(label)}\s+{n(name)}$")


def _hit_rate(m: re.Match[str], st: Out) -> None:
    st.out.hit_rate = ratio(m[1], m[2])


def _pending_writes(m: re.Match[str], st: Out) -> None:
    out = st.out
    out.pending_writes_lru, out.pending_writes_flush_list = int(m[1]), int(m[2])
    if m[3] is not None:
        out.pending_writes_single_page = int(m[3])


RULES = [
    # Buffer pool size   81920 | Buffer pool size, bytes 8589934592 (Percona)
    Rule("Buffer pool size,", re.compile(rf"Buffer pool size, bytes {n('size_bytes')}")),
    Rule("Buffer pool size", _line("Buffer pool size", "size_pages")),
    # Free buffers       0
    Rule("Free buffers", _line("Free buffers", "free_pages")),
    # Database pages     71206
    Rule("Database pages", _line("Database pages", "database_pages")),
    # Old database pages 438
    Rule("Old database pages", _line("Old database pages", "old_database_pages")),
    # Modified db pages  127
    Rule("Modified db pages", _line("Modified db pages", "modified_pages")),
    # Pending reads 64
    Rule("Pending reads", _line("Pending reads", "pending_reads")),
    # Pending writes: LRU 0, flush list 0, single page 0 | Pending writes: LRU 0, flush list 0
    Rule("Pending writes:", re.compile(
        r"Pending writes: LRU (\d+), flush list (\d+)(?:,? single page (\d+))?"), _pending_writes),
    # Pages made young 161, not young 0
    Rule("Pages made young", re.compile(
        rf"Pages made young {n('pages_made_young')}, not young {n('pages_not_young')}")),
    # Pages read 193076880, created 6774244, written 30675418
    Rule("Pages read ", re.compile(
        rf"Pages read {n('pages_read')}, created {n('pages_created')}, written {n('pages_written')}")),
    # 8.94 youngs/s, 0.00 non-youngs/s
    Rule(None, re.compile(rf"{f('youngs_per_s')} youngs/s, {f('non_youngs_per_s')} non-youngs/s"),
         has=" youngs/s"),
    # 205.79 reads/s, 0.00 creates/s, 0.00 writes/s
    Rule(None, re.compile(
        rf"{f('pages_read_per_s')} reads/s, {f('pages_created_per_s')} creates/s, "
        rf"{f('pages_written_per_s')} writes/s"), has=" creates/s"),
    # Buffer pool hit rate 995 / 1000 | … 1000 / 1000, young-making rate 0 / 1000 not 0 / 1000
    Rule("Buffer pool hit rate", re.compile(r"Buffer pool hit rate (\d+) / (\d+)"), _hit_rate),
    # LRU len: 1242, unzip_LRU len: 0
    Rule("LRU len:", re.compile(rf"LRU len: {n('lru_len')}")),
    # Total memory allocated 1466180702; in additional pool allocated 9271040
    Rule("Total memory allocated", re.compile(
        rf"Total memory allocated {n('total_memory_allocated')}"
        rf"(?:; in additional pool allocated {n('additional_pool_allocated')})?")),
    # Total large memory allocated 0
    Rule("Total large memory", re.compile(rf"Total large memory allocated {n('total_memory_allocated')}")),
    # Dictionary memory allocated 643375
    Rule("Dictionary memory", re.compile(rf"Dictionary memory allocated {n('dictionary_memory_allocated')}")),
    # Percent of dirty pages(LRU & free pages): 65.763          (MariaDB)
    Rule("Percent of dirty", re.compile(rf"Percent of dirty pages\(LRU & free pages\): {f('dirty_pct')}")),
    # Max dirty pages percent: 90.000
    Rule("Max dirty pages", re.compile(rf"Max dirty pages percent: {f('max_dirty_pct')}")),
    # No buffer pool page gets since the last printout | Pages read ahead 0.00/s, evicted … |
    # I/O sum[0]:cur[0], … | Percona "Internal hash tables (constant factor + variable factor)"
    # and its indented breakdown ("Adaptive hash index 1234 (1234 + 0)", …)
    *ignore("No buffer pool page gets", "Pages read ahead", "I/O sum", "Internal hash tables",
            "Adaptive hash index", "Page hash", "Dictionary cache", "File system", "Lock system",
            "Recovery system", "Threads", "Total memory allocated by read views"),
]

INSTANCE_KEYS = [
    fld.name for fld in dataclasses.fields(BufferPool)
    if fld.name not in ("instances", "total_memory_allocated", "additional_pool_allocated",
                      "dictionary_memory_allocated", "size_bytes")
]

# ---BUFFER POOL 0
INSTANCE_RE = re.compile(r"---BUFFER POOL (\d+)")


def parse(body: str, status: InnodbStatus, ctx: Context) -> None:
    run(lines_of(body, ctx), RULES, Out(status.buffer_pool), ctx)


def parse_instances(body: str, status: InnodbStatus, ctx: Context) -> None:
    pool: BufferPool | None = None
    lines: list[str] = []

    def flush() -> None:
        if pool is not None:
            run(lines, RULES, Out(pool), ctx)
            item = {"id": pool_id, **{k: getattr(pool, k) for k in INSTANCE_KEYS}}
            status.buffer_pool.instances.append(item)

    pool_id = -1
    for line in lines_of(body, ctx):
        if line.startswith("---BUFFER POOL"):
            m = INSTANCE_RE.match(line)
            if m is not None:
                flush()
                pool, pool_id, lines = BufferPool(), int(m[1]), []
                continue
        if pool is None:
            if line.strip():
                ctx.unknown.append(line.strip())
        else:
            lines.append(line)
    flush()
