"""The deadlocks of a timeline: each distinct one kept once, grouped into patterns, counted against
the server's Innodb_deadlocks."""

from __future__ import annotations

from pathlib import Path

from mysqltop.core.deadlocks import DeadlockBook, fixes, signature, summary
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.sample import RawSample, ServerIdentity

MADE = Path(__file__).resolve().parents[1] / "fixtures" / "deadlocks"
TWO_ROW = (MADE / "mariadb-10.11__two-row.txt").read_text()
GAP = (MADE / "mariadb-10.11__gap-insert.txt").read_text()
THREE = (MADE / "mariadb-10.11__three-way.txt").read_text()
SERVER = ServerIdentity("10.11.19-MariaDB", "mariadb", "127.0.0.1:3306")


def again(text: str, n: int) -> str:
    """The same deadlock happening again later: other transaction ids and time."""
    return (text.replace("2026-11-28 01:35:29", f"2026-11-28 02:{n:02d}:00")
            .replace("TRANSACTION 32,", f"TRANSACTION {1000 + n},").replace("trx id 32 ", f"trx id {1000 + n} ")
            .replace("TRANSACTION 31,", f"TRANSACTION {2000 + n},").replace("trx id 31 ", f"trx id {2000 + n} "))


def frames(texts: list[str | None], counts: list[int]) -> list:
    pipe = PolledTimeline()
    out = []
    for i, (text, count) in enumerate(zip(texts, counts)):
        raw = RawSample(wall=1_800_000_000.0 + i, mono=100.0 + i, server=SERVER, innodb_status=text,
                        global_status={"Innodb_deadlocks": str(count), "Uptime": str(1000 + i)})
        out.append(pipe.push(raw, advise=False))
    return out


def test_each_distinct_deadlock_once_grouped_by_pattern() -> None:
    texts = [TWO_ROW, TWO_ROW, again(TWO_ROW, 1), again(TWO_ROW, 1), GAP, again(TWO_ROW, 2), THREE, THREE]
    counts = [5, 5, 6, 6, 7, 9, 10, 10]
    book = DeadlockBook.of(frames(texts, counts))
    # the first frame's deadlock happened before the timeline: listed, not captured
    assert [s.prior for s in book.seen] == [True, False, False, False, False]
    assert book.captured == 4 and book.counted == 5
    assert "4 captured of 5 the server counted (1 happened between polls" in book.counts_line()
    ranked = book.ranked()
    assert [p.count for p in ranked] == [2, 1, 1]
    top = ranked[0]
    assert top.tables == ["shop.accounts"] and top.indexes == ["shop.accounts.PRIMARY"]
    assert (top.first_time, top.last_time) == ("2026-11-28 02:01:00", "2026-11-28 02:02:00")
    assert (top.first_seen, top.last_seen) == (1_800_000_002.0, 1_800_000_005.0)
    assert "UPDATE shop.accounts SET balance=balance+? WHERE id=?" in top.signature
    assert "X record on shop.accounts PRIMARY" in top.signature


def test_signature_ignores_values_rows_and_numbering() -> None:
    a = PolledTimeline().push(RawSample(wall=1.0, mono=1.0, innodb_status=TWO_ROW), advise=False).deadlock
    b = PolledTimeline().push(RawSample(wall=1.0, mono=1.0, innodb_status=again(TWO_ROW, 3)
                                       .replace("id=1", "id=77")), advise=False).deadlock
    assert a is not None and b is not None and signature(a) == signature(b)
    g = PolledTimeline().push(RawSample(wall=1.0, mono=1.0, innodb_status=GAP), advise=False).deadlock
    assert g is not None and signature(g) != signature(a)


def test_summary_and_fixes() -> None:
    g = PolledTimeline().push(RawSample(wall=1.0, mono=1.0, innodb_status=GAP), advise=False).deadlock
    assert g is not None
    assert summary(g) == ("2 trx on shop.orders (idx_customer): X insert-intention ⇄ X insert-intention, "
                          "victim (1) thread 7: INSERT INTO shop.orders (customer) VALUES (?)")
    assert "record lock instead" in fixes(g)[0]
    t = PolledTimeline().push(RawSample(wall=1.0, mono=1.0, innodb_status=TWO_ROW), advise=False).deadlock
    assert t is not None and fixes(t)[0].startswith("lock the rows in one consistent order")


def test_a_restart_counts_on_and_stale_frames_are_skipped() -> None:
    book = DeadlockBook.of(frames([TWO_ROW, None, again(TWO_ROW, 4)], [5, 8, 1]))
    assert book.counted == 3 + 1 and book.captured == 1


def test_no_deadlock_no_entries() -> None:
    book = DeadlockBook.of(frames([None, None], [0, 0]))
    assert book.seen == [] and book.captured == 0 and book.counted == 0 and book.ranked() == []


def test_finding_when_one_pattern_recurs_within_its_span() -> None:
    from mysqltop.core.advice import advise
    from mysqltop.core.rules.recurring_deadlocks import DEADLOCK_SPAN_S

    texts = [None, None, again(TWO_ROW, 1), again(TWO_ROW, 1), again(TWO_ROW, 2), GAP, GAP]
    fs = frames(texts, [0, 0, 1, 1, 2, 3, 3])
    found = {a.id: a for a in advise(fs, {}, min_span_s=None)}
    a = found["deadlocks_recur"]
    assert a.severity == "critical"               # 2 in 4 s: far past 6 a minute
    assert "2 trx on shop.accounts (PRIMARY): X record ⇄ X record" in a.message
    assert "consistent order" in a.message and "retry the rolled-back one" in a.message
    assert a.evidence.startswith("2 deadlocks of this pattern from ")
    assert "1 of other patterns; the server counted 3; tables shop.accounts" in a.evidence
    assert "(over the last 5 s," in a.evidence and DEADLOCK_SPAN_S == 300.0


def test_no_finding_for_one_deadlock_or_one_of_each() -> None:
    from mysqltop.core.advice import advise

    fs = frames([None, None, TWO_ROW, TWO_ROW, GAP, GAP], [0, 0, 1, 1, 2, 2])
    assert "deadlocks_recur" not in {a.id for a in advise(fs, {}, min_span_s=None)}


def test_a_redacted_deadlock_is_counted_and_says_why_it_has_no_story() -> None:
    from mysqltop.recording.redaction import redact_status

    book = DeadlockBook.of(frames([None, redact_status(TWO_ROW)], [0, 1]))
    assert book.captured == 1 and book.counted == 1
    assert summary(book.seen[0].deadlock).startswith("its transactions are not in the text (a redacted recording")
