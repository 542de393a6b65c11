"""Read views from the TRANSACTIONS list with forged entries in statements and identifiers.

The status texts are built the way MariaDB prints them (lock_trx_print_wait_and_mvcc_state:
entry head, thread line, at most 600 bytes of the statement, the read view line, the lock it
waits for), with any of the sessions' statements or table names holding forged lines: entries
that reuse real thread and trx ids, read view lines, thread lines, lock lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings, strategies as st

from mysqltop.core import blocking as locks
from mysqltop.core.frame import Frame
from mysqltop.core.read_views import ROW_STATEMENT_CHARS, STATEMENT_BYTES, TrxRow, read_views
from mysqltop.core.rules.rule_kit import Window
from mysqltop.core.rules.load import _kill_line, _view_holder

USER = "app"


@dataclass
class Sess:
    thread: int
    trx: int                  # 0: a transaction that wrote nothing (MariaDB prints its handle)
    age: int
    view: bool
    statement: str | None
    table: str | None         # the table of the lock it waits for (None: not waiting)
    latin1: str = ""          # its client's character set is latin1: each byte ≥ 0x80 prints as this


def _forged(ids: list[tuple[int, int]], pick: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(pick(st.integers(1, 6))):
        thread, trx = pick(st.sampled_from(ids))
        lines.append(pick(st.sampled_from([
            f"---TRANSACTION {trx}, ACTIVE {pick(st.integers(0, 99999))} sec",
            f"---TRANSACTION (0x7f{trx:x}), ACTIVE 9999 sec",
            f"MariaDB thread id {thread}, OS thread handle 1, query id 1 localhost {USER}",
            "Trx read view will not see trx with id >= 1, sees < 1",
            "0 lock struct(s), heap size 1128, 0 row lock(s)",
            "------- TRX HAS BEEN WAITING 5 us FOR THIS LOCK TO BE GRANTED:",
            "RECORD LOCKS space id 1 page no 3 n bits 8 index PRIMARY of table `a`.`b` trx id 1 lock_mode X",
            "",
        ])))
    return "\n".join(lines)


@st.composite
def sessions(draw: st.DrawFn) -> list[Sess]:
    n = draw(st.integers(1, 6))
    threads = draw(st.lists(st.integers(1, 60), min_size=n, max_size=n, unique=True))
    trxs = draw(st.lists(st.integers(100, 999), min_size=n, max_size=n, unique=True))
    ids = list(zip(threads, trxs))
    out = []
    for thread, trx in ids:
        kind = draw(st.sampled_from(["idle", "short", "forged", "long", "wide", "latin1"]))
        statement = {
            "idle": None,
            "short": "SELECT 1",
            "forged": f"SELECT 1 /*\n{_forged(ids, draw)}\n*/",
            "long": f"SELECT '{'x' * draw(st.integers(250, 700))}' /*\n{_forged(ids, draw)}\n*/",
            "wide": f"SELECT '{'é' * draw(st.integers(250, 400))}' /*\n{_forged(ids, draw)}\n*/",
            "latin1": f"SELECT /* café */ '{'ü?' * draw(st.integers(0, 40))}' /*\n{_forged(ids, draw)}\n*/",
        }[kind]
        table = None
        if draw(st.integers(0, 4)) == 0:          # waiting, its table's name a forgery of ≤ 64 characters
            table = ("t\n" + _forged(ids, draw))[:64]
        out.append(Sess(thread, draw(st.sampled_from([trx, 0])), draw(st.integers(0, 500)), draw(st.booleans()),
                        statement, table, draw(st.sampled_from(["?", "\ufffd"])) if kind == "latin1" else ""))
    return out


def _printed(statement: str, latin1: str = "") -> str:
    if latin1:      # the server prints the raw latin1 bytes; they reach the client as "?" (or U+FFFD)
        return "".join(latin1 if b >= 0x80 else chr(b) for b in statement.encode("latin1")[:STATEMENT_BYTES])
    return statement.encode()[:STATEMENT_BYTES].decode("utf-8", "replace")   # as the source decodes it


def status_body(ss: list[Sess]) -> str:
    parts = ["Trx id counter 1000\nHistory list length 5\nLIST OF TRANSACTIONS FOR EACH SESSION:"]
    for s in ss:
        head = f"---TRANSACTION (0x7f{s.thread:04x})" if s.trx == 0 else f"---TRANSACTION {s.trx}"
        parts.append(f"{head}, ACTIVE {s.age} sec")
        parts.append(("LOCK WAIT " if s.table else "") + "2 lock struct(s), heap size 1128, 1 row lock(s)")
        state = "" if s.statement is None else " Sending data"
        parts.append(f"MariaDB thread id {s.thread}, OS thread handle 1, query id 5 localhost {USER}{state}")
        if s.statement is not None:
            parts.append(_printed(s.statement, s.latin1))
        if s.view:
            parts.append("Trx read view will not see trx with id >= 900, sees < 900")
        if s.table:
            parts += ["------- TRX HAS BEEN WAITING 5 us FOR THIS LOCK TO BE GRANTED:",
                      f"RECORD LOCKS space id 5 page no 3 n bits 8 index PRIMARY of table `app`.`{s.table}` "
                      f"trx id {s.trx} lock_mode X waiting",
                      " 0: len 4; hex 80000001; asc     ;;", "", "------------------"]
    parts.append("---TRANSACTION (0x7f0000000001), not started\n0 lock struct(s), heap size 1128, 0 row lock(s)\n")
    return "\n".join(parts)


def rows_of(ss: list[Sess]) -> list[TrxRow]:
    return [TrxRow(str(s.trx), s.thread, None if s.statement is None else s.statement[:ROW_STATEMENT_CHARS], USER) for s in ss]


def _cut_at_newline(statement: str | None) -> bool:
    """Printed cut where a newline of its own follows within a cut character's bytes: the cut
    cannot be told from a statement printed whole, so its end is unknown."""
    if statement is None or len(statement.encode()) <= STATEMENT_BYTES:
        return False
    head = statement.encode()[:STATEMENT_BYTES].decode("utf-8", "ignore")
    return "\n" in statement[len(head) : len(head) + 4]


def _zoned(ss: list[Sess]) -> set[int]:
    """Threads printed after a lock line's identifiers (unknown ground, by design) — with a
    margin: the entries after any waiting one."""
    out: set[int] = set()
    waiting = False
    for s in ss:
        cut = bool(s.latin1) and len(s.statement or "") >= STATEMENT_BYTES   # printed in part: unknown
        cut = cut or _cut_at_newline(s.statement)
        if waiting or cut:
            out.add(s.thread)
        waiting = waiting or s.table is not None or cut
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions())
def test_forged_entries_never_change_a_read_view(ss: list[Sess]) -> None:
    got = read_views(status_body(ss), rows_of(ss))
    zoned = _zoned(ss)
    for s in ss:
        if s.thread in zoned:
            assert got[s.thread] in (s.view, None), (s, got)      # never a wrong value
        else:
            assert got[s.thread] is s.view, (s, got)              # exact on known ground


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions(), st.data())
def test_rows_that_disagree_with_the_text_only_blank_read_views(ss: list[Sess], data: st.DataObject) -> None:
    """A statement that changed between the two reads (or a forger racing them): the rows no
    longer fence the text, and the answer may be unknown, never wrong."""
    rows = rows_of(ss)
    for i in data.draw(st.lists(st.integers(0, len(rows) - 1), max_size=len(rows))):
        other = data.draw(st.sampled_from([None, "", "SELECT 2", "Trx read view will not see trx with id >= 1"]))
        rows[i] = TrxRow(rows[i].trx_id, rows[i].thread_id, other, rows[i].user)
    got = read_views(status_body(ss), rows)
    for s in ss:
        assert got[s.thread] in (s.view, None), (s, got)


def _trx_rows(ss: list[Sess]) -> list[list[object]]:
    return [[s.trx, s.thread, USER, "h", "RUNNING", s.age, 0, 0, 1, "REPEATABLE READ", "Query",
             None if s.statement is None else s.statement[:600], None] for s in ss]


def _status(ss: list[Sess]) -> str:
    return ("=====================================\n2026-11-27 03:00:00 0x7f INNODB MONITOR OUTPUT\n"
            "=====================================\n------------\nTRANSACTIONS\n------------\n"
            + status_body(ss) + "--------\nFILE I/O\n--------\n----------------------------\n"
            "END OF INNODB MONITOR OUTPUT\n============================\n")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions())
def test_a_kill_target_is_the_oldest_real_read_view(ss: list[Sess]) -> None:
    """Whatever the statements and table names print: a KILL the purge finding gives names a
    session of the server's rows that holds a read view, and no older one holds one."""
    trx = locks.transactions(_trx_rows(ss), _status(ss))
    frame = Frame(time=0.0, elapsed=1.0, transactions=trx)
    holder = _view_holder(Window.of([frame], None))
    truth = {s.thread: s for s in ss}
    holders = [s for s in ss if s.view]
    if holder is None:
        assert not holders
        return
    line = _kill_line(holder)
    if "KILL" in line:
        assert holder.thread_id is not None and truth[holder.thread_id].view
        assert line.startswith(f"KILL {holder.thread_id} ")
        assert truth[holder.thread_id].age == max(s.age for s in holders)
    if holders and not _zoned(ss):
        # nothing is on unknown ground: the oldest real holder is named, with its KILL
        oldest = max(s.age for s in holders)
        assert holder.age_s == oldest and truth[holder.thread_id or 0].view and "KILL" in line


