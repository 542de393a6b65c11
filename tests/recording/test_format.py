"""Round trips: codec, sample text, writer → reader; compactness; redaction."""

from __future__ import annotations

import os
import sqlite3
import stat

from hypothesis import given, settings
from hypothesis import strategies as st

from mysqltop.core.sample import RawSample
from mysqltop.recording import codec
from mysqltop.recording.format import parse_sample_text, sample_text
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.redaction import SQL_MARK, redact_status
from mysqltop.recording.writer import RecordingWriter
from tests.recording.synthetic import SERVER, STATUS, series


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300), min_size=1, max_size=4))
def test_codec_round_trips_any_text_chain(texts: list[str]) -> None:
    ref = None
    for text in texts:
        payload, enc = codec.encode(text, ref)
        dec = codec.decode(payload, ref)
        assert dec.text == text
        assert dec.numbers == enc.numbers
        ref = dec


_BASE_LINES = STATUS.split("\n")[:80]
_EDIT = st.tuples(st.sampled_from(["del", "dup", "num", "swap", "new"]), st.integers(0, 200), st.integers(-10**6, 10**6))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_EDIT, max_size=8), min_size=2, max_size=6))
def test_codec_round_trips_evolving_status_texts(steps: list[list[tuple[str, int, int]]]) -> None:
    """Texts that evolve like successive polls (lines move, repeat, vanish, numbers drift) exercise
    copy runs, line matches, intra-sample and second-order predictions."""
    lines = list(_BASE_LINES)
    enc_ref = dec_ref = None                      # the writer keeps the encoder's, a reader the decoder's
    for edits in steps:
        for op, at, value in edits:
            k = at % max(1, len(lines))
            if op == "del" and lines:
                lines.pop(k)
            elif op == "dup" and lines:
                lines.insert(k, lines[k])
            elif op == "swap" and len(lines) > 1:
                lines[k], lines[k - 1] = lines[k - 1], lines[k]
            elif op == "new":
                lines.insert(k, f"NEW LINE {value} with {abs(value) % 97} things")
            elif op == "num" and lines:
                lines[k] = lines[k] + f" {abs(value)}"
        text = "\n".join(lines)
        payload, enc = codec.encode(text, enc_ref)
        dec = codec.decode(payload, dec_ref)
        assert dec.text == text
        assert (dec.skeleton, dec.lines, dec.numbers, dec.prior, dec.trend) == \
            (enc.skeleton, enc.lines, enc.numbers, enc.prior, enc.trend)
        enc_ref, dec_ref = enc, dec


def test_codec_edge_numbers_and_control_characters() -> None:
    text = "007 0 12345678901234567890123 -5 1.050 \x00\x01\x02x\x02a 9\n\n\x01"
    ref = None
    for t in (text, text.replace("007", "008"), "", "\n", text):
        payload, _ = codec.encode(t, ref)
        ref = codec.decode(payload, ref)
        assert ref.text == t


def test_codec_delta_is_small_for_a_similar_status() -> None:
    key, ref = codec.encode(STATUS, None)
    nxt = STATUS.replace("Log sequence number 282464134", "Log sequence number 282470000")
    delta, _ = codec.encode(nxt, ref)
    assert len(delta) < 150 < len(key) / 10


def test_sample_text_round_trip_keeps_types() -> None:
    for raw in series(3, fail_at=1):
        text = sample_text(raw)
        back = parse_sample_text(text, raw.wall, raw.mono, raw.server, raw.variables)
        assert back == raw
        if raw.host:
            assert isinstance(back.host.loadavg, tuple)   # type: ignore[union-attr]


def test_a_rows_line_holding_two_values_is_refused() -> None:
    """A sample's rows are read in one go; a line that is not exactly one value is still refused,
    as reading line by line would."""
    import pytest

    raw = next(iter(series(3, fail_at=None)))
    lines = sample_text(raw).split("\n")
    at = lines.index(f"@ps_waits rows {len(raw.ps_waits or [])}")
    lines[at + 1] = lines[at + 1] + "," + lines[at + 2]       # two values on one line, one line short
    lines[at + 2] = "1"
    with pytest.raises(ValueError):
        parse_sample_text("\n".join(lines), raw.wall, raw.mono, raw.server, raw.variables)


