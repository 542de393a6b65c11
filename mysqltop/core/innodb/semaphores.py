"""SEMAPHORES: OS wait array counters, spin/round/OS-wait counters and waiting-thread cells.

Empty on MariaDB 10.6+ (normal). 8.0 debug builds print an RW-LATCH INFO sub-section inside it,
which the dispatcher routes here as well.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .atoms import f, n, site
from .model import InnodbStatus, Semaphores, SemaphoreWait
from .line_rules import Context, Rule, ignore, lines_of, run, set_fields

# OS WAIT ARRAY INFO: reservation count 25852795, signal count 25040646
# OS WAIT ARRAY INFO: reservation count 119
# OS WAIT ARRAY INFO: signal count 103
OS_WAIT_RE = re.compile(
    rf"OS WAIT ARRAY INFO:(?: reservation count {n('reservation_count')},?)?"
    rf"(?: signal count {n('signal_count')})?"
)
# Mutex spin waits 1472567303, rounds 1361479798, OS waits 10761956
MUTEX_RE = re.compile(
    rf"Mutex spin waits {n('mutex_spin_waits')}, rounds {n('mutex_spin_rounds')}, "
    rf"OS waits {n('mutex_os_waits')}"
)
# RW-shared spins 20, rounds 585, OS waits 18                       (5.5+)
# RW-shared spins 28507164, OS waits 11626439; RW-excl spins 20124203, OS waits 2147828  (5.0/5.1)
RW_SHARED_RE = re.compile(
    rf"RW-shared spins {n('rw_shared_spins')}, (?:rounds {n('rw_shared_rounds')}, )?"
    rf"OS waits {n('rw_shared_os_waits')}"
    rf"(?:; RW-excl spins {n('rw_excl_spins')}, (?:rounds {n('rw_excl_rounds')}, )?"
    rf"OS waits {n('rw_excl_os_waits')})?"
)
# RW-excl spins 0, rounds 0, OS waits 0
RW_EXCL_RE = re.compile(
    rf"RW-excl spins {n('rw_excl_spins')}, (?:rounds {n('rw_excl_rounds')}, )?"
    rf"OS waits {n('rw_excl_os_waits')}"
)
# RW-sx spins 0, rounds 0, OS waits 0
RW_SX_RE = re.compile(
    rf"RW-sx spins {n('rw_sx_spins')}, (?:rounds {n('rw_sx_rounds')}, )?OS waits {n('rw_sx_os_waits')}"
)
# Spin rounds per wait: 0.92 mutex, 29.25 RW-shared, 34.00 RW-excl, 0.00 RW-sx
SPIN_PER_WAIT_RE = re.compile(r"Spin rounds per wait:(.*)")
# 29.25 RW-shared   (one item of the line above)
_PER_WAIT_ITEM_RE = re.compile(r"(\d+(?:\.\d+)?) (mutex|RW-shared|RW-excl|RW-sx)")
_PER_WAIT_FIELD = {
    "mutex": "spin_rounds_per_wait_mutex",
    "RW-shared": "spin_rounds_per_wait_rw_shared",
    "RW-excl": "spin_rounds_per_wait_rw_excl",
    "RW-sx": "spin_rounds_per_wait_rw_sx",
}

# --Thread 1568861104 has waited at btr0cur.c line 424 for 0.00 seconds the semaphore:
THREAD_RE = re.compile(
    rf"--Thread (?P<thread>\S+) has waited at (?P<file>\S+) line (?P<line>\d+) "
    rf"for {f('seconds')} seconds the semaphore:"
)
# Mutex at 0xf89ab0 '&kernel_mutex', lock var 1                         (XtraDB 5.1/5.5)
# Mutex at 0x2b1c9d0 created file srv0srv.c line 1234, lock var 1       (5.0 … 5.6)
# Mutex at 0x7f…, Mutex TRX_SYS created trx0sys.cc:595, lock var 1      (5.7+)
MUTEX_AT_RE = re.compile(r"Mutex at (?P<addr>[^\s,]+),? ?(?P<rest>.*)")
# '&kernel_mutex'   (in the rest of a "Mutex at" line)
_QUOTED_RE = re.compile(r"'([^']*)'")
# created file srv0srv.c line 1234
_CREATED_FILE_RE = re.compile(r"created (?:in )?file (\S+) line (\d+)")
# Mutex TRX_SYS created trx0sys.cc:595
_CREATED_SITE_RE = re.compile(r"(?:Mutex (\S+) )?created (\S+?):(\d+)")
# S-lock on RW-latch at 0x654e0088 created in file buf0buf.c line 490
# X-lock on RW-latch at 0x7f4bedbf8810 '&block->lock'
# X-lock (wait_ex) on RW-latch at 0x… created in file buf0buf.cc line 1455
# SX-lock on RW-latch at 0x… created in file dict0dict.cc line 2534
RW_LATCH_RE = re.compile(
    r"(?P<kind>S-lock|X-lock|SX-lock)(?: \((?P<mode>[^)]*)\))? on RW-latch at (?P<addr>\S+)"
    r"(?: '(?P<name>[^']*)'| created in file (?P<file>\S+) line (?P<line>\d+))?"
)
# a writer (thread id 1568861104) has reserved it in mode  exclusive
WRITER_RE = re.compile(r"a writer \(thread id (?P<thread>[^)]*)\) has reserved it in mode\s+(?P<mode>.+)")
# number of readers 0, waiters flag 1, lock_word: 0
READERS_RE = re.compile(rf"number of readers {n('readers')}, waiters flag {n('waiters_flag')}")
# waiters flag 1
WAITERS_RE = re.compile(rf"waiters flag {n('waiters_flag')}")
# Last time read locked in file btr0cur.c line 424
LAST_READ_RE = re.compile(r"Last time read locked " + site("at"))
# Last time write locked in file /home/…/storage/innobase/ha/hash0hash.cc line 64
LAST_WRITE_RE = re.compile(r"Last time write locked " + site("at"))
# Last time reserved in file buf0buf.c line 1693, waiters flag 1
# Last time reserved by thread 140… in file trx0trx.cc line 1621, waiters flag 0
LAST_RESERVED_RE = re.compile(
    r"Last time reserved (?:by thread \S+ )?" + site("at") + rf"(?:, waiters flag {n('waiters_flag')})?"
)


def file_line(path: str | None, line: str | None) -> str | None:
    """'btr/btr0cur.c', '424' → 'btr0cur.c:424' (basename, so sites group across builds)."""
    if path is None or line is None or " " in path:
        return None
    return f"{path.rsplit('/', 1)[-1]}:{line}"


@dataclass
class _State:
    out: Semaphores
    cur: SemaphoreWait = field(default_factory=SemaphoreWait)   # detached until a --Thread line


def _per_wait(m: re.Match[str], st: _State) -> None:
    for value, kind in _PER_WAIT_ITEM_RE.findall(m[1]):
        setattr(st.out, _PER_WAIT_FIELD[kind], float(value))


def _thread(m: re.Match[str], st: _State) -> None:
    st.cur = SemaphoreWait(
        thread=m["thread"], seconds=float(m["seconds"]), waited_at=file_line(m["file"], m["line"])
    )
    st.out.waits.append(st.cur)


def _mutex_at(m: re.Match[str], st: _State) -> None:
    cur, rest = st.cur, m["rest"]
    cur.lock, cur.address = "mutex", m["addr"]
    q = _QUOTED_RE.search(rest)
    if q:
        cur.name = q[1]
    c = _CREATED_FILE_RE.search(rest)
    if c:
        cur.created_at = file_line(c[1], c[2])
    else:
        c = _CREATED_SITE_RE.search(rest)
        if c:
            cur.name = cur.name or c[1]
            cur.created_at = file_line(c[2], c[3])


def _rw_latch(m: re.Match[str], st: _State) -> None:
    cur = st.cur
    cur.lock = m["kind"] if m["mode"] is None else f"{m['kind']} ({m['mode']})"
    cur.name, cur.address = m["name"], m["addr"]
    cur.created_at = file_line(m["file"], m["line"])


def _writer(m: re.Match[str], st: _State) -> None:
    st.cur.writer, st.cur.writer_mode = m["thread"], m["mode"].strip()


def _readers(m: re.Match[str], st: _State) -> None:
    st.cur.readers, st.cur.waiters_flag = int(m["readers"]), int(m["waiters_flag"])


def _waiters(m: re.Match[str], st: _State) -> None:
    st.cur.waiters_flag = int(m["waiters_flag"])


def _last_read(m: re.Match[str], st: _State) -> None:
    st.cur.last_read_locked = file_line(m["at_file"], m["at_line"])


def _last_write(m: re.Match[str], st: _State) -> None:
    st.cur.last_locked = file_line(m["at_file"], m["at_line"])
    if m.groupdict().get("waiters_flag") is not None:
        st.cur.waiters_flag = int(m["waiters_flag"])


RULES = [
    Rule("OS WAIT ARRAY INFO:", OS_WAIT_RE),
    Rule("--Thread ", THREAD_RE, _thread),
    Rule(None, RW_LATCH_RE, _rw_latch, has="-lock"),
    Rule("a writer (thread id", WRITER_RE, _writer),
    Rule("number of readers", READERS_RE, _readers),
    Rule("Last time read locked", LAST_READ_RE, _last_read),
    Rule("Last time write locked", LAST_WRITE_RE, _last_write),
    Rule("Last time reserved", LAST_RESERVED_RE, _last_write),
    Rule("Mutex at ", MUTEX_AT_RE, _mutex_at),
    Rule("waiters flag", WAITERS_RE, _waiters),
    Rule("Mutex spin waits", MUTEX_RE, set_fields),
    Rule("RW-shared spins", RW_SHARED_RE, set_fields),
    Rule("RW-excl spins", RW_EXCL_RE, set_fields),
    Rule("RW-sx spins", RW_SX_RE, set_fields),
    Rule("Spin rounds per wait:", SPIN_PER_WAIT_RE, _per_wait),
    # Lock wait timeouts 0 (Google-patched 5.0) | wait has ended | 8.0 debug RW-LATCH INFO: "RW-LOCK: 0x…", "Locked: thread …", totals
    *ignore("Lock wait timeouts", "wait has ended", "RW-LOCK:", "Locked: thread", "Total number of rw-locks"),
]


def parse(body: str, status: InnodbStatus, ctx: Context) -> None:
    run(lines_of(body, ctx), RULES, _State(status.semaphores), ctx)