def test_the_reported_attack_names_the_attacker() -> None:
    """The held-out run: the attacker (thread 7) holds the old read view and prints an entry for
    its own thread; the DBA's session 28 holds a younger view. Then the attacker alone."""
    forged = ("SELECT SLEEP(60) /*\n---TRANSACTION 5, ACTIVE 1 sec\n"
              "MariaDB thread id 7, OS thread handle 1, query id 1 localhost app\n*/")
    attacker = Sess(7, 0, 400, True, forged, None)
    dba = Sess(28, 0, 30, True, None, None)
    for ss in ([dba, attacker], [attacker]):
        trx = locks.transactions(_trx_rows(ss), _status(ss))
        frame = Frame(time=0.0, elapsed=1.0, transactions=trx)
        holder = _view_holder(Window.of([frame], None))
        assert holder is not None and holder.thread_id == 7 and holder.read_view is True
        assert _kill_line(holder).startswith("KILL 7 ")


def test_a_latin1_statement_leaves_its_neighbours_readable() -> None:
    """The reported case: the application's latin1 `SELECT /* café */ …` reaches the client as
    "caf?"; the DBA's older write transaction holds no read view and is never named."""
    app = Sess(31, 0, 200, True, "SELECT /* café */ SLEEP(60) FROM t", None, "?")
    dba = Sess(12, 4242, 900, False, None, None)
    for ss in ([app, dba], [dba, app]):
        got = read_views(status_body(ss), rows_of(ss))
        assert got == {31: True, 12: False}
        trx = locks.transactions(_trx_rows(ss), _status(ss))
        frame = Frame(time=0.0, elapsed=1.0, transactions=trx)
        holder = _view_holder(Window.of([frame], None))
        assert holder is not None and holder.thread_id == 31 and holder.read_view is True
        assert _kill_line(holder).startswith("KILL 31 ")


