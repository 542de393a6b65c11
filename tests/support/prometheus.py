"""A throwaway Prometheus server for tests and benches (Debian's `prometheus` binary).

    with ThrowawayPrometheus(targets=["127.0.0.1:9306"], scrape_interval="1s") as prom:
        prom.query("up")                         # instant query → the API's `data`
        prom.series("mysqltop_up[5m]")           # a range selector → {labels: [(ts, value)…]}

It writes its own config and TSDB under /tmp/mtop-prom-XXXX, listens on a free 127.0.0.1 port,
waits (bounded) for /-/ready and dies with the process that started it. `./dev test` installs the
binary when it is missing; `find_prometheus()` returns None when it is still not there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Sequence

from tests.support.mariadb import _die_with_parent, free_port


def find_prometheus() -> str | None:
    for cand in (shutil.which("prometheus"), "/usr/bin/prometheus"):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


class ThrowawayPrometheus:
    def __init__(self, targets: Sequence[str], scrape_interval: str = "1s",
                 startup_timeout: float = 60.0, probe: str | None = None) -> None:
        """`probe`: the exporter's ADDR:PORT; `targets` are then databases scraped through its
        /probe?target= with the usual relabelling (instance = the database)."""
        self.targets = list(targets)
        self.probe = probe
        self.scrape_interval = scrape_interval
        self.startup_timeout = startup_timeout
        self.port = 0
        self.dir: Path | None = None
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "ThrowawayPrometheus":
        binary = find_prometheus()
        if binary is None:
            raise RuntimeError("prometheus not found (`./dev test` installs Debian's prometheus package)")
        self.dir = Path(tempfile.mkdtemp(prefix="mtop-prom-", dir="/tmp"))
        config = self.dir / "prometheus.yml"
        relabel = ("" if self.probe is None else
                   "    metrics_path: /probe\n"
                   "    relabel_configs:\n"
                   "      - {source_labels: [__address__], target_label: __param_target}\n"
                   "      - {source_labels: [__param_target], target_label: instance}\n"
                   f"      - {{target_label: __address__, replacement: {json.dumps(self.probe)}}}\n")
        config.write_text(
            "global:\n"
            f"  scrape_interval: {self.scrape_interval}\n"
            f"  scrape_timeout: {self.scrape_interval}\n"
            "scrape_configs:\n"
            "  - job_name: mysqltop\n"
            "    static_configs:\n"
            f"      - targets: {json.dumps(self.targets)}\n" + relabel)
        self.port = free_port()
        self.log = open(self.dir / "prometheus.log", "wb")
        self.proc = subprocess.Popen(
            [binary, f"--config.file={config}", f"--storage.tsdb.path={self.dir / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent, start_new_session=True)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"prometheus exited with rc={self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"prometheus not ready after {self.startup_timeout:.0f}s:\n{self.log_tail()}")

    def query(self, expr: str, at: float | None = None) -> Any:
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        with urllib.request.urlopen(f"{self.url}/api/v1/query?{urllib.parse.urlencode(params)}", timeout=10) as r:
            body = json.load(r)
        if body.get("status") != "success":
            raise RuntimeError(f"query {expr!r} failed: {body}")
        return body["data"]

    def series(self, selector: str) -> dict[tuple[tuple[str, str], ...], list[tuple[float, float]]]:
        """Raw stored samples of a range selector, by label set."""
        data = self.query(selector)
        return {tuple(sorted(s["metric"].items())): [(float(t), float(v)) for t, v in s["values"]]
                for s in data["result"]}

    def log_tail(self, n: int = 30) -> str:
        try:
            assert self.dir is not None
            return "\n".join((self.dir / "prometheus.log").read_text(errors="replace").splitlines()[-n:])
        except (OSError, AssertionError):
            return "(no log)"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        if getattr(self, "log", None) is not None:
            self.log.close()
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __enter__(self) -> "ThrowawayPrometheus":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
