"""FILE I/O: IO thread states, pending aio/fsync counts, OS file counters and rates.

MariaDB 10.6+ prints no thread lines and no aio line; its "N pending reads, N pending writes"
line only appears when one of them is non-zero, so its absence there means zero.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .atoms import f, n
from .model import FileIO, InnodbStatus, IoThreadState
from .numbers import int_list
from .line_rules import Context, Rule, lines_of, run, set_fields

# I/O thread 0 state: waiting for i/o request (insert buffer thread)
# I/O thread 2 state: doing file i/o (read thread) ev set
# I/O thread 0 state: waiting for completed aio requests ((null))
# I/O thread 3 state: waiting for i/o request (read thread) reads 2177 writes 0 requests 214 …
THREAD_RE = re.compile(r"I/O thread (\d+) state: (.*?) ?\(((?:\(null\)|[^()])*)\)")
# Pending normal aio reads: 45, aio writes: 0,                                  (≤ 5.1)
# Pending normal aio reads: 0 [0, 0, 0, 0] , aio writes: 0 [0, 0, 0, 0] ,      (5.5, 5.6)
# Pending normal aio reads: [0, 0, 0, 0] , aio writes: [0, 0, 0, 0] ,          (5.7+)
AIO_RE = re.compile(
    r"Pending normal aio reads:\s*(?P<rt>\d+)?\s*(?:\[(?P<rl>[\d, ]*)\])?\s*,?"
    r"\s*aio writes:\s*(?P<wt>\d+)?\s*(?:\[(?P<wl>[\d, ]*)\])?"
)
# ibuf aio reads: 0, log i/o's: 0, sync i/o's: 0      (also 8.0's bare " ibuf aio reads:")
IBUF_RE = re.compile(
    rf"ibuf aio reads:\s*{n('pending_ibuf_aio_reads')}?"
    rf"(?:,\s*log i/o's:\s*{n('pending_log_ios')}?)?(?:,\s*sync i/o's:\s*{n('pending_sync_ios')}?)?"
)
# Pending flushes (fsync) log: 0; buffer pool: 0
# Pending flushes (fsync): 0                                                   (MariaDB 10.6+)
FSYNC_RE = re.compile(r"Pending flushes \(fsync\)(?: log: (\d+); buffer pool: (\d+)|: (\d+))")
# 45418933 OS file reads, 35217570 OS file writes, 28236603 OS fsyncs
OS_FILE_RE = re.compile(
    rf"{n('os_file_reads')} OS file reads, {n('os_file_writes')} OS file writes, {n('os_fsyncs')} OS fsyncs"
)
# 1 pending preads, 0 pending pwrites          (5.0)
# 2 pending reads, 1 pending writes            (MariaDB 10.6+, only when non-zero)
OS_PENDING_RE = re.compile(
    rf"{n('os_pending_reads')} pending p?reads, {n('os_pending_writes')} pending p?writes"
)
# 42.96 reads/s, 75823 avg bytes/read, 0.00 writes/s, 0.00 fsyncs/s
RATES_RE = re.compile(
    rf"{f('reads_per_s')} reads/s, {n('avg_bytes_per_read')} avg bytes/read, "
    rf"{f('writes_per_s')} writes/s, {f('fsyncs_per_s')} fsyncs/s"
)

_ROLE_SUFFIX = " thread"


@dataclass
class _State:
    out: FileIO
    aio_reads_total: int | None = None
    aio_writes_total: int | None = None
    single_fsync_form: bool = False


def _thread(m: re.Match[str], st: _State) -> None:
    role = m[3].strip("()")
    if role.endswith(_ROLE_SUFFIX):
        role = role[: -len(_ROLE_SUFFIX)]
    st.out.io_threads.append(IoThreadState(id=int(m[1]), role=role, state=m[2]))


def _aio(m: re.Match[str], st: _State) -> None:
    out = st.out
    if m["rl"] is not None:
        out.pending_aio_reads = int_list(m["rl"])
    if m["wl"] is not None:
        out.pending_aio_writes = int_list(m["wl"])
    st.aio_reads_total = int(m["rt"]) if m["rt"] is not None else sum(out.pending_aio_reads)
    st.aio_writes_total = int(m["wt"]) if m["wt"] is not None else sum(out.pending_aio_writes)


def _fsync(m: re.Match[str], st: _State) -> None:
    out = st.out
    if m[3] is not None:
        out.pending_fsyncs = int(m[3])
        st.single_fsync_form = True
    else:
        out.pending_flush_log, out.pending_flush_buffer_pool = int(m[1]), int(m[2])
        out.pending_fsyncs = out.pending_flush_log + out.pending_flush_buffer_pool


RULES = [
    Rule("I/O thread ", THREAD_RE, _thread),
    Rule("Pending normal aio", AIO_RE, _aio),
    Rule("ibuf aio reads", IBUF_RE, set_fields),
    Rule("Pending flushes", FSYNC_RE, _fsync),
    Rule(None, OS_FILE_RE, set_fields, has=" OS file reads"),
    Rule(None, OS_PENDING_RE, set_fields, has=" pending "),
    Rule(None, RATES_RE, set_fields, has=" avg bytes/read"),
]


def parse(body: str, status: InnodbStatus, ctx: Context) -> None:
    out = status.file_io
    st = _State(out)
    run(lines_of(body, ctx), RULES, st, ctx)
    # Totals: normal aio (+ ibuf aio reads, + log i/o's for writes); else the OS pending line;
    # MariaDB 10.6+ (no thread lines, no aio line) omits that line when both are zero.
    if st.aio_reads_total is not None:
        out.pending_reads = st.aio_reads_total + (out.pending_ibuf_aio_reads or 0)
        out.pending_writes = (st.aio_writes_total or 0) + (out.pending_log_ios or 0)
    elif out.os_pending_reads is not None:
        out.pending_reads, out.pending_writes = out.os_pending_reads, out.os_pending_writes
    elif st.single_fsync_form or (not out.io_threads and out.os_file_reads is not None):
        out.pending_reads = out.pending_writes = 0
