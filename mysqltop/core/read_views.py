"""Which transactions hold a read view, read from the TRANSACTIONS list with other sessions' text
fenced off by the server's own INNODB_TRX rows. Pure.

The list is server lines around text other sessions wrote: each entry's statement (printed right
after its thread-id line, ending within DESCRIPTION_CHARS of it) and the identifiers of its lock lines
(a table or index name may hold a newline). A line inside that text can look like anything, a
whole forged entry included, so a line is believed only on known ground:

- an entry's statement is skipped when its INNODB_TRX row gives the same text (or none, and the
  thread line says the session is idle), or the same text with each run of characters the
  server printed as raw bytes of another character set ("?", U+FFFD) in place of its non-ASCII
  characters, whole or cut where the server cuts it; otherwise every character that statement
  could cover is unknown ground, up to the end of the buffer it is printed from;
- a lock line's identifier stretch is unknown ground (the read view line comes before it);
- a line that may be a thread-id line or a lock line on unknown ground widens it by what such a
  line could be followed by, so unknown ground ends only where the server's lines resume.

An entry whose header and thread line stand on known ground is the server's; its read view is
known when the span from its thread line to its wait or lock lines (or the next entry) is known
ground too. Everything else is None: unknown, never "no".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

# MySQL 5.x prints at most this much of an entry's statement (trx_print_latched(…, 600)), in
# bytes of the statement's own encoding; MariaDB 10.11 prints up to ~3,000 (the thread line and
# the statement share a 3,072-byte buffer). Either way the statement is printed whole when it is
# shorter than this, so a row's whole statement is tried first and this cut after it.
STATEMENT_BYTES = 600
# INNODB_TRX keeps at most this much of a statement (trx_query): the source reads it all. A row
# statement shorter than WHOLE_ROW_BYTES in UTF-8 is the whole statement, however the server cut
# it (by characters or by bytes of the client's encoding, at most as many as UTF-8 takes, less a
# character's cut tail).
ROW_STATEMENT_CHARS = 1024
WHOLE_ROW_BYTES = ROW_STATEMENT_CHARS - 3
# A lock line names an index (≤ 64 characters, printed bare) and `db`.`table` (≤ 64 each,
# backticks doubled), MySQL 8 a partition too: its identifiers end well within this.
LOCK_LINE_CHARS = 1000
# A statement cut inside a multi-byte character leaves up to 3 bytes, decoded as U+FFFD each.
_CUT_TAIL = 3
# The thread line, a newline and the statement share one buffer of 3,072 bytes with its NUL
# (innobase_mysql_print_thd, MySQL and MariaDB): whatever the cut, the statement ends within
# this many characters of its thread line's start (one character per byte at most).
DESCRIPTION_CHARS = 3071

LIST_MARK = "LIST OF TRANSACTIONS FOR EACH SESSION:"
ENTRY_MARK = "---TRANSACTION "
READ_VIEW_MARK = "Trx read view will not see"
WAIT_MARK = "------- TRX HAS BEEN WAITING"
LOCK_LINES = ("RECORD LOCKS ", "TABLE LOCK ")
# What MySQL 5.6/5.7 print as the state of a session idle in its transaction.
IDLE_STATES = ("", "cleaning up")

_ENTRY_ID = re.compile(r"---TRANSACTION (\([^)\n]*\)|[0-9A-Fa-f]+(?: \d+)?),")
_THREAD = re.compile(r"(?:MySQL|MariaDB) thread id (\d+),")


@dataclass(frozen=True)
class TrxRow:
    """What the server's INNODB_TRX row says about one transaction (sources/lock_reads.py)."""

    trx_id: str
    thread_id: int
    statement: str | None       # trx_query as read: None or "" when the session runs none
    user: str | None            # PROCESSLIST.USER of its session