def test_writer_reader_round_trip_mode_and_meta(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "r.mtrec"
    samples = series(75, fail_at=40)
    with RecordingWriter(path, interval=1.0, keyframe_every=30) as w:
        for s in samples:
            w.append(s)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert not os.path.exists(f"{path}-wal")              # closed: one self-contained file
    with RecordingReader(path) as r:
        assert len(r) == 75
        for i in range(75):
            assert r.sample(i) == samples[i], i
        # variables and server stored only when they change: two state rows for 75 samples
        m = r.meta
        assert (m.format_version, m.samples, m.segments, m.interval) == (1, 75, 1, 1.0)
        assert m.server == SERVER and m.start == samples[0].wall and m.end == samples[-1].wall
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM state").fetchone()[0] == 2
    assert conn.execute("SELECT count(*) FROM samples WHERE ref IS NULL").fetchone()[0] == 3


def test_append_to_existing_recording_starts_a_segment(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "r.mtrec"
    a, b = series(5), series(5, start=1_763_780_000.0, seed=9)
    for part in (a, b):
        with RecordingWriter(path, interval=1.0) as w:
            for s in part:
                w.append(s)
    with RecordingReader(path) as r:
        assert len(r) == 10 and r.segment_starts == [0, 5]
        assert r.pair(5)[0] is None and r.pair(6)[0] == r.sample(5)
        # mono is continuous across segments: Δt = 0 at the start of the second one
        assert r.sample(5).mono == r.sample(4).mono
        assert r.sample(6).mono - r.sample(5).mono == b[1].mono - b[0].mono
        assert [r.sample(i).innodb_status for i in range(5, 10)] == [s.innodb_status for s in b]


def test_redact_strips_sql_and_row_data_keeps_structure() -> None:
    text = "\n".join([
        "------------",
        "TRANSACTIONS",
        "------------",
        "---TRANSACTION 38188, ACTIVE 0 sec starting index read",
        "mysql tables in use 1, locked 1",
        "LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)",
        "MariaDB thread id 34, OS thread handle 140459217233600, query id 108870 127.0.0.1 root Updating",
        "UPDATE accounts SET balance=balance-100 WHERE owner='alice'",
        "  AND pin='1234'",
        "------- TRX HAS BEEN WAITING 45370 us FOR THIS LOCK TO BE GRANTED:",
        "RECORD LOCKS space id 5 page no 5 n bits 320 index PRIMARY of table `bank`.`accounts` trx id 38188 lock_mode X",
        "Record lock, heap no 2 PHYSICAL RECORD: n_fields 6; compact format; info bits 0",
        " 0: len 4; hex 00000001; asc     ;;",
        " 1: len 5; hex 616c696365; asc alice;;",
        "",
        "---TRANSACTION 38189, ACTIVE 0 sec",
        "MySQL thread id 9, OS thread handle 1, query id 5 localhost root",
        "Trx read view will not see trx with id >= 59679, sees < 59665",
        "*** (1) TRANSACTION:",
        "MySQL thread id 15, OS thread handle 0x7f, query id 30 localhost root updating",
        "DELETE FROM secrets WHERE id = 7",
        "*** (1) WAITING FOR THIS LOCK TO BE GRANTED:",
        "--------",
        "FILE I/O",
    ])
    out = redact_status(text)
    for secret in ("alice", "balance", "1234", "secrets", "616c696365", "accounts", "bank", "root"):
        assert secret not in out
    lines = out.split("\n")
    # everything after a thread line, up to the next heading only the server prints, is one marker
    assert lines == ["------------", "TRANSACTIONS", "------------", "---TRANSACTION 38188, ACTIVE 0 sec starting index read",
                     "mysql tables in use 1, locked 1", "LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)",
                     "MariaDB thread id 34, OS thread handle 140459217233600, query id 108870", SQL_MARK,
                     "--------", "FILE I/O"]


def test_redact_flag_applies_to_stored_status(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "r.mtrec"
    raw = series(1)[0]
    assert "SELECT c FROM sbtest5" in (raw.innodb_status or "")
    with RecordingWriter(path, redact=True) as w:
        w.append(raw)
    with RecordingReader(path) as r:
        assert "SELECT c FROM sbtest5" not in (r.sample(0).innodb_status or "")
        assert SQL_MARK in (r.sample(0).innodb_status or "") and r.meta.redacted
    assert b"sbtest5 WHERE" not in path.read_bytes()


def test_raw_sample_has_no_password_field() -> None:
    names = {f for f in RawSample.__dataclass_fields__}
    assert not {n for n in names if "pass" in n or "secret" in n}


def test_real_samples_stay_near_one_kilobyte(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Size regression guard on the bundled incident's real samples (calm, storm, relief), cycled to
    10 minutes at 1 s so the file's fixed pages do not dominate. bench/recording reports the figure."""
    import dataclasses
    from pathlib import Path

    incident = Path(__file__).resolve().parents[2] / "mysqltop" / "data" / "incident.mtrec"
    with RecordingReader(incident) as r:
        real = [r.sample(i) for i in range(len(r))]
    path = tmp_path / "size.mtrec"
    with RecordingWriter(path, interval=1.0) as w:
        for i in range(600):
            w.append(dataclasses.replace(real[i % len(real)], wall=1.8e9 + i, mono=1e4 + i))
    per_sample = path.stat().st_size / 600
    assert per_sample < 1100, per_sample
