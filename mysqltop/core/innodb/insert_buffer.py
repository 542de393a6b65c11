"""INSERT BUFFER AND ADAPTIVE HASH INDEX: change buffer size/merges, AHI partitions, searches/s."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .atoms import f, n
from .model import InnodbStatus, InsertBufferAHI
from .line_rules import Context, Rule, lines_of, run, set_fields

# Ibuf: size 1, free list len 0, seg size 2, 0 merges
# Ibuf: size 1, free list len 0, seg size 2,
# Ibuf for space 0: size 1, free list len 14, seg size 16, is empty         (5.0)
IBUF_RE = re.compile(
    rf"Ibuf(?: for space \d+)?: size {n('ibuf_size')}, free list len {n('ibuf_free_list_len')}, "
    rf"seg size {n('ibuf_seg_size')},?(?: {n('ibuf_merges')} merges)?"
)
# 27146584 inserts, 27146584 merged recs, 2778819 merges                     (≤ 5.1)
OLD_MERGES_RE = re.compile(
    rf"{n('ibuf_inserts')} inserts, {n('ibuf_merged_recs')} merged recs, {n('ibuf_merges')} merges"
)
# merged operations: / discarded operations:
OPS_HEAD_RE = re.compile(r"(merged|discarded) operations:")
# insert 0, delete mark 0, delete 0
OPS_RE = re.compile(r"insert (\d+), delete mark (\d+), delete (\d+)")
# Hash table size 5312557, used cells 4557942, node heap has 10145 buffer(s)
# Hash table size 34673, node heap has 0 buffer(s)
HASH_RE = re.compile(r"Hash table size (\d+),(?: used cells \d+,)? node heap has (\d+) buffer")
# 9493.51 hash searches/s, 2038.96 non-hash searches/s
SEARCHES_RE = re.compile(
    rf"{f('hash_searches_per_s')} hash searches/s, {f('non_hash_searches_per_s')} non-hash searches/s"
)


@dataclass
class _State:
    out: InsertBufferAHI
    ops: dict[str, int] | None = None      # where the next "insert …, delete mark …" goes


def _ops_head(m: re.Match[str], st: _State) -> None:
    st.ops = st.out.ibuf_merged if m[1] == "merged" else st.out.ibuf_discarded


def _ops(m: re.Match[str], st: _State) -> None:
    if st.ops is None:
        raise ValueError("operation counts outside a merged/discarded block")
    st.ops["insert"], st.ops["delete_mark"], st.ops["delete"] = int(m[1]), int(m[2]), int(m[3])


def _hash(m: re.Match[str], st: _State) -> None:
    out = st.out
    out.hash_tables += 1
    out.hash_table_size = (out.hash_table_size or 0) + int(m[1])
    out.hash_node_heap_buffers = (out.hash_node_heap_buffers or 0) + int(m[2])


RULES = [
    Rule("Ibuf", IBUF_RE, set_fields),
    Rule("Hash table size", HASH_RE, _hash),
    Rule(None, SEARCHES_RE, set_fields, has="hash searches/s"),
    Rule("insert ", OPS_RE, _ops),
    Rule(None, OPS_HEAD_RE, _ops_head, has=" operations:"),
    Rule(None, OLD_MERGES_RE, set_fields, has=" merged recs"),
]


def parse(body: str, status: InnodbStatus, ctx: Context) -> None:
    run(lines_of(body, ctx), RULES, _State(status.insert_buffer), ctx)
