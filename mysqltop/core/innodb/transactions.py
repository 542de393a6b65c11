"""TRANSACTIONS: trx id counter, purge, history list length, and the per-session list.

Trx ids come in three forms: two decimal words ("0 133408350", ≤ 5.1 built-in), hex
("1F69D1888", 5.1 plugin / 5.5 / XtraDB of that era, which print the old yymmdd header) and
decimal (5.6+, MariaDB). The session list can hold thousands of entries and arbitrary SQL, so it
is scanned with two `startswith` tests per line and its other lines are not counted as unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .atoms import n
from .model import InnodbStatus, Transactions
from .numbers import has_hex_letter, seconds, trx_id
from .line_rules import Context, Rule, ignore, lines_of, run, set_fields

_ID = r"[0-9A-Fa-f]+(?: \d+)?"
# Trx id counter 0 133408350 | Trx id counter 1F69D1888 | Trx id counter 59684
COUNTER_RE = re.compile(rf"Trx id counter (?P<id>{_ID})$")
# Purge done for trx's n:o < 0 133408332 undo n:o < 0 0
# Purge done for trx's n:o < 5139 undo n:o < 0 state: running but idle
PURGE_RE = re.compile(
    rf"Purge done for trx's n:o < (?P<trx>{_ID}) undo n:o < (?P<undo>{_ID})(?: state: (?P<state>.+))?"
)
# History list length 109
HISTORY_RE = re.compile(rf"History list length {n('history_list_length')}")
# Total number of lock structs in row lock hash table 79453
LOCK_STRUCTS_RE = re.compile(rf"Total number of lock structs in row lock hash table {n('row_lock_structs')}")
# LIST OF TRANSACTIONS FOR EACH SESSION:
LIST_MARK = "LIST OF TRANSACTIONS FOR EACH SESSION:"

# ---TRANSACTION 0 3410, ACTIVE 236 sec, process no 5202, OS thread id 1141152064 …
# ---TRANSACTION FC593C34E, ACTIVE 3 sec, process no 1234, …
# ---TRANSACTION (0x7f903c1d7080), ACTIVE 0 sec
# ---TRANSACTION 421260532587336, not started
# ---TRANSACTION 1234, ACTIVE (PREPARED) 2 sec
ENTRY_MARK = "---TRANSACTION "
ENTRY_RE = re.compile(
    r"(?P<id>\([^)\n]*\)|[0-9A-Fa-f]+(?: \d+)?), "
    r"(?:(?P<state>ACTIVE(?: \(PREPARED\))?)(?: (?P<sec>\d+) sec)?|(?P<other>[^,\n]*))"
)
# ------- TRX HAS BEEN WAITING 32 SEC FOR THIS LOCK TO BE GRANTED:
# ------- TRX HAS BEEN WAITING 2500212 us FOR THIS LOCK TO BE GRANTED:      (MariaDB 10.11, µs)
WAITING_MARK = "------- TRX HAS BEEN WAITING"
WAITING_RE = re.compile(r"------- TRX HAS BEEN WAITING (\d+(?:\.\d+)?) ?(\w+) FOR THIS LOCK TO BE GRANTED")


@dataclass
class _State:
    out: Transactions
    raw_ids: dict[str, str] = field(default_factory=dict)   # field → id as printed


def _counter(m: re.Match[str], st: _State) -> None:
    st.raw_ids["trx_id_counter"] = m["id"]


def _purge(m: re.Match[str], st: _State) -> None:
    st.raw_ids["purge_done_trx"] = m["trx"]
    st.raw_ids["purge_undo_no"] = m["undo"]
    if m["state"] is not None:
        st.out.purge_state = m["state"].strip()


RULES = [
    Rule("Trx id counter", COUNTER_RE, _counter),
    Rule("Purge done for", PURGE_RE, _purge),
    Rule("History list length", HISTORY_RE, set_fields),
    Rule("Total number of lock structs", LOCK_STRUCTS_RE, set_fields),
    # Percona/XtraDB extras before the list
    *ignore("---OLDEST VIEW---", "Normal read view", "Read view", "-----"),
]


def parse(body: str, status: InnodbStatus, ctx: Context) -> None:
    out = status.transactions
    st = _State(out)
    cut = body.find(LIST_MARK)
    if cut >= 0:
        list_at = cut + len(LIST_MARK)
    else:               # XtraDB 5.1 may list sessions without the LIST OF … line
        cut = list_at = body.find("\n" + ENTRY_MARK)
    if "TRANSACTIONS" not in ctx.doubtful:    # else a statement printed a head too: no counter is sure
        run(lines_of(body[: cut if cut >= 0 else len(body)], ctx), RULES, st, ctx)
    hex_ids = ctx.old_header or any(
        " " not in raw and has_hex_letter(raw) for raw in st.raw_ids.values()
    )
    for key, raw in st.raw_ids.items():
        setattr(out, key, trx_id(raw, hex_ids))
    if list_at >= 0:
        _sessions(body, list_at, out, hex_ids)


def _ref(raw: str | None, hex_ids: bool) -> int | str | None:
    """The waiting transaction: its id as a number, or MariaDB's '0x…' handle."""
    if raw is None or raw.startswith("("):
        return None if raw is None else raw.strip("()")
    return trx_id(raw, hex_ids)


