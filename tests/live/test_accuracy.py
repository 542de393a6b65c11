"""mysqltop's numbers against a load whose true counts are known (tests/support/load.py).

The generator counts every statement, COMMIT and ROLLBACK it sent. Around each poll the test
takes the generator's counts just before and just after `source.read()`: the server read its
counters somewhere in between, so the true increment between two polls is bracketed exactly
(widened by the statements in flight: the server counts a statement before the client sees its
result). mysqltop's Δ = rate · elapsed must fall inside that bracket for every frame, and the
window total must be within ±5 % of the generator's own count.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from mysqltop.cli import build_parser
from mysqltop.core.frame import Frame
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.sample import RawSample, own_statements
from mysqltop.engine import Engine
from tests.support.load import LoadCounts, LoadGenerator, LoadSpec

pytestmark = pytest.mark.live


def open_source(db, interval: float = 1.0):
    from mysqltop.arguments import open_live

    args = build_parser().parse_args(["snapshot", *db.cli_args(), "--interval", str(interval)])
    source, _caps = open_live(args)
    return source


@dataclass
class Poll:
    frame: Frame
    raw: RawSample
    before: LoadCounts
    after: LoadCounts


class Bracketing:
    """A SampleSource wrapper taking the generator's counts right before and after each read."""

    def __init__(self, inner, gen: LoadGenerator | None) -> None:
        self.inner, self.gen = inner, gen
        self.last: tuple[RawSample, LoadCounts, LoadCounts] | None = None

    def read(self):
        before = self.gen.counts() if self.gen else LoadCounts()
        raw = self.inner.read()
        after = self.gen.counts() if self.gen else LoadCounts()
        self.last = (raw, before, after)
        return raw

    def close(self) -> None:
        self.inner.close()


def run_polls(source, gen: LoadGenerator | None, n: int, interval: float) -> list[Poll]:
    wrapped = Bracketing(source, gen)
    engine = Engine(wrapped, PolledTimeline())
    polls: list[Poll] = []
    engine.run(interval, count=n, on_frame=lambda f: polls.append(Poll(f, *wrapped.last)))
    return polls


def delta(frame: Frame, rate: float | None) -> float:
    assert rate is not None and frame.elapsed is not None, f"no rate in a frame with a predecessor: {frame}"
    assert rate >= 0
    return rate * frame.elapsed


def test_tps_and_qps_match_the_generator(mariadb) -> None:
    interval = 1.0
    source = open_source(mariadb, interval)
    try:
        # 1. The monitor's own statements are not the server's load: derive takes them out of
        #    Questions, so an idle server shows qps 0 (while Questions did move by 4-5 a poll).
        idle = run_polls(source, None, 4, 0.5)
        for prev, cur in zip(idle, idle[1:]):
            assert own_statements(prev.raw, cur.raw) >= 4
            assert cur.frame.throughput.qps == 0 and cur.frame.throughput.tps == 0

        # 2. A steady load: 4 threads × 25 trx/s, 2 point selects per trx, every 5th rolls back.
        threads = 4
        gen = LoadGenerator(mariadb.root_kwargs(), LoadSpec(
            mode="oltp", threads=threads, rate=25, duration=30, rows=2000, table="c2_accuracy",
            rollback_every=5, plain_queries=2))
        gen.prepare()
        with gen:
            time.sleep(1.0)                         # all threads at their pace
            polls = run_polls(source, gen, 7, interval)
        assert gen.counts().errors == 0
    finally:
        source.close()

    window = polls[1:]                              # every frame with a predecessor
    got_trx = got_q = want_trx = want_q = 0.0
    own_total = 0
    trx_brackets: list[tuple[float, float]] = []
    for prev, cur in zip(polls, polls[1:]):
        f = cur.frame
        assert not f.stale and f.elapsed == pytest.approx(interval, abs=0.25)
        d_trx = delta(f, f.throughput.tps)
        d_commit, d_rollback = delta(f, f.throughput.commits_per_s), delta(f, f.throughput.rollbacks_per_s)
        own = own_statements(prev.raw, cur.raw)
        own_total += own
        d_q = delta(f, f.throughput.qps)
        assert d_trx == pytest.approx(d_commit + d_rollback)
        lo_t = cur.before.trx_ends - prev.after.trx_ends - threads
        hi_t = cur.after.trx_ends - prev.before.trx_ends + threads
        assert lo_t - 0.01 <= d_trx <= hi_t + 0.01, (d_trx, lo_t, hi_t)
        lo_r = cur.before.rollbacks - prev.after.rollbacks - threads
        hi_r = cur.after.rollbacks - prev.before.rollbacks + threads
        assert lo_r - 0.01 <= d_rollback <= hi_r + 0.01, (d_rollback, lo_r, hi_r)
        lo_q = cur.before.statements - prev.after.statements - threads
        hi_q = cur.after.statements - prev.before.statements + threads
        assert lo_q - 0.01 <= d_q <= hi_q + 0.01, (d_q, lo_q, hi_q)
        # one UPDATE of one row per transaction (rolled back or not): rows changed = transactions
        d_changed = delta(f, f.throughput.rows_changed_per_s)
        assert lo_t - 0.01 <= d_changed <= hi_t + 0.01, (d_changed, lo_t, hi_t)
        got_trx += d_trx
        got_q += d_q
        trx_brackets.append((lo_t, hi_t))

    def mid(p: Poll, attr: str) -> float:
        return (getattr(p.before, attr) + getattr(p.after, attr)) / 2

    want_trx = mid(polls[-1], "trx_ends") - mid(polls[0], "trx_ends")
    want_q = mid(polls[-1], "statements") - mid(polls[0], "statements")
    span = sum(p.frame.elapsed for p in window)
    assert want_trx > 300, "the generator did not keep its pace: the test proves nothing"
    assert got_trx == pytest.approx(want_trx, rel=0.05)
    assert got_q == pytest.approx(want_q, rel=0.05)
    # and as rates: the mean tps/qps over the window (what a DBA reads) against the true ones
    assert sum(p.frame.throughput.tps * p.frame.elapsed for p in window) / span == \
        pytest.approx(want_trx / span, rel=0.05)
    print(f"\naccuracy: tps {got_trx / span:.1f} (generator {want_trx / span:.1f}), "
          f"qps {got_q / span:.1f} + own {own_total / len(window):.1f}/poll (generator {want_q / span:.1f})")
    # Secondary figures, checked together so one report names every wrong number:
    # every transaction is a write transaction (one UPDATE) and reads rows (PK select, the
    # UPDATE's lookup, 2 point selects).
    problems = []
    for p, (lo, hi) in zip(window, trx_brackets):
        t = p.frame.throughput
        if t.write_trx_per_s is None or not lo - 0.01 <= delta(p.frame, t.write_trx_per_s) <= hi + 0.01:
            problems.append(f"write trx/s {t.write_trx_per_s} but {lo}..{hi} write transactions in "
                            f"{p.frame.elapsed:.3f} s")
        if t.rows_read_per_s is None:
            problems.append("rows read/s is null (MariaDB 10.6+ has no Innodb_rows_read: Rows_read must be polled)")
        elif delta(p.frame, t.rows_read_per_s) < 3 * lo:
            problems.append(f"rows read/s {t.rows_read_per_s} below 3 rows per transaction ({lo})")
    assert not problems, "\n".join(dict.fromkeys(problems))


