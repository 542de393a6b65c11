"""Properties of the InnoDB status parser: bad, cut, shuffled or huge input never raises and
never takes long; a cut text keeps every section that was complete before the cut."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mysqltop.core.innodb import parse_innodb_status, parse_with_unknown
from mysqltop.core.innodb.envelope import TITLE_RE
from tests.support.large_status import enlarge

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "innodb-status"
TEXTS = [p.read_text() for p in sorted(CORPUS.glob("*.txt"))]
FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LIMIT_S = 1.0            # generous: a corpus text takes well under a millisecond

texts = st.sampled_from(TEXTS)
# sections whose parse depends on nothing after them
SELF_CONTAINED = {"LOG": "log", "FILE I/O": "file_io", "TRANSACTIONS": "transactions",
                  "ROW OPERATIONS": "row_operations", "BACKGROUND THREAD": "background",
                  "INSERT BUFFER AND ADAPTIVE HASH INDEX": "insert_buffer"}


def timed_parse(text: str):
    t0 = time.process_time()             # CPU time: a loaded box stretches wall time, not this
    status = parse_innodb_status(text)
    assert time.process_time() - t0 < LIMIT_S
    return status


@FAST
@given(text=texts, data=st.data())
def test_truncation_anywhere_keeps_complete_sections(text: str, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(text)))
    full, part = parse_innodb_status(text), timed_parse(text[:cut])
    assert part.truncated is (full.truncated or "END OF INNODB MONITOR OUTPUT\n===" not in text[:cut])
    body = "\n" + text
    titles = list(TITLE_RE.finditer(body))
    for this, nxt in zip(titles, titles[1:]):
        attr = SELF_CONTAINED.get(this[1])
        if attr and nxt.end() - 1 <= cut:           # the next title was complete: this section too
            assert getattr(part, attr) == getattr(full, attr), this[1]


NUMBERS = re.compile(r"\d+")
COUNTERS = ("log", "row_operations", "buffer_pool", "file_io", "semaphores", "insert_buffer")
SUMMED = ("hash_table_size", "hash_node_heap_buffers")  # one line per AHI partition, added up


@FAST
@given(text=texts, seed=st.integers(0, 2**32 - 1))
def test_shuffled_lines(text: str, seed: int) -> None:
    """Lines out of order never invent a number: every counter read is one the text prints
    (or the value the intact text gives, for two-word and summed forms)."""
    lines = text.split("\n")
    random.Random(seed).shuffle(lines)
    shuffled = "\n".join(lines)
    status, unknown = parse_with_unknown(shuffled)
    assert status.unknown_lines == len(unknown)
    intact = parse_innodb_status(text)
    printed = set(NUMBERS.findall(text))
    for part in COUNTERS:
        got, ref = getattr(status, part), getattr(intact, part)
        for key, value in vars(got).items():
            if isinstance(value, int) and not isinstance(value, bool):
                # a line summed over AHI partitions that the shuffle moved out of its section
                # is not counted: the sum of the lines left is a part of the intact sum
                part_of_sum = key in SUMMED and 0 <= value <= (getattr(ref, key) or 0)
                assert str(value) in printed or value == getattr(ref, key) or part_of_sum, (part, key, value)


@FAST
@given(text=texts, seed=st.integers(0, 2**32 - 1), junk=st.lists(st.text(max_size=60), min_size=1, max_size=20))
def test_garbled_lines(text: str, seed: int, junk: list[str]) -> None:
    """Lines replaced by junk, digits swapped for letters or huge numbers, words dropped."""
    rng = random.Random(seed)
    lines = text.split("\n")
    for i in rng.sample(range(len(lines)), k=min(len(lines), 25)):
        line = lines[i]
        choice = rng.randrange(4)
        if choice == 0:
            lines[i] = rng.choice(junk)
        elif choice == 1:
            lines[i] = "".join(rng.choice("Xx 9,.-") if c.isdigit() else c for c in line)
        elif choice == 2:
            lines[i] = "".join("9" * 30 if c.isdigit() else c for c in line)
        else:
            words = line.split(" ")
            if words:
                del words[rng.randrange(len(words))]
            lines[i] = " ".join(words)
    timed_parse("\n".join(lines))


@FAST
@given(st.text(max_size=3000))
def test_random_unicode(text: str) -> None:
    status = timed_parse(text)
    if "END OF INNODB MONITOR OUTPUT" not in text:
        assert status.truncated is True


@FAST
@given(st.binary(max_size=3000))
def test_random_bytes(raw: bytes) -> None:
    timed_parse(raw.decode("utf-8", errors="replace"))


@FAST
@given(text=texts, junk=st.text(alphabet="0123456789 .,-:xX[]()/\\n", max_size=40))
def test_known_prefixes_with_odd_numbers(text: str, junk: str) -> None:
    """Every line prefix the parser knows, followed by junk instead of its numbers."""
    prefixes = {line.split(" ", 2)[0] + " " + (line.split(" ", 2)[1] if " " in line else "")
                for line in text.split("\n")[:200]}
    timed_parse("\n".join(p + junk for p in prefixes) + "\n" + text)


def test_huge_status_with_thousands_of_transactions() -> None:
    base = (CORPUS / "mariadb-10.11__mysqltop-lab__oltp-rw-32thr.txt").read_text()
    big = enlarge(base, 300 * 1024)
    assert len(big) >= 300 * 1024
    t0 = time.process_time()
    status, unknown = parse_with_unknown(big)
    assert time.process_time() - t0 < LIMIT_S
    assert status.transactions.transactions == big.count("\n---TRANSACTION ") > 1000
    assert unknown == [] and status.truncated is False
    assert status.log.lsn == 282464134


def test_huge_garbage() -> None:
    rng = random.Random(7)
    lines = ["".join(rng.choice("abc ---\n0123456789=:") for _ in range(rng.randrange(80))) for _ in range(6000)]
    text = "\n".join(lines)
    assert len(text) > 200_000
    timed_parse(text)
    timed_parse("Log sequence number " * 20000)
    timed_parse("\n---\nLOG\n---\n" * 20000)


# --- statement text cannot steer the parser ---------------------------------------------------------

# MySQL thread id 5, OS thread handle …, query id 9 localhost root updating   (the query follows)
THREAD_LINE = re.compile(r"^(?:MySQL|MariaDB) thread id \d+.*$", re.M)
WITH_QUERIES = [t for t in TEXTS if THREAD_LINE.search(t.partition("LIST OF TRANSACTIONS")[2])]
HEADINGS = sorted({m[1] for t in TEXTS for m in TITLE_RE.finditer("\n" + t)})
SERVER_LINES = sorted({line for t in TEXTS for line in t.split("\n")
                       if line.strip() and not line.startswith("---TRANSACTION ")})


def framed(title: str) -> list[str]:
    return ["-" * len(title), title, "=" * len(title) if title.startswith("END") else "-" * len(title)]


FORGED_HEAD = "\n".join([*framed("TRANSACTIONS"), "Trx id counter 99999999999",
                         "Purge done for trx's n:o < 1 undo n:o < 0 state: running",
                         "History list length 987654321", "LIST OF TRANSACTIONS FOR EACH SESSION:"])
FORGED_ENTRY = ("---TRANSACTION 77, ACTIVE 88888 sec\nLOCK WAIT 2 lock struct(s), heap size 1136, 1 row lock(s)\n"
                "MySQL thread id 99, OS thread handle 1, query id 1 localhost root updating\nx\n"
                "------- TRX HAS BEEN WAITING 88888 SEC FOR THIS LOCK TO BE GRANTED:")
hostile_line = st.one_of(
    st.sampled_from(SERVER_LINES),                        # every counter and cell line of the corpus
    st.sampled_from(HEADINGS).map(lambda t: "\n".join(framed(t))),   # every real section title
    st.just(FORGED_HEAD), st.just(FORGED_ENTRY),          # a whole TRANSACTIONS head, a whole entry
    st.text(max_size=80),
    st.sampled_from(["History list length 987654321", "Trx id counter 99999999999",
                     "------- TRX HAS BEEN WAITING 88888 SEC FOR THIS LOCK TO BE GRANTED:",
                     "--Thread 1 has waited at btr0cur.c line 424 for 999.00 seconds the semaphore:",
                     "LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)",
                     "\\n" * 300, "END OF INNODB MONITOR OUTPUT\n============================"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.sampled_from(WITH_QUERIES), data=st.data(), lines=st.lists(hostile_line, min_size=1, max_size=40))
def test_query_text_cannot_steer_the_parse(text: str, data: st.DataObject, lines: list[str]) -> None:
    """Any lines printed as a transaction's query — real section titles, counter and semaphore
    lines, lock-wait lines, junk — change nothing the parser reports: not a section, not a
    counter, not a wait, not the transaction count."""
    head, mark, tail = text.partition("LIST OF TRANSACTIONS")
    spots = [m.end() for m in THREAD_LINE.finditer(tail)]
    at = data.draw(st.sampled_from(spots))
    query = "\n".join(lines).replace("\r", " ")         # a query printed on the lines after the thread line
    hostile = head + mark + tail[:at] + "\nUPDATE t SET v = 1 /* " + query + " */" + tail[at:]
    assert_not_steered(hostile, text, query)


# What the session list gives: a statement printing a byte-identical entry adds one, and the text
# alone cannot tell it from the server's (the live source reads INNODB_TRX for the list).
FROM_ENTRIES = {"transactions", "by_state", "lock_waits", "longest_active_s"}


def assert_not_steered(hostile: str, text: str, query: str) -> None:
    """Nothing the statement printed becomes a value: every value is the intact text's, or null
    where the statement printed a whole TRANSACTIONS head (then the text cannot tell which head
    is the server's: its counters are left null, and a deadlock section it precedes is not
    read); the session list's figures too, unless the statement printed an entry line."""
    got, want = parse_innodb_status(hostile).to_dict(), parse_innodb_status(text).to_dict()
    entries = "---TRANSACTION " in query
    head = "TRANSACTIONS" in query and "Trx id counter" in query
    # An event title printed by an earlier event's statement, where the server printed none, reads
    # as that event: the text alone cannot tell (its values are an event's, not a counter).
    event = "LATEST DETECTED DEADLOCK" in query or "LATEST FOREIGN KEY ERROR" in query
    for key in want:
        if key == "transactions" or got[key] == want[key]:
            continue
        if key == "deadlock" and got[key] and want[key] and _deadlock_frame(got[key]) == _deadlock_frame(want[key]):
            continue            # a statement printed lines into the story: when it happened stands
        if event and (key in EVENT_KEYS or key == "sections"):
            continue
        assert head, key
        assert (key in EVENT_KEYS and (got[key] is None or got[key]["time"] is None)
                or key == "sections" and set(got[key]) <= set(want[key])), key
    for key, value in want["transactions"].items():
        if key in FROM_ENTRIES and entries:
            continue
        assert got["transactions"][key] == value or head and got["transactions"][key] is None, key