def _sessions(text: str, start: int, out: Transactions, hex_ids: bool) -> None:
    """Count the entries of the list that starts at `start`, and their lock waits.

    An entry's query is printed raw after its "… thread id" line and may hold any line. A lock
    wait is the entry's own only when its head (before the thread line) said LOCK WAIT, and the
    server prints it after the query, so the last wait line of the entry is the real one.

    The list can be tens of megabytes: it is walked from entry line to entry line with `find`,
    and each entry is looked at with a few searches, never line by line.
    """
    by_state = out.by_state
    longest: int | None = out.longest_active_s
    mark = "\n" + ENTRY_MARK
    at = text.find(mark, max(start - 1, 0))     # the list may start right at an entry line
    entry: str | None = None             # the current entry's id as printed
    waiting = in_query = False
    wait: dict[str, object] | None = None
    while at >= 0:
        nxt = text.find(mark, at + 1)
        chunk = text[at + len(mark) : nxt if nxt >= 0 else len(text)]
        at = nxt
        m = ENTRY_RE.match(chunk)
        if m is not None:
            if wait is not None:
                out.lock_waits.append(wait)
            entry, waiting, in_query, wait = m["id"], False, False, None
            state = m["state"] or m["other"].strip()
            by_state[state] = by_state.get(state, 0) + 1
            out.transactions += 1
            if m["sec"] is not None and state.startswith("ACTIVE"):
                sec = int(m["sec"])
                if longest is None or sec > longest:
                    longest = sec
        if entry is None:
            continue
        if not in_query:         # the head: up to the thread line that precedes the query
            t = _THREAD_LINE.search(chunk)
            waiting = waiting or "\nLOCK WAIT " in (chunk if t is None else chunk[: t.start()])
            in_query = t is not None
        if waiting:
            w = _last_wait(chunk)
            if w is not None:
                wait = {"trx": _ref(entry, hex_ids), "waiting_s": w}
    if wait is not None:
        out.lock_waits.append(wait)
    out.longest_active_s = longest


def _last_wait(chunk: str) -> float | None:
    at = len(chunk)
    while (at := chunk.rfind("\n" + WAITING_MARK, 0, at)) >= 0:
        m = WAITING_RE.match(chunk, at + 1)
        if m is not None:
            return seconds(m[1], m[2])
    return None


# MySQL thread id 5, OS thread handle …  |  MariaDB thread id 6, …  (the query follows it)
_THREAD_LINE = re.compile(r"^(?:MySQL|MariaDB) thread id \d+", re.M)