INNODB_BUFFER_LATCHES = {"buf_pool_mutex", "fil_space_latch", "fil_system_mutex", "index_tree_rw_lock",
                         "flush_list_mutex", "buf_block_lock"}


def test_tiny_buffer_pool_scans_make_buf_pool_mutex_the_top_hotspot(mariadb_factory) -> None:
    # 6 MB is above MariaDB's minimum; 30 000 rows × ~400 B ≈ 12 MB never fits, every scan reads pages.
    db = mariadb_factory(["--innodb-buffer-pool-size=6M"], name="tinybp")
    gen = LoadGenerator(db.root_kwargs(), LoadSpec(mode="scan", threads=4, rows=30_000, duration=20,
                                                   table="c2_scan"))
    gen.prepare()
    source = open_source(db)
    try:
        with gen:
            time.sleep(1.0)
            polls = run_polls(source, gen, 4, 1.0)
    finally:
        source.close()
    frames = [p.frame for p in polls[1:]]
    for f in frames:
        assert "performance_schema" in f.sources
        top = f.hotspots[0]
        ranked = [h.name for h in f.hotspots[:3]]
        assert top.source == "performance_schema" and top.name in INNODB_BUFFER_LATCHES, ranked
        assert "buf_pool_mutex" in ranked, ranked
        assert top.share is not None and top.share > 0.3
        assert top.waits_per_s and top.waits_per_s > 100 and top.wait_ms_per_s and top.wait_ms_per_s > 0
        shares = [h.share for h in f.hotspots if h.source == "performance_schema"]
        assert sum(shares) == pytest.approx(1.0, abs=0.01)


def test_hot_row_updates_show_row_lock_waits(mariadb) -> None:
    """Every thread updates row 1 and holds it 5 ms: the others queue on its row lock."""
    threads = 6
    gen = LoadGenerator(mariadb.root_kwargs(), LoadSpec(mode="hot", threads=threads, hold_ms=5, duration=20,
                                                        rows=100, table="c2_hot"))
    gen.prepare()
    conn = mariadb.root_conn()
    source = open_source(mariadb)
    try:
        with gen:
            time.sleep(1.0)
            w0 = _row_lock_waits(conn)
            polls = run_polls(source, gen, 4, 1.0)
            w1 = _row_lock_waits(conn)
    finally:
        source.close()
        conn.close()
    frames = [p.frame for p in polls[1:]]
    got = sum(delta(f, f.locks.row_lock_waits_per_s) for f in frames)
    # the independent reads bracket the polls from outside: mysqltop's waits fit inside
    assert 0 < got <= (w1 - w0) + 0.01
    assert got >= 0.8 * (w1 - w0), (got, w1 - w0)
    print(f"\nhot row: {got:.0f} row lock waits seen, {w1 - w0} by the server around the window; "
          f"{frames[-1].locks}")
    for f in frames:
        lk = f.locks
        # serialised on one row: nearly every transaction waited, and for a good part of a second
        assert lk.row_lock_waits_per_s >= 0.5 * f.throughput.tps > 10, (lk, f.throughput)
        assert lk.row_lock_wait_ms_per_s is not None and lk.row_lock_wait_ms_per_s > 100, lk
        assert f.throughput.threads_running >= 2
        # and the lock system's own latches are busy too
        assert {h.name for h in f.hotspots} & {"lock_wait_mutex", "lock_latch"}


def _row_lock_waits(conn) -> int:
    with conn.cursor() as cur:
        cur.execute("SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_waits'")
        return int(cur.fetchone()[1])