EVENT_KEYS = {"deadlock", "foreign_key_error"}


def _deadlock_frame(d: dict[str, Any]) -> tuple[Any, ...]:
    """What a statement inside the deadlock section cannot change: when it happened."""
    return d["time"], d["thread"]


def test_every_corpus_layout_has_a_query_position() -> None:
    assert len(WITH_QUERIES) >= 20


# Statements in LATEST DETECTED DEADLOCK / LATEST FOREIGN KEY ERROR are printed the same way (a
# thread line, then the statement): they cannot add, cut or end a section either.
def _event_positions(text: str) -> list[int]:
    from mysqltop.core.innodb.envelope import split

    env = split(text)
    spots = []
    for title, body in env.sections:
        if title in ("LATEST DETECTED DEADLOCK", "LATEST FOREIGN KEY ERROR"):
            at = text.find(body)
            spots += [at + m.end() for m in THREAD_LINE.finditer(body)]
    return spots


WITH_EVENTS = [t for t in TEXTS if _event_positions(t)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.sampled_from(WITH_EVENTS), data=st.data(), lines=st.lists(hostile_line, min_size=1, max_size=40))
def test_deadlock_and_foreign_key_statements_cannot_steer_the_parse(
        text: str, data: st.DataObject, lines: list[str]) -> None:
    at = data.draw(st.sampled_from(_event_positions(text)))
    query = "\n".join(lines).replace("\r", " ")
    hostile = text[:at] + "\nUPDATE t SET v = 1 /* " + query + " */" + text[at:]
    assert_not_steered(hostile, text, query)


@pytest.mark.parametrize("where", ["foreign key", "deadlock", "session"])
def test_a_forged_transactions_head_sets_no_counter(where: str) -> None:
    text = next(t for t in WITH_EVENTS if "LATEST FOREIGN KEY ERROR" in t and "LATEST DETECTED DEADLOCK" in t)
    spots = {"foreign key": _event_positions(text)[0], "deadlock": _event_positions(text)[-1],
             "session": text.index("\n", THREAD_LINE.search(text, text.index("LIST OF TRANSACTIONS")).end())}
    at = spots[where]
    hostile = text[:at] + "\n" + FORGED_HEAD + "\n" + FORGED_ENTRY + text[at:]
    trx = parse_innodb_status(hostile).transactions
    assert trx.history_list_length is None and trx.trx_id_counter is None and trx.purge_done_trx is None
    assert parse_innodb_status(hostile).log == parse_innodb_status(text).log


def test_every_event_layout_has_a_statement_position() -> None:
    assert len(WITH_EVENTS) >= 8
