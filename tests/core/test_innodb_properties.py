"""Properties of the InnoDB status parser: bad, cut, shuffled or huge input never raises and
never takes long; a cut text keeps every section that was complete before the cut."""

from __future__ import annotations

import random
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
    t0 = time.perf_counter()
    status = parse_innodb_status(text)
    assert time.perf_counter() - t0 < LIMIT_S
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


@FAST
@given(text=texts, seed=st.integers(0, 2**32 - 1))
def test_shuffled_lines(text: str, seed: int) -> None:
    lines = text.split("\n")
    random.Random(seed).shuffle(lines)
    status = timed_parse("\n".join(lines))
    assert status.unknown_lines >= 0


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
    t0 = time.perf_counter()
    status, unknown = parse_with_unknown(big)
    assert time.perf_counter() - t0 < LIMIT_S
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
