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
from .rules import Context, Rule, ignore, run, set_fields

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
ENTRY_RE = re.compile(
    r"---TRANSACTION (?P<id>\([^)]*\)|[0-9A-Fa-f]+(?: \d+)?), "
    r"(?:(?P<state>ACTIVE(?: \(PREPARED\))?)(?: (?P<sec>\d+) sec)?|(?P<other>[^,]*))"
)
# ------- TRX HAS BEEN WAITING 32 SEC FOR THIS LOCK TO BE GRANTED:
# ------- TRX HAS BEEN WAITING 2500212 us FOR THIS LOCK TO BE GRANTED:      (MariaDB 10.11, µs)
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
    head, mark, tail = body.partition(LIST_MARK)
    if not mark:        # XtraDB 5.1 may list sessions without the LIST OF … line
        cut = head.find("\n---TRANSACTION ")
        if cut >= 0:
            head, mark, tail = head[:cut], "\n", head[cut:]
    run(head.split("\n"), RULES, st, ctx)
    hex_ids = ctx.old_header or any(
        " " not in raw and has_hex_letter(raw) for raw in st.raw_ids.values()
    )
    for key, raw in st.raw_ids.items():
        setattr(out, key, trx_id(raw, hex_ids))
    if mark:
        _sessions(tail, out, hex_ids)


def _ref(raw: str | None, hex_ids: bool) -> int | str | None:
    """The waiting transaction: its id as a number, or MariaDB's '0x…' handle."""
    if raw is None or raw.startswith("("):
        return None if raw is None else raw.strip("()")
    return trx_id(raw, hex_ids)


def _sessions(text: str, out: Transactions, hex_ids: bool) -> None:
    """Count the entries and their lock waits.

    An entry's query is printed raw after its "… thread id" line and may hold any line. A lock
    wait is the entry's own only when its head (before the thread line) said LOCK WAIT, and the
    server prints it after the query, so the last wait line of the entry is the real one.
    """
    by_state = out.by_state
    current: str | None = None
    longest: int | None = out.longest_active_s
    waiting = in_query = False
    wait: dict[str, object] | None = None
    for line in text.split("\n"):
        if line.startswith("---TRANSACTION "):
            m = ENTRY_RE.match(line)
            if m is None:
                continue
            if wait is not None:
                out.lock_waits.append(wait)
            current, waiting, in_query, wait = m["id"], False, False, None
            state = m["state"] or m["other"].strip()
            by_state[state] = by_state.get(state, 0) + 1
            out.transactions += 1
            if m["sec"] is not None and state.startswith("ACTIVE"):
                sec = int(m["sec"])
                if longest is None or sec > longest:
                    longest = sec
        elif line.startswith("------- TRX HAS BEEN WAITING"):
            m = WAITING_RE.match(line)
            if m is not None and waiting:
                wait = {"trx": _ref(current, hex_ids), "waiting_s": seconds(m[1], m[2])}
        elif not in_query:
            if line.startswith("LOCK WAIT "):
                waiting = True
            elif _THREAD_LINE.match(line):
                in_query = True
    if wait is not None:
        out.lock_waits.append(wait)
    out.longest_active_s = longest


# MySQL thread id 5, OS thread handle …  |  MariaDB thread id 6, …  (the query follows it)
_THREAD_LINE = re.compile(r"(?:MySQL|MariaDB) thread id \d+")
