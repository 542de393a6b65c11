"""Properties of the InnoDB status parser: bad, cut, shuffled or huge input never raises and
never takes long; a cut text keeps every section that was complete before the cut."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

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
                assert str(value) in printed or value == getattr(ref, key), (part, key, value)


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


hostile_line = st.one_of(
    st.sampled_from(SERVER_LINES),                        # every counter and cell line of the corpus
    st.sampled_from(HEADINGS).map(lambda t: "\n".join(framed(t))),   # every real section title
    st.text(max_size=80).filter(lambda s: not s.startswith("---TRANSACTION ")),
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
    assert parse_innodb_status(hostile).to_dict() == parse_innodb_status(text).to_dict()


def test_every_corpus_layout_has_a_query_position() -> None:
    assert len(WITH_QUERIES) >= 20