def printed_statement(statement: str) -> tuple[str, bool]:
    """The part of `statement` the status text shows, and whether the cut split a character."""
    raw = statement.encode("utf-8", "surrogatepass")
    if len(raw) <= STATEMENT_BYTES:
        return statement, False
    head = raw[:STATEMENT_BYTES].decode("utf-8", "ignore")
    return head, len(head.encode("utf-8", "surrogatepass")) < STATEMENT_BYTES


def _idle(line: str, user: str | None) -> bool:
    """The thread line of a session that runs no statement: it ends with its user (MariaDB,
    MySQL 8) or the user and an idle state (MySQL 5.6/5.7 "cleaning up")."""
    if not user:
        return False
    tail = line.rstrip()
    return any(tail.endswith(f" {user}" + (f" {s}" if s else "")) for s in IDLE_STATES)


def _statement_end(body: str, at: int, line: str, row: TrxRow) -> int | None:
    """Where the entry's statement ends (the start of the next server line), or None when the
    row cannot vouch for the text that follows the thread line at `at`."""
    if not row.statement:
        return at if _idle(line, row.user) else None
    end = _whole_end(body, at, row.statement)
    split = False
    if end is None:
        text, split = printed_statement(row.statement)
        if not split and text == row.statement or not body.startswith(text, at):
            return None
        if "\n" in row.statement[len(text) : len(text) + _CUT_TAIL + 1]:
            return None           # printed whole, its own newline would read as the cut's
        end = at + len(text)
    if split:                     # the cut character's bytes: never a newline
        stop = body.find("\n", end, end + _CUT_TAIL + 1)
        end = stop if stop >= 0 else -1
        if end < 0:
            return None
    if end == len(body):
        return end
    return end + 1 if body.startswith("\n", end) else None


def _whole_end(body: str, at: int, statement: str) -> int | None:
    """Where `statement` ends in `body` from `at` when the server printed it whole, as is or as
    raw bytes of another character set; None when it did not or the row may hold only its
    head (the server's lines after a match would otherwise be the statement's own rest)."""
    short = len(statement.encode("utf-8", "surrogatepass")) < WHOLE_ROW_BYTES
    if short and body.startswith(statement, at):
        end = at + len(statement)
    elif (skeleton := _skeleton_end(body, at, statement)) is not None:
        # printed as ASCII and one "?" per byte it could not convert: as long as the row's bytes
        printed = body[at:skeleton]
        if not (short or printed.isascii() and len(printed) < WHOLE_ROW_BYTES):
            return None
        end = skeleton
    else:
        return None
    return end if end == len(body) or body.startswith("\n", end) else None


def _unreadable(c: str) -> bool:
    return c == "?" or c > "\x7f"


def _skeleton_end(body: str, at: int, statement: str) -> int | None:
    """Where `statement` ends in `body` from `at` when the server printed it whole but not as
    the row decodes it: a statement in another character set (latin1 `café`) is printed as its
    raw bytes, which reach us as "?" or U+FFFD, one to four per character. Every ASCII
    character, newlines included, must match exactly; a run of non-ASCII characters (and "?")
    matches the whole run of such characters at that place, one to four per character. The
    runs hold no newline, so the end is the row's, whatever the text: nothing in it can move
    where the next server line starts. None: no such match."""
    if statement.isascii():
        return None
    pos, i, n = at, 0, len(statement)
    while i < n:
        c = statement[i]
        if not _unreadable(c):
            if not body.startswith(c, pos):
                return None
            pos, i = pos + 1, i + 1
            continue
        j = i
        while j < n and _unreadable(statement[j]):
            j += 1
        k = pos
        while k < len(body) and _unreadable(body[k]):
            k += 1
        if not j - i <= k - pos <= 4 * (j - i):
            return None
        pos, i = k, j
    return pos


def _described(thread_line: int) -> int:
    """Where unknown ground ends after a thread line at `thread_line` whose statement no row
    vouches for: past the longest statement the server may have printed after it."""
    return thread_line + DESCRIPTION_CHARS + 1


