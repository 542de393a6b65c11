"""`mysqltop serve` scraped by real Prometheus servers: the counters are the server's, PromQL's rates
agree with the load's own count, a burst between two scrapes is not lost, the dashboard answers.

A throwaway MariaDB under a paced OLTP load, `mysqltop serve --record DIR` on it, and two throwaway
Prometheus servers: one scraping every second, one every 15 s. Checks:
- every stored `mysqltop_transactions_total` is Com_commit + Com_rollback of a frame serve derived
  (the recording replayed through the same pipeline);
- `rate(mysqltop_transactions_total[1m])` agrees with the load generator's own commits and
  rollbacks over the same minute within 2 %;
- deadlocks made on purpose in a ~2 s window show in `increase(mysqltop_deadlocks_total[1m])` on
  the 15 s Prometheus (a per-interval gauge would have lost them between scrapes);
- every panel query of prometheus/dashboard.json returns data.
"""

from __future__ import annotations

import bisect
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from mysqltop.timeline.polled import PolledTimeline
from mysqltop.sources.replay_source import ReplaySource
from tests.support.dashboard import concrete, panel_queries
from tests.support.deadlocks import make_deadlocks, prepare
from tests.support.load import LoadGenerator, LoadSpec
from tests.support.mariadb import free_port
from tests.support.prometheus import ThrowawayPrometheus, find_prometheus

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]
RATE_TOLERANCE = 0.02
DEADLOCKS = 5