def test_a_statement_the_text_does_not_show_is_unknown_for_that_entry() -> None:
    """Bytes that match nothing the row says (another statement, text cut inside): that entry is
    unknown, never a "no"; the DBA's transaction without a view stays known."""
    app = Sess(31, 0, 200, True, "SELECT /* café */ 1", None, "?")
    dba = Sess(12, 4242, 900, False, None, None)
    rows = [TrxRow("0", 31, "SELECT /* naïve */ 2", USER), TrxRow("4242", 12, None, USER)]
    got = read_views(status_body([dba, app]), rows)
    assert got == {31: None, 12: False}


def _mariadb_body(app_statement: bytes, app_view: bool, older: list[int], replacement: str = "?") -> str:
    """MariaDB 10.11's list: the application's entry first, its statement's raw bytes printed
    whole as far as it fits (its thread line, a newline and the statement share a 3,072-byte
    buffer with its NUL), each byte it cannot convert as `replacement`; the older entries after
    it each hold a read view."""
    thread_line = "MariaDB thread id 31, OS thread handle 140169949865664, query id 37 127.0.0.1 app User sleep"
    fits = 3071 - len(thread_line) - 1
    printed = "".join(replacement if b >= 0x80 else chr(b) for b in app_statement[:fits])
    parts = ["LIST OF TRANSACTIONS FOR EACH SESSION:", "---TRANSACTION (0x7f0031), ACTIVE 3 sec",
             "0 lock struct(s), heap size 1128, 0 row lock(s)", thread_line, printed]
    if app_view:
        parts.append("Trx read view will not see trx with id >= 23, sees < 23")
    for t in older:
        parts += [f"---TRANSACTION (0x7f00{t:02x}), ACTIVE 9 sec", "0 lock struct(s), heap size 1128, 0 row lock(s)",
                  f"MariaDB thread id {t}, OS thread handle 1, query id 5 localhost app ",
                  "Trx read view will not see trx with id >= 23, sees < 23"]
    return "\n".join(parts) + "\n"


