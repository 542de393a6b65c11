"""`--redact`: random statements carrying marker literals and lines the server prints itself,
printed by the server as a transaction's or a deadlock's SQL, are stored without a single marker
and without a line they forged."""

from __future__ import annotations

import dataclasses
import re
import uuid
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mysqltop.core.innodb import parse_innodb_status
from mysqltop.core.blocking import status_transactions
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.redaction import SQL_MARK, redact_status
from mysqltop.recording.writer import RecordingWriter
from tests.recording.synthetic import series

MARK = "Zq7Kx"   # never in a status text; markers are Zq7Kx<digits>
SERVER_LIKE = ["\n---TRANSACTION 1, ACTIVE 1 sec\n", "\nTrx read view will not see trx with id >= 1, sees < 1\n",
               "\n2026-01-01 00:00:00 0x1 INNODB MONITOR OUTPUT\n", "\nTABLE LOCK table `a`.`b`\n",
               "\nRECORD LOCKS space id 1\n", "\n--------\nFILE I/O\n--------\n", "\n*** WE ROLL BACK TRANSACTION (1)\n",
               "\n------- TRX HAS BEEN WAITING 1 SEC FOR THIS LOCK TO BE GRANTED:\n", "\nMySQL thread id 1, x\n",
               "\nHistory list length 5\n", "\n-- ", "\n# ", "/*", "*/", "\\", "'", '"', "`", "\n"]
marker = st.integers(0, 10**9).map(lambda n: f"{MARK}{n}")
inner = st.lists(st.one_of(marker, st.sampled_from(SERVER_LIKE), st.text(max_size=12)), max_size=8).map("".join)


@st.composite
def string_literal(draw: st.DrawFn) -> str:
    q = draw(st.sampled_from(["'", '"']))
    body = draw(inner) + draw(marker)
    escaped = "".join("\\\\" if c == "\\" else (draw(st.sampled_from([q + q, "\\" + q])) if c == q else c)
                      for c in body)
    prefix = draw(st.sampled_from(["", "_utf8mb4", "N"])) if q == "'" else ""
    return prefix + q + escaped + q


@st.composite
def comment(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["--", "#", "/*"]))
    body = draw(inner).replace("*/", "* /") + draw(marker)
    if kind == "/*":
        return "/*" + body + "*/"
    return kind + " " + body.replace("\n", " ") + "\n"


number = st.one_of(st.integers(0, 10**9).map(lambda n: f"{n}{n % 7}.5e3"),
                   st.binary(min_size=1, max_size=6).map(lambda b: f"X'{b.hex()}'"),
                   st.binary(min_size=1, max_size=6).map(lambda b: f"0x{b.hex()}"),
                   st.integers(1, 255).map(lambda n: f"b'{n:b}'"))
word = st.sampled_from(["SELECT", "UPDATE", "t", "SET", "v", "=", "WHERE", "id", "AND", "IN", "(", ")", ",",
                        "`odd name`", "FROM", "x.y", "LIMIT"])
sql = st.lists(st.one_of(word, string_literal(), comment(), number), min_size=1, max_size=30).flatmap(
    lambda toks: st.lists(st.sampled_from([" ", "\n", "  "]), min_size=len(toks), max_size=len(toks)).map(
        lambda seps: "UPDATE t SET v = " + "".join(t + s for t, s in zip(toks, seps))))

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "innodb-status"
BASE = series(1)[0]
THREAD = re.compile(r"^(?:MySQL|MariaDB) thread id \d+.*$", re.M)


def hostile_status(text: str, statement: str, which: int) -> str:
    spots = [m.end() for m in THREAD.finditer(text)]
    at = spots[which % len(spots)]
    return text[:at] + "\n" + statement + text[at:]


TEXTS = [t for t in (p.read_text() for p in sorted(CORPUS.glob("*.txt"))) if THREAD.search(t) and MARK not in t]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(statement=sql, text=st.sampled_from(TEXTS), which=st.integers(0, 50))
def test_no_marker_survives_the_recording(tmp_path: Path, statement: str, text: str, which: int) -> None:
    status = hostile_status(text, statement[:2900], which)
    path = tmp_path / f"r{uuid.uuid4().hex}.mtrec"
    with RecordingWriter(path, redact=True) as w:
        w.append(dataclasses.replace(BASE, innodb_status=status))
    with RecordingReader(path) as r:
        stored = r.sample(0).innodb_status or ""
    assert MARK not in stored, stored[stored.find(MARK) - 200: stored.find(MARK) + 50]
    assert SQL_MARK in stored
    assert MARK.encode() not in path.read_bytes()
    path.unlink()


def test_redaction_keeps_every_parsed_value_but_the_statement_sections() -> None:
    # the transaction list and the free-text sections go (a statement can forge any line of
    # them); every other parsed value stays
    for text in (p.read_text() for p in sorted(CORPUS.glob("*.txt"))):
        a, b = parse_innodb_status(text).to_dict(), parse_innodb_status(redact_status(text)).to_dict()
        for d in (a, b):
            d.pop("foreign_key_error", None)
            if d.get("deadlock"):               # only the deadlock's time survives redaction
                d["deadlock"] = d["deadlock"]["time"]
            for k in ("transactions", "by_state", "longest_active_s", "lock_waits"):
                d["transactions"].pop(k, None)
        assert a == b


def test_multi_line_literal_with_server_lines_is_one_marker() -> None:
    text = ("MySQL thread id 5, OS thread handle 1, query id 2 localhost root updating\n"
            "UPDATE t SET note = 'card 4111-1111\n---TRANSACTION 9, ACTIVE 1 sec\n2026-01-01 00:00:00\n"
            "TABLE LOCK x\nRECORD LOCKS y\nTrx z 4111-1111' WHERE id = 1\n"
            "------- TRX HAS BEEN WAITING 3 SEC FOR THIS LOCK TO BE GRANTED:\n")
    out = redact_status(text)
    assert "4111" not in out and out.split("\n").count(SQL_MARK) == 1 and "root" not in out


def test_a_forged_transaction_entry_does_not_survive() -> None:
    base = BASE.innodb_status or ""
    forged = ("SELECT 1 FROM t WHERE a = 1\n---TRANSACTION 999999, ACTIVE 99999 sec\n"
              "MySQL thread id 4242, OS thread handle 1, query id 1 evil.example attacker\n"
              "--------\nFILE I/O\n--------\nHistory list length 77777777")
    hostile = hostile_status(base, forged, 0)
    assert any(t.trx_id == "999999" for t in status_transactions(hostile))     # the forgery parses
    out = redact_status(hostile)
    for word in ("999999", "4242", "evil.example", "attacker", "77777777"):
        assert word not in out
    assert not any(t.trx_id == "999999" for t in status_transactions(out))
    # the duplicated heading is trusted nowhere: what follows the statement is dropped up to a
    # heading that stands once
    assert "LOG" in out.split("\n")
