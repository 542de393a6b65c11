"""LATEST DETECTED DEADLOCK, the whole story: every transaction, its locks, and the victim.

The layouts differ by server:
  MySQL ≤ 5.7, Percona   "*** (1) WAITING FOR THIS LOCK TO BE GRANTED:", "*** (2) HOLDS THE LOCK(S):"
  MySQL 8.0+             "*** (N) HOLDS THE LOCK(S):" for every transaction, then its wait
  MariaDB 10.6+          "*** WAITING FOR THIS LOCK TO BE GRANTED:", "*** CONFLICTING WITH:" (the
                         locks in the way, each naming its owner by "trx id")
so a lock is given to the transaction whose id its line names, and it is a wait when the line
ends in "waiting". Every statement is hostile text, kept raw here: views pass it through
safe_text. Where a statement ends is decided by what follows it (deadlock_spans.py), so a story
forged inside a statement stays statement text, and makes the deadlock `doubtful`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from .atoms import time_of
from .deadlock_spans import HEADING as _HEADING
from .deadlock_spans import THREAD as _THREAD
from .deadlock_spans import TRX_HEAD as _TRX_HEAD
from .deadlock_spans import VICTIM as _VICTIM
from .deadlock_spans import forged_anywhere, statement_spans

# How the lock covers the record, by how the server words it (the order matters: insert
# intention lines say "gap before rec" too).
RECORD = "record"                    # "locks rec but not gap"
GAP = "gap"                          # "locks gap before rec"
NEXT_KEY = "next-key"                # neither: the record and the gap before it
INSERT_INTENTION = "insert-intention"
TABLE = "table"                      # TABLE LOCK (IX, AUTO-INC …)

MAX_FIELDS = 8                       # key fields kept per record (the key comes first)
MAX_RECORDS = 4                      # records kept per lock


@dataclass
class LockedRecord:
    heap_no: int | None = None
    fields: list[str | None] = field(default_factory=list)   # hex per field, None for SQL NULL
    supremum: bool = False           # the page's upper bound: the lock covers the gap at the end


@dataclass
class DeadlockLock:
    kind: str = TABLE                # RECORD | GAP | NEXT_KEY | INSERT_INTENTION | TABLE
    mode: str | None = None          # X, S, IX, IS, AUTO-INC
    table: str | None = None         # `db`.`t` as printed, quotes stripped: db.t
    index: str | None = None
    trx_id: str | None = None        # owner as printed (hex ≤ 5.5, decimal after)
    waiting: bool = False
    space: int | None = None
    page: int | None = None
    records: list[LockedRecord] = field(default_factory=list)


@dataclass
class DeadlockTrx:
    number: int                      # the (N) the section gives it
    trx_id: str | None = None
    active_s: int | None = None
    state: str | None = None         # "starting index read", "inserting", "fetching rows"
    tables_in_use: int | None = None
    tables_locked: int | None = None
    lock_structs: int | None = None
    row_locks: int | None = None
    undo_entries: int | None = None
    thread_id: int | None = None
    query_id: int | None = None
    host: str | None = None
    user: str | None = None
    query_state: str | None = None   # the thread's state after the user ("updating", "Sending data")
    statement: str | None = None     # raw, hostile
    holds: list[DeadlockLock] = field(default_factory=list)
    waits_for: list[DeadlockLock] = field(default_factory=list)


@dataclass
class Deadlock:
    time: str | None = None          # normalised "YYYY-MM-DD HH:MM:SS"
    thread: str | None = None        # the thread id printed after the time
    transactions: list[DeadlockTrx] = field(default_factory=list)
    victim: int | None = None        # "WE ROLL BACK TRANSACTION (N)"
    truncated: bool = False          # the section ends before the victim line, or the search gave up
    too_deep: bool = False           # "TOO DEEP OR LONG SEARCH IN THE LOCK TABLE WAITS-FOR GRAPH"
    doubtful: bool = False           # a statement holds the section's own line shapes: maybe forged

    @property
    def victim_trx(self) -> DeadlockTrx | None:
        return next((t for t in self.transactions if t.number == self.victim), None)


# TRANSACTION 1824, ACTIVE 9 sec starting index read
# TRANSACTION 0 1807, ACTIVE 1 sec, process no 3, OS thread id 1 inserting       (5.0, 5.1)
_TRX = re.compile(r"TRANSACTION (?P<id>[0-9A-Fa-f]+(?: \d+)?), ACTIVE (?:\(PREPARED\) )?(?P<active>\d+) sec"
                  r"(?:, process no \d+)?(?:, OS thread id \d+)?(?: (?P<state>.+))?$")
# mysql tables in use 1, locked 1
_TABLES = re.compile(r"mysql tables in use (?P<use>\d+), locked (?P<locked>\d+)")
# LOCK WAIT 2 lock struct(s), heap size 1136, 1 row lock(s), undo log entries 1
_STRUCTS = re.compile(r"(?:LOCK WAIT )?(?P<structs>\d+) lock struct\(s\), heap size \d+"
                      r"(?:, (?P<rows>\d+) row lock\(s\))?(?:, undo log entries (?P<undo>\d+))?")
# RECORD LOCKS space id 35 page no 3 n bits 72 index `PRIMARY` of table `foo`.`foo` trx id AFB88BCF lock_mode X …
_RECORD_LOCK = re.compile(r"RECORD LOCKS space id (?P<space>\d+) page no (?P<page>\d+) n bits \d+ "
                          r"index (?P<index>.+?) of table (?P<table>.+?) trx id (?P<trx>[0-9A-Fa-f]+(?: \d+)?) "
                          r"lock[_ ]mode (?P<mode>\S+)(?P<rest>.*)$")
# TABLE LOCK table `test`.`t` trx id 2078 lock mode IX
_TABLE_LOCK = re.compile(r"TABLE LOCK table (?P<table>.+?) trx id (?P<trx>[0-9A-Fa-f]+(?: \d+)?) "
                         r"lock[_ ]mode (?P<mode>\S+)(?P<rest>.*)$")
# Record lock, heap no 2 PHYSICAL RECORD: n_fields 4; compact format; info bits 0
_RECORD = re.compile(r"Record lock, heap no (?P<heap>\d+)")
#  0: len 4; hex 80000001; asc     ;;   |   1: SQL NULL;
_FIELD = re.compile(r"(?P<i>\d+): (?:len \d+; hex (?P<hex>[0-9a-fA-F]+)(?P<more>\.\.\.)?;(?: asc (?P<asc>.*))?|SQL NULL)")


def _unquote(name: str) -> str:
    """`db`.`t` / "db"."t" / db/t → db.t (quotes only, names kept as printed)."""
    name = name.strip()
    for q in ("`", '"'):
        name = name.replace(f"{q}.{q}", ".")
        if len(name) >= 2 and name[0] == q and name[-1] == q:
            name = name[1:-1]
    return name


def _kind(rest: str, record_lock: bool) -> str:
    if not record_lock:
        return TABLE
    if "insert intention" in rest:
        return INSERT_INTENTION
    if "rec but not gap" in rest:
        return RECORD
    if "gap before rec" in rest:
        return GAP
    return NEXT_KEY


def _lock(line: str) -> DeadlockLock | None:
    m = _RECORD_LOCK.match(line)
    if m is not None:
        return DeadlockLock(_kind(m["rest"], True), m["mode"], _unquote(m["table"]), _unquote(m["index"]),
                            m["trx"], m["rest"].rstrip().endswith("waiting"), int(m["space"]), int(m["page"]))
    m = _TABLE_LOCK.match(line)
    if m is not None:
        return DeadlockLock(TABLE, m["mode"], _unquote(m["table"]), None, m["trx"],
                            m["rest"].rstrip().endswith("waiting"))
    return None


def _who(rest: str) -> tuple[str | None, str | None, str | None]:
    """' 10.8.0.86 robot Sending data' → host, user, state. A host may print its name and its
    address ('db1.example.com 10.10.9.210 root update'); an address has a digit or a colon."""
    words = rest.split()
    if len(words) >= 3 and re.fullmatch(r"[0-9a-fA-F.:]+", words[1]) and any(c.isdigit() for c in words[1]):
        return f"{words[0]} {words[1]}", words[2], " ".join(words[3:]) or None
    if len(words) >= 2:
        return words[0], words[1], " ".join(words[2:]) or None
    return (words[0] if words else None), None, None


def _joined(lines: list[str]) -> list[str]:
    """Lines as the server wrote them: a lock line wrapped before its "trx id" (documentation
    copies wrap at 80 columns) is joined with its continuation."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        i += 1
        if line.startswith(("RECORD LOCKS ", "TABLE LOCK ")):
            while " trx id " not in line and i < len(lines) and lines[i].strip() and not lines[i].startswith("***"):
                line += " " + lines[i].strip()
                i += 1
        out.append(line)
    return out


