"""`mysqltop serve` scraped by a real Prometheus: what Prometheus stored is what mysqltop derived.

A throwaway MariaDB under OLTP load, `mysqltop serve --record DIR` on it, a throwaway Prometheus
scraping it every second. mysqltop's own frames are the recording replayed through the same
pipeline (derive is deterministic: the frames serve exported). Every stored tps sample and every
stored sample of the hottest latch's wait rate must agree within 5 % with the frame that was the
newest when Prometheus scraped.
"""

from __future__ import annotations

import bisect
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from mysqltop.core.fleet import latch_totals
from mysqltop.core.pipeline import FramePipeline
from mysqltop.sources.replay import ReplaySource
from tests.support.load import LoadGenerator, LoadSpec
from tests.support.mariadb import free_port
from tests.support.prometheus import ThrowawayPrometheus, find_prometheus

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]
TOLERANCE = 0.05
WANT_SAMPLES = 20


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


def _close(stored: float, frames: list[float]) -> bool:
    return any(abs(stored - f) <= TOLERANCE * max(abs(f), 1e-9) for f in frames)


def test_prometheus_stores_what_mysqltop_derived(mariadb, tmp_path) -> None:  # type: ignore[no-untyped-def]
    if find_prometheus() is None:
        pytest.skip("no prometheus binary even after ./dev's install step (apt-get install prometheus)")
    gen = LoadGenerator(mariadb.root_kwargs(), LoadSpec(mode="oltp", threads=4, rate=40, duration=240))
    gen.prepare()
    port = free_port()
    server = f"127.0.0.1:{mariadb.port}"
    serve = subprocess.Popen(
        [sys.executable, "-m", "mysqltop", "serve", *mariadb.cli_args(), "--listen", f"127.0.0.1:{port}",
         "--interval", "1", "--record", str(tmp_path)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait(lambda: serve.poll() is not None or _scrapeable(f"http://127.0.0.1:{port}/metrics"), 60,
              "mysqltop serve to answer")
        assert serve.poll() is None, serve.stderr.read().decode() if serve.stderr else ""
        with gen, ThrowawayPrometheus([f"127.0.0.1:{port}"], scrape_interval="1s") as prom:
            tps_selector = f'mysqltop_transactions_per_second{{server="{server}"}}[10m]'

            def enough() -> bool:
                stored = next(iter(prom.series(tps_selector).values()), [])
                return sum(1 for _, v in stored if v > 0) >= WANT_SAMPLES

            _wait(enough, 180, f"{WANT_SAMPLES} stored tps samples under load")
            tps = next(iter(prom.series(tps_selector).values()))
            latch_series = prom.series(f'mysqltop_latch_wait_seconds_per_second{{server="{server}"}}[10m]')
            up = prom.query(f'mysqltop_up{{server="{server}"}}')["result"]
            assert up and up[0]["value"][1] == "1"
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(30)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait(30)
    assert serve.returncode == 0, serve.stderr.read().decode() if serve.stderr else ""

    # mysqltop's own frames: the recording serve made, through the same pipeline.
    recording = tmp_path / f"127.0.0.1_{mariadb.port}.mtrec"
    pipeline, frames = FramePipeline(), []
    src = ReplaySource(recording, on_damage=None)
    try:
        while (raw := src.read()) is not None:
            frames.append(pipeline.push(raw))
    finally:
        src.close()
    fresh = [f for f in frames if not f.stale]
    assert len(fresh) >= WANT_SAMPLES
    walls = [f.time for f in frames]

    def candidates(ts: float, value) -> list[float]:  # type: ignore[no-untyped-def]
        # The frame newest at scrape time: the last poll started before it, or the one before
        # that when the scrape fell while that poll was still running.
        i = bisect.bisect_right(walls, ts)
        return [v for f in frames[max(0, i - 2):i] if (v := value(f)) is not None]

    checked = 0
    for ts, stored in tps:
        near = candidates(ts, lambda f: f.throughput.tps)
        assert near, f"a stored tps at {ts} but no frame before it"
        assert _close(stored, near), f"stored tps {stored} at {ts}, frames {near}"
        checked += 1
    assert checked >= WANT_SAMPLES
    mean_tps = sum(v for _, v in tps) / len(tps)
    assert mean_tps > 20, f"the load did not show: mean stored tps {mean_tps}"

    # The hottest latch over the run (by mean wait time among those exported), and its stored rate.
    heat: dict[tuple[str, str], float] = {}
    for f in fresh:
        for t in latch_totals(f.hotspots)[:10]:
            heat[(t.name, t.source)] = heat.get((t.name, t.source), 0.0) + (t.wait_ms_per_s or 0.0)
    (name, source), _ = max(heat.items(), key=lambda kv: kv[1])
    key = next((k for k in latch_series if dict(k).get("latch") == name and dict(k).get("source") == source), None)
    assert key is not None, f"hottest latch {name} ({source}) not stored; stored: {[dict(k)['latch'] for k in latch_series]}"

    def wait_ms(f, name=name, source=source):  # type: ignore[no-untyped-def]
        return next((t.wait_ms_per_s for t in latch_totals(f.hotspots) if (t.name, t.source) == (name, source)), None)

    matched = 0
    for ts, stored in latch_series[key]:
        near = candidates(ts, wait_ms)
        if near:
            assert _close(stored * 1000.0, near), f"{name}: stored {stored * 1000:.4f} ms/s at {ts}, frames {near}"
            matched += 1
    assert matched >= WANT_SAMPLES // 2, f"only {matched} stored samples of {name}"