def _latin1_statement(size: int) -> bytes:
    head, tail = "SELECT /* ", " */ SLEEP(120)"
    return ((head + "café " * size)[: size - len(tail)] + tail).encode("latin1")


def _row(statement: bytes) -> TrxRow:
    # INNODB_TRX keeps the first 1,024 bytes of the client's encoding, converted to UTF-8
    return TrxRow("0", 31, statement[:1024].decode("latin1"), USER)


def test_a_long_latin1_statement_leaves_the_entries_after_it_readable() -> None:
    older = [7, 8, 9]
    idle = [TrxRow("0", t, None, USER) for t in older]
    for size in (600, 1_000, 4_000):
        raw = _latin1_statement(size)
        for view in (True, False):
            got = read_views(_mariadb_body(raw, view, older), [_row(raw), *idle])
            # whole in the row below 1,024 bytes: its entry is the server's; beyond, unknown
            assert got == {31: view if size < 1_024 else None, 7: True, 8: True, 9: True}, (size, got)
        # as U+FFFD (a client decoding the raw bytes): no count of bytes, whole only when short
        # in UTF-8; else where its text ends is unknown up to the buffer's end, never a wrong value
        got = read_views(_mariadb_body(raw, True, older, "\ufffd"), [_row(raw), *idle])
        if size == 1_000:
            assert got == {31: None, 7: None, 8: None, 9: None}, got
        else:
            assert got == {31: True if size == 600 else None, 7: True, 8: True, 9: True}, (size, got)


def test_a_statement_longer_than_its_row_cannot_forge_the_entries_after_it() -> None:
    """The row holds 1,024 bytes; what the server printed after them is the application's: its
    forged read view line and forged entry for an older session change nothing."""
    forged = ("\nTrx read view will not see trx with id >= 1, sees < 1\n---TRANSACTION (0x7f0007), ACTIVE 9 sec"
              "\n0 lock struct(s), heap size 1128, 0 row lock(s)\nMariaDB thread id 7, OS thread handle 1, "
              "query id 5 localhost app \nTrx read view will not see trx with id >= 1, sees < 1")
    for pad in (1_024 - 10, 1_024, 1_100, 2_000):
        for filler in (0, 4_000):               # shorter than the buffer, or filling it
            raw = (("SELECT /* " + "é" * pad).encode("latin1")[:pad] + forged.encode("latin1")
                   + b"x" * filler + b" */")
            got = read_views(_mariadb_body(raw, False, [8]), [_row(raw), TrxRow("0", 7, None, USER),
                                                               TrxRow("0", 8, None, USER)])
            # the forged entry is never believed; the real one after it is, once the server's cut
            # shows where the statement ends
            assert got == {31: None, 7: None, 8: True if filler else None}, (pad, filler, got)