class _Reader:
    def __init__(self) -> None:
        self.dl = Deadlock()
        self.trx: DeadlockTrx | None = None
        self.target: str | None = None         # "holds" | "waits" | "conflict": where lock lines go
        self.lock: DeadlockLock | None = None
        self.record: LockedRecord | None = None
        self.statement: list[str] | None = None
        self.after_thread = False
        self.pending: list[DeadlockLock] = []  # MariaDB: conflicting locks of a transaction printed later

    def feed(self, line: str) -> None:
        s = line.strip()
        if self.statement is not None:
            if not s.startswith("*** "):
                self.statement.append(line)
                return
            self._end_statement()
        if s.startswith("*** "):
            self._heading(s)
        elif self.trx is not None and self.target is None:
            self._trx_line(s)
        elif self.target is not None:
            self._lock_line(s)
        elif s.startswith("TOO DEEP OR LONG SEARCH"):
            self.dl.too_deep = True

    def _end_statement(self) -> None:
        assert self.trx is not None and self.statement is not None
        text = "\n".join(self.statement).strip()
        self.trx.statement = text or None
        self.statement = None

    def _heading(self, s: str) -> None:
        self.lock = self.record = None
        m = _TRX_HEAD.match(s)
        if m is not None:
            n = int(m["n"]) if m["n"] else len(self.dl.transactions) + 1
            self.trx = DeadlockTrx(n)
            self.dl.transactions.append(self.trx)
            self.target = None
            return
        m = _VICTIM.match(s)
        if m is not None:
            self.dl.victim = int(m["n"])
            self.trx = self.target = None
            return
        m = _HEADING.match(s)
        if m is not None and self.trx is not None:
            self.target = ("holds" if m["what"].startswith("HOLDS") else
                           "waits" if m["what"].startswith("WAITING") else "conflict")
            return
        if s.startswith("*** WE ROLL BACK"):       # 5.0: "*** WE ROLL BACK TRANSACTION (2)" only form
            return
        self.target = "ignore"

    def _trx_line(self, s: str) -> None:
        t = self.trx
        assert t is not None
        if (m := _TRX.match(s)) is not None:
            t.trx_id, t.active_s, t.state = m["id"], int(m["active"]), m["state"]
        elif (m := _TABLES.match(s)) is not None:
            t.tables_in_use, t.tables_locked = int(m["use"]), int(m["locked"])
        elif (m := _STRUCTS.match(s)) is not None:
            t.lock_structs = int(m["structs"])
            t.row_locks = int(m["rows"]) if m["rows"] else None
            t.undo_entries = int(m["undo"]) if m["undo"] else None
        elif (m := _THREAD.match(s)) is not None:
            t.thread_id = int(m["thread"])
            t.query_id = int(m["query"]) if m["query"] else None
            t.host, t.user, t.query_state = _who(m["rest"])
            self.statement = []
            self.after_thread = t.user is None      # a documentation copy wrapped "root updating"

    def _lock_line(self, s: str) -> None:
        if self.target == "ignore" or self.trx is None:
            return
        lock = _lock(s) if s.startswith(("RECORD LOCKS ", "TABLE LOCK ")) else None
        if lock is not None:
            self._place(lock)
            return
        if self.lock is None:
            return
        if (m := _RECORD.match(s)) is not None:
            self.record = None
            if len(self.lock.records) < MAX_RECORDS:
                self.record = LockedRecord(int(m["heap"]))
                self.lock.records.append(self.record)
        elif self.record is not None and (m := _FIELD.match(s)) is not None:
            if m["asc"] is not None and m["asc"].startswith("supremum"):
                self.record.supremum = True
            elif len(self.record.fields) < MAX_FIELDS:
                self.record.fields.append(m["hex"].lower() if m["hex"] else None)

    def _place(self, lock: DeadlockLock) -> None:
        """A lock goes to the transaction its line names; under HOLDS or WAITING it is this one's."""
        assert self.trx is not None
        self.lock, self.record = lock, None
        owner = self.trx
        if self.target == "conflict":
            found = next((t for t in self.dl.transactions if t.trx_id == lock.trx_id), None)
            if found is None:
                self.pending.append(lock)
                return
            owner = found
        if lock.waiting:
            if lock not in owner.waits_for:
                owner.waits_for.append(lock)
        elif not any(_same(lock, h) for h in owner.holds):
            owner.holds.append(lock)

    def finish(self) -> Deadlock:
        if self.statement is not None:
            self._end_statement()
        for lock in self.pending:
            owner = next((t for t in self.dl.transactions if t.trx_id == lock.trx_id), None)
            if owner is not None and not any(_same(lock, h) for h in owner.holds):
                owner.holds.append(lock)
        dl = self.dl
        dl.truncated = dl.victim is None or len(dl.transactions) < 2 or dl.too_deep
        return dl