def _same_trx(printed: str, row_id: str) -> bool:
    """The entry's id as printed is the row's: MariaDB prints a transaction that has written
    nothing as its handle "(0x7f…)", where INNODB_TRX says 0."""
    if printed == row_id:
        return True
    if printed.startswith("0x"):
        try:
            return row_id == "0" or int(printed, 16) == int(row_id)
        except ValueError:
            return False
    return False


@dataclass
class _Entry:
    trx_id: str
    thread_id: int | None = None
    view: bool = False
    settled: bool = False         # its statement is behind it and nothing unknown came between


def read_views(body: str | None, rows: Iterable[TrxRow]) -> dict[int, bool | None]:
    """Thread id → whether its transaction holds a read view, for each row's thread: True or
    False where the list shows its entry on known ground, None where it cannot tell (no list,
    no entry on known ground, an entry met twice, a row that disagrees with its entry)."""
    by_thread = {r.thread_id: r for r in rows}
    out: dict[int, bool | None] = {t: None for t in by_thread}
    if not body:
        return out
    start = body.find(LIST_MARK)
    if start < 0:
        return out
    found: dict[int, list[bool | None]] = {}
    pos = start + len(LIST_MARK) + 1
    unknown_until = pos
    entry: _Entry | None = None

    def close() -> None:
        nonlocal entry
        if entry is not None and entry.thread_id is not None:
            found.setdefault(entry.thread_id, []).append(entry.view if entry.settled else None)
        entry = None

    n = len(body)
    while pos < n:
        nl = body.find("\n", pos)
        end = n if nl < 0 else nl
        line = body[pos:end]
        nxt = end + 1
        if pos < unknown_until:
            # Nobody's for sure: the entry being read cannot be settled across it, and a line
            # that may be the server's brings the text that may follow it.
            if entry is not None:
                entry.settled = False
                close()
            if (t := _THREAD.match(line)) is not None:
                # were it the server's, its statement ends where its row's does
                row = by_thread.get(int(t[1]))
                stop = _statement_end(body, nxt, line, row) if row is not None else None
                unknown_until = max(unknown_until, stop if stop is not None else _described(pos))
            elif line.startswith(LOCK_LINES):
                unknown_until = max(unknown_until, pos + LOCK_LINE_CHARS)
            pos = nxt
            continue
        if line.startswith(ENTRY_MARK):
            close()
            m = _ENTRY_ID.match(line)
            entry = _Entry(m[1].strip("()")) if m is not None else None
        elif (t := _THREAD.match(line)) is not None:
            row = by_thread.get(int(t[1]))
            if entry is None or entry.thread_id is not None:
                # A thread line on known ground is the server's, and so is the last entry line
                # above it: only fixed head lines come between the two.
                close()
                head = body.rfind("\n" + ENTRY_MARK, start, pos)
                m = _ENTRY_ID.match(body, head + 1) if head >= 0 else None
                entry = _Entry(m[1].strip("()")) if m is not None else None
            if entry is None:
                unknown_until = _described(pos)
            else:
                entry.thread_id = int(t[1])
                stop = (_statement_end(body, nxt, line, row)
                        if row is not None and _same_trx(entry.trx_id, row.trx_id) else None)
                if stop is None:
                    close()               # its statement is unknown ground, and so is its view
                    unknown_until = _described(pos)
                else:
                    entry.settled = True
                    pos = stop
                    continue
        elif line.startswith(READ_VIEW_MARK):
            if entry is not None and entry.settled:
                entry.view = True
        elif line.startswith(WAIT_MARK):
            if entry is not None and entry.settled:
                close()                   # what follows is the lock it waits for
        elif line.startswith(LOCK_LINES):
            close()
            unknown_until = pos + LOCK_LINE_CHARS
        pos = nxt
    close()
    for thread, seen in found.items():
        if thread in out:
            row = by_thread[thread]
            out[thread] = seen[0] if len(seen) == 1 and row is not None else None
    return out