def _wait(cond, timeout: float, what: str, every: float = 0.5):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def _scrapeable(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return b"mysqltop_up" in r.read()
    except OSError:
        return False


class LoadLog:
    """The load's own count of ended transactions, sampled every 0.25 s with the wall clock."""

    def __init__(self, gen: LoadGenerator) -> None:
        self.gen = gen
        self.points: list[tuple[float, int]] = []
        self.statements: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            c = self.gen.counts()
            now = time.time()
            self.points.append((now, c.commits + c.rollbacks))
            self.statements.append((now, c.statements))
            self._stop.wait(0.25)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def at(self, wall: float, statements: bool = False) -> float:
        """Transactions ended (or statements sent) by `wall`, linear between the nearest samples."""
        points = list(self.statements if statements else self.points)
        times = [t for t, _ in points]
        i = bisect.bisect_left(times, wall)
        assert 0 < i < len(points), f"{wall} outside the load log"
        (t0, c0), (t1, c1) = points[i - 1], points[i]
        return c0 + (c1 - c0) * (wall - t0) / (t1 - t0) if t1 > t0 else c1


def test_prometheus_counters_rates_bursts_and_dashboard(mariadb, tmp_path) -> None:  # type: ignore[no-untyped-def]
    if find_prometheus() is None:
        pytest.skip("no prometheus binary even after ./dev's install step (apt-get install prometheus)")
    gen = LoadGenerator(mariadb.root_kwargs(), LoadSpec(mode="oltp", threads=4, rate=40, duration=400))
    gen.prepare()
    prepare(mariadb.root_kwargs())
    port = free_port()
    server = f"127.0.0.1:{mariadb.port}"
    sel = f'{{server="{server}"}}'
    serve = subprocess.Popen(
        [sys.executable, "-m", "mysqltop", "serve", *mariadb.cli_args(), "--listen", f"127.0.0.1:{port}",
         "--interval", "1", "--record", str(tmp_path)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    log = LoadLog(gen)
    try:
        _wait(lambda: serve.poll() is not None or _scrapeable(f"http://127.0.0.1:{port}/metrics"), 60,
              "mysqltop serve to answer")
        assert serve.poll() is None, serve.stderr.read().decode() if serve.stderr else ""
        with gen, ThrowawayPrometheus([f"127.0.0.1:{port}"], scrape_interval="1s") as fast, \
                ThrowawayPrometheus([f"127.0.0.1:{port}"], scrape_interval="15s") as slow:
            log.start()
            started = time.time()

            # -- rate() over a minute of steady load against the load's own count -------------------
            # a minute of nothing but the load, before the burst (its statements are another client's);
            # the 15 s Prometheus scrapes meanwhile, so the burst needs no wait of its own
            _wait(lambda: time.time() - started > 73, 150, "a minute of load", every=1)
            ratios, q_ratios = [], []
            for back in (10.0, 6.0, 2.0):
                at = time.time() - back
                got = fast.query(f"rate(mysqltop_transactions_total{sel}[1m])", at=at)["result"]
                assert got, "no rate(mysqltop_transactions_total[1m])"
                own = (log.at(at) - log.at(at - 60.0)) / 60.0
                ratios.append(float(got[0]["value"][1]) / own)
                # clients' statements: the load is the only client; mysqltop's own are left out
                got = fast.query(f"rate(mysqltop_queries_total{sel}[1m])", at=at)["result"]
                sent = (log.at(at, statements=True) - log.at(at - 60.0, statements=True)) / 60.0
                q_ratios.append(float(got[0]["value"][1]) / sent)
            assert abs(statistics.median(ratios) - 1.0) <= RATE_TOLERANCE, \
                f"rate()/load's own tps: {ratios}"
            assert abs(statistics.median(q_ratios) - 1.0) <= RATE_TOLERANCE, f"rate(queries)/load's qps: {q_ratios}"
            assert own > 50, f"the load did not show: {own} tps"

            # -- a burst of deadlocks between two 15 s scrapes --------------------------------------
            def scraped_slow() -> int:
                return len(next(iter(slow.series(f"mysqltop_deadlocks_total{sel}[5m]").values()), []))

            _wait(lambda: scraped_slow() >= 2, 120, "two 15 s scrapes of mysqltop_deadlocks_total")
            before = max(v for _, v in next(iter(slow.series(f"mysqltop_deadlocks_total{sel}[5m]").values())))
            burst_start = time.monotonic()
            burst_wall = time.time()
            made = make_deadlocks(mariadb.root_kwargs(), DEADLOCKS)
            burst_s = time.monotonic() - burst_start
            assert made == DEADLOCKS, f"made {made} deadlocks, wanted {DEADLOCKS}"
            burst_end = time.time()

            def seen_by_slow() -> bool:
                stored = next(iter(slow.series(f"mysqltop_deadlocks_total{sel}[5m]").values()), [])
                return any(t > burst_end + 1 for t, _ in stored)

            _wait(seen_by_slow, 60, "a 15 s scrape after the burst")
            stored = next(iter(slow.series(f"mysqltop_deadlocks_total{sel}[5m]").values()))
            assert max(v for _, v in stored) - before == DEADLOCKS, stored
            # a window that reaches the last scrape before the burst (15 s apart at most), wherever
            # the scrapes fell: a scrape may land inside the 1-2 s burst
            window = int(time.time() - burst_wall) + 20
            inc = slow.query(f"increase(mysqltop_deadlocks_total{sel}[{window}s])")["result"]
            assert inc and float(inc[0]["value"][1]) >= DEADLOCKS - 1e-9, inc

            print(f"\nrate(mysqltop_transactions_total[1m]) / load's own tps: {[round(r, 4) for r in ratios]}; "
                  f"rate(mysqltop_queries_total[1m]) / load's qps: {[round(r, 4) for r in q_ratios]}; "
                  f"{DEADLOCKS} deadlocks made in {burst_s:.2f}s, seen by the 15 s Prometheus")

            # -- every dashboard panel answers --------------------------------------------------------
            empty = [(title, q) for title, q in panel_queries() if not fast.query(concrete(q))["result"]]
            assert not empty, f"dashboard panels without data under load: {empty}"
            stored_totals = next(iter(fast.series(f"mysqltop_transactions_total{sel}[10m]").values()))
            up = fast.query(f"mysqltop_up{sel}")["result"]
            assert up and up[0]["value"][1] == "1"
    finally:
        log.stop()
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(30)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait(30)
    assert serve.returncode == 0, serve.stderr.read().decode() if serve.stderr else ""

    # Each stored counter value is the server's own Com_commit + Com_rollback of a frame serve derived.
    recording = tmp_path / f"127.0.0.1_{mariadb.port}.mtrec"
    pipeline, totals = PolledTimeline(), set()
    src = ReplaySource(recording, on_damage=None)
    try:
        while (raw := src.read()) is not None:
            frame = pipeline.push(raw, advise=False)
            if not frame.stale and frame.counters.transactions is not None:
                totals.add(float(frame.counters.transactions))
    finally:
        src.close()
    assert len(stored_totals) >= 60
    strays = [(t, v) for t, v in stored_totals if v not in totals]
    assert not strays, f"stored values no frame had: {strays[:5]}"