def _same(a: DeadlockLock, b: DeadlockLock) -> bool:
    return (a.kind, a.mode, a.table, a.index, a.trx_id, a.space, a.page) == \
        (b.kind, b.mode, b.table, b.index, b.trx_id, b.space, b.page)


@functools.lru_cache(maxsize=8)
def parse_deadlock_section(body: str) -> Deadlock:
    """The section's body (after its title and dashes) as a Deadlock; never raises. The server
    prints the same section poll after poll until the next deadlock, so a parse is kept and
    shared (frames never change what derive gave them)."""
    lines = _joined(body.split("\n"))
    spans = statement_spans(lines)
    r = _Reader()
    started = False
    stop = spans.end if spans is not None else len(lines)
    ends_at: int | None = None              # the statement being read ends before this line
    for i, line in enumerate(lines[:stop]):
        if not started:
            if not line.strip():
                continue
            started = True
            r.dl.time = time_of(line.strip())
            m = re.match(r"\S+ +\S+ +(\S+)$", line.strip())
            r.dl.thread = m[1] if m and r.dl.time else None
            if r.dl.time is not None:
                continue
        if r.after_thread and r.statement == [] and line.strip():
            r.after_thread = False
            if r.trx is not None and r.trx.user is None:
                host = r.trx.host or ""
                r.trx.host, r.trx.user, r.trx.query_state = _who(f"{host} {line.strip()}")
                continue
        if ends_at is not None:
            if i < ends_at and r.statement is not None:
                r.statement.append(line)     # whatever it looks like: the server's lines follow it
                continue
            if r.statement is not None:
                r._end_statement()
            ends_at = None
        r.feed(line)
        if spans is not None and r.statement == [] and i in spans.statements:
            ends_at = spans.statements[i]
    if spans is not None and stop < len(lines):
        r.feed(lines[stop])                  # the victim line
    dl = r.finish()
    dl.doubtful = spans.doubtful if spans is not None else forged_anywhere(lines)
    return dl
