"""Where each statement of a LATEST DETECTED DEADLOCK section ends, taking structure only from
the server's own line shapes.

A statement is printed raw after its transaction's thread line and may hold any line, headings
included: an application can write a whole forged transaction (`*** (3) TRANSACTION:` … `MariaDB
thread id <the DBA's>` … `*** WE ROLL BACK TRANSACTION (3)`) into a comment of its own blocked
statement. The server's lines come after it, so, as the TRANSACTIONS parser trusts the last wait
line of an entry, a statement here is bounded by what follows it:

- the section ends at its last `*** WE ROLL BACK TRANSACTION (N)` line (the server prints it last);
- a statement runs from its thread line to the LAST heading of its transaction (`*** (N) HOLDS
  THE LOCK(S):`, `*** (N) WAITING …`, MariaDB's unnumbered `*** WAITING …`) after which the rest
  of the section reads as the server writes it: lock, record and field lines and headings up to
  the next transaction's head `*** (N+1) TRANSACTION:` (whose statement is bounded the same way),
  or the end; the locks printed under its HOLDS and WAITING headings name its own trx id.

Text that only a forger would put in a statement (a heading, a transaction or thread line) makes
the reading `doubtful`: the story is told, and said to be in doubt. No reading in the server's
shapes at all (a format not known here, a documentation copy wrapped at 80 columns): None, and
the caller reads statements up to their first heading as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# *** (1) TRANSACTION:   |   *** TRANSACTION:  (after TOO DEEP OR LONG SEARCH)
TRX_HEAD = re.compile(r"\*\*\* (?:\((?P<n>\d+)\) )?TRANSACTION:$")
# *** (2) HOLDS THE LOCK(S):  |  *** (1) WAITING FOR THIS LOCK TO BE GRANTED:  |  *** CONFLICTING WITH:
HEADING = re.compile(r"\*\*\* (?:\((?P<n>\d+)\) )?(?P<what>HOLDS THE LOCK\(S\)|WAITING FOR THIS LOCK TO BE GRANTED"
                     r"|CONFLICTING WITH):$")
# *** WE ROLL BACK TRANSACTION (1)
VICTIM = re.compile(r"\*\*\* WE ROLL BACK TRANSACTION \((?P<n>\d+)\)")
# MySQL thread id 3, OS thread handle 0x7f…, query id 80 localhost root updating
THREAD = re.compile(r"(?:MySQL|MariaDB) thread id (?P<thread>\d+),(?: OS thread handle \S+,)?"
                    r"(?: query id (?P<query>\d+))?(?P<rest>.*)$")
# TRANSACTION 1824, ACTIVE 9 sec starting index read
TRX_LINE = re.compile(r"TRANSACTION (?P<id>[0-9A-Fa-f]+(?: \d+)?), ACTIVE ")
# RECORD LOCKS … trx id 1824 lock_mode X …  |  TABLE LOCK table `t`.`t` trx id 2078 lock mode IX
_LOCK_OWNER = re.compile(r"(?:RECORD LOCKS |TABLE LOCK ).*? trx id (?P<trx>[0-9A-Fa-f]+(?: \d+)?) lock[_ ]mode ")
# The lines the server prints after a statement, before the next transaction: lock headings, lock
# and record lines, a record's fields (` 0: len 4; hex 80000001; asc     ;;`, ` 1: SQL NULL;`).
_LOCK_PART = re.compile(r"$|RECORD LOCKS |TABLE LOCK |Record lock, heap no |\d+: (?:len \d+; hex |SQL NULL)"
                        r"|TOO DEEP OR LONG SEARCH ")
# Beyond these the section is not a server's story (a real one has a few transactions, each with
# a few headings): no reading is tried, and it is doubtful.
MAX_HEADS = 64
MAX_HEADINGS = 512


@dataclass(frozen=True)
class Spans:
    statements: dict[int, int]       # a thread line's index → index of the first line after its statement
    end: int                         # lines from here on are not read (after the victim line)
    doubtful: bool                   # a statement holds lines shaped as the section's own


def _forged(line: str) -> bool:
    s = line.strip()
    return bool(TRX_HEAD.match(s) or HEADING.match(s) or VICTIM.match(s) or THREAD.match(s) or TRX_LINE.match(s))


def statement_spans(lines: list[str]) -> Spans | None:
    """Each statement's span in `lines` (the section's body, lines joined as the server wrote
    them); None when no reading in the server's shapes exists (see the module docstring)."""
    stripped = [line.strip() for line in lines]
    victims = [i for i, s in enumerate(stripped) if s.startswith("*** WE ROLL BACK")]
    end = victims[-1] if victims else len(lines)
    heads = [i for i in range(end) if TRX_HEAD.match(stripped[i])]
    headings = [i for i in range(end) if HEADING.match(stripped[i])]
    if not heads or len(heads) > MAX_HEADS or len(headings) > MAX_HEADINGS:
        return None
    # next_other[i]: the first line at or after i (before `end`) that is not of a lock part;
    # run_start[i]: where the run of lock-part lines holding line i starts
    shaped = [bool(HEADING.match(s) or _LOCK_PART.match(s)) for s in stripped[:end]]
    next_other = [end] * (end + 1)
    for i in range(end - 1, -1, -1):
        next_other[i] = next_other[i + 1] if shaped[i] else i
    run_start = list(range(end))
    for i in range(1, end):
        if shaped[i] and shaped[i - 1]:
            run_start[i] = run_start[i - 1]
    # The owner each lock line names when it stands under a HOLDS or WAITING heading (a lock of the
    # transaction printing it); next_own[i]: the first such line at or after i; same_to[i]: the first
    # such line after i naming another owner.
    under_own, owners = False, {}
    for i in range(end):
        if (h := HEADING.match(stripped[i])) is not None:
            under_own = not h["what"].startswith("CONFLICTING")
        elif under_own and (o := _LOCK_OWNER.match(stripped[i])) is not None:
            owners[i] = o["trx"]
    next_own, same_to = [end] * (end + 1), [end] * (end + 1)
    last: int | None = None
    for i in range(end - 1, -1, -1):
        next_own[i] = i if i in owners else next_own[i + 1]
        if i in owners:
            same_to[i] = (same_to[last] if owners[last] == owners[i] else last) if last is not None else end
            last = i
    memo: dict[tuple[int, int], tuple[tuple[int, int], ...] | None] = {}

    def own_locks(k: int, m: int, trx: str | None) -> bool:
        """Lines k..m-1 (a lock part) print locks of transaction `trx` under its own headings."""
        f = next_own[k]
        if trx is None:
            return True
        return f < m and owners[f] == trx and same_to[f] >= m

    def after_locks(k: int, n: int, trx: str | None) -> tuple[tuple[int, int], ...] | None:
        """From a heading of transaction n at k: its locks, then the end or the next head."""
        m = next_other[k]
        if not own_locks(k, m, trx):
            return None
        if m == end:
            return ()
        h = TRX_HEAD.match(stripped[m])
        if h is None or (h["n"] is not None and int(h["n"]) != n + 1):
            return None
        return block(m, n + 1)

    def block(i: int, n: int) -> tuple[tuple[int, int], ...] | None:
        """The statements of transaction n, whose head is line i, and of those after it."""
        if (i, n) in memo:
            return memo[(i, n)]
        memo[(i, n)] = None                       # a cycle reads as no reading
        j, trx = i + 1, None
        while j < end and not THREAD.match(stripped[j]) and not stripped[j].startswith("*** "):
            if (t := TRX_LINE.match(stripped[j])) is not None:
                trx = t["id"]
            j += 1                                # the head's lines: only the server writes them
        if j == end:
            result: tuple[tuple[int, int], ...] | None = ()
        elif not THREAD.match(stripped[j]):       # no thread line, so no statement
            result = after_locks(j, n, trx) if HEADING.match(stripped[j]) else None
        else:
            result = None
            # In each run of lock-part lines, the first heading of this transaction's own (the
            # server prints HOLDS then WAITING; lines of that shape just before it may still be
            # the statement's); the last run first.
            firsts: dict[int, int] = {}
            for k in headings:
                own = HEADING.match(stripped[k])
                if k > j and own is not None and not own["what"].startswith("CONFLICTING") and \
                        (own["n"] is None or int(own["n"]) == n):
                    firsts.setdefault(run_start[k], k)
            for k in sorted(firsts.values(), reverse=True):
                rest = after_locks(k, n, trx)
                if rest is not None:
                    result = ((j, k), *rest)
                    break
            if result is None and not victims:    # cut short: the statement runs to the end
                result = ((j, end),)
        memo[(i, n)] = result
        return result

    first = heads[0]                              # no statement before it: the server's
    h = TRX_HEAD.match(stripped[first])
    spans = block(first, int(h["n"]) if h and h["n"] else 1)
    if spans is None:
        return None
    doubtful = any(_forged(lines[x]) for a, b in spans for x in range(a + 1, b))
    return Spans({a: b for a, b in spans}, end, doubtful)


def forged_anywhere(lines: list[str]) -> bool:
    """Without a reading: does the section hold more than the server prints (a second victim
    line, transaction heads out of order, more heads or headings than a story has)?"""
    numbers = [int(m["n"]) for s in lines if (m := TRX_HEAD.match(s.strip())) and m["n"]]
    victims = sum(1 for s in lines if s.strip().startswith("*** WE ROLL BACK"))
    headings = sum(1 for s in lines if HEADING.match(s.strip()))
    return victims > 1 or numbers != list(range(1, len(numbers) + 1)) or len(numbers) > MAX_HEADS \
        or headings > MAX_HEADINGS
