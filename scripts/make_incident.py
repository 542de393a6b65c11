#!/usr/bin/env python3
"""Record the bundled incident (mysqltop/data/incident.mtrec) from a real throwaway MariaDB.

A contention storm that builds up and subsides, sampled at 1 s by the live source:
  calm      light OLTP (2 threads, paced)
  build-up  more OLTP threads and a few writers on one hot row
  storm     many OLTP threads flat out, many writers queueing on the hot row, and full scans of a
            table several times larger than the tiny buffer pool (8 MB) and a small redo log —
            row lock waits, buffer pool misses, page reads, checkpoint pressure, a run queue
  relief    back to the calm load
The first frame where the trigger (default `throughput.threads_running>=16`) fires gets a bookmark;
if it never fires, the start of the storm is bookmarked instead and the script says so.

    .venv/bin/python scripts/make_incident.py [--out mysqltop/data/incident.mtrec] [--scale 1.0]
    .venv/bin/python scripts/make_incident.py --reencode OLD.mtrec [--out …]

--reencode rewrites an existing recording's samples (byte-identical RawSamples) in the current
recording format with the storm bookmark placed by --trigger, without a server: the bundled file
was recorded once (2026-11-22) and re-encoded this way as the format was tuned, so tests built on
its numbers keep their data.

Needs mariadbd (tests/support/mariadb.py starts it on a free port, never the service on 3306).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mysqltop.cli import build_parser  # noqa: E402
from mysqltop.timeline.polled import PolledTimeline  # noqa: E402
from mysqltop.core.trigger import parse_trigger  # noqa: E402
from mysqltop.engine import Engine  # noqa: E402
from mysqltop.recording.writer import RecordingWriter  # noqa: E402
from mysqltop.arguments import open_live  # noqa: E402
from tests.support.load import LoadGenerator, LoadSpec  # noqa: E402
from tests.support.mariadb import ThrowawayMariaDB  # noqa: E402

SERVER_ARGS = [
    "--innodb-buffer-pool-size=8M",      # tiny: scans evict the working set
    "--innodb-log-file-size=8M",         # small redo: checkpoint age climbs under writes
    "--innodb-lock-wait-timeout=5",
    "--innodb-io-capacity=200",
]
HOT_ROWS, SCAN_ROWS = 20_000, 60_000     # ~60k rows × ~400 B ≈ 24 MB: three times the pool


@dataclass
class Phase:
    name: str
    seconds: float
    loads: list[LoadSpec] = field(default_factory=list)


def phases(scale: float) -> list[Phase]:
    oltp: dict[str, Any] = dict(mode="oltp", table="sbtest1", rows=HOT_ROWS, plain_queries=2, transactions=10**9)
    return [
        Phase("calm", 60 * scale, [LoadSpec(threads=2, rate=15, **oltp)]),
        Phase("build-up", 35 * scale, [LoadSpec(threads=6, rate=60, **oltp),
                                      LoadSpec(mode="hot", table="sbtest1", threads=3, hold_ms=5, transactions=10**9)]),
        Phase("storm", 80 * scale, [LoadSpec(threads=12, **oltp),
                                   LoadSpec(mode="hot", table="sbtest1", threads=10, hold_ms=20, transactions=10**9),
                                   LoadSpec(mode="scan", table="sbtest2", rows=SCAN_ROWS, threads=3, transactions=10**9)]),
        Phase("relief", 65 * scale, [LoadSpec(threads=2, rate=15, **oltp)]),
    ]


def run_phases(db: ThrowawayMariaDB, plan: list[Phase], stop: threading.Event,
               marks: dict[str, float]) -> None:
    for ph in plan:
        if stop.is_set():
            return
        marks[ph.name] = time.time()
        print(f"make_incident: phase {ph.name} ({ph.seconds:.0f} s)", file=sys.stderr)
        gens = [LoadGenerator(db.root_kwargs(), spec, duration=ph.seconds) for spec in ph.loads]
        for g in gens:
            g.start()
        stop.wait(ph.seconds)
        for g in gens:
            g.stop()


class StormMarker:
    """Bookmarks the first frame where the trigger holds (one bookmark: the storm)."""

    def __init__(self, trigger_text: str) -> None:
        self.trigger = parse_trigger(trigger_text)
        self.done = False

    def see(self, writer: RecordingWriter, frame) -> None:  # type: ignore[no-untyped-def]
        res = self.trigger.evaluate(frame.to_dict())
        if res.fired and not self.done:
            writer.bookmark(frame.time, self.trigger.text, res.value, "contention storm")
            self.done = True
            print(f"make_incident: bookmark at {frame.to_dict()['time']}: {self.trigger.text} "
                  f"(value {res.value})", file=sys.stderr)


def reencode(old: Path, out: Path, trigger_text: str) -> int:
    from mysqltop.recording.reader import RecordingReader

    tmp = out.with_name(out.name + ".tmp")
    tmp.unlink(missing_ok=True)
    marker = StormMarker(trigger_text)
    pipeline = PolledTimeline()
    with RecordingReader(old) as r:
        samples = [r.sample(i) for i in range(len(r))]
        interval = r.meta.interval
    with RecordingWriter(tmp, interval=interval, trigger=trigger_text) as w:
        for raw in samples:
            w.append(raw)
            marker.see(w, pipeline.push(raw))
    with RecordingReader(tmp) as r:
        assert [r.sample(i) for i in range(len(r))] == samples, "re-encoding changed a sample"
    os.replace(tmp, out)
    print(f"make_incident: re-encoded {len(samples)} samples into {out} ({out.stat().st_size / 1e6:.2f} MB)",
          file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "mysqltop" / "data" / "incident.mtrec"))
    ap.add_argument("--scale", type=float, default=1.0, help="stretch or shrink every phase")
    ap.add_argument("--trigger", default="throughput.threads_running>=16")
    ap.add_argument("--reencode", metavar="OLD", help="rewrite OLD in the current format (no server)")
    a = ap.parse_args(argv)
    if a.reencode:
        return reencode(Path(a.reencode), Path(a.out), a.trigger)
    marker = StormMarker(a.trigger)
    plan = phases(a.scale)
    total = int(sum(p.seconds for p in plan)) + 3
    out = Path(a.out)
    tmp = out.with_name(out.name + ".tmp")
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        p.unlink(missing_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)

    with ThrowawayMariaDB(extra_args=SERVER_ARGS, name="incident") as db:
        print(f"make_incident: server on port {db.port}; preparing tables", file=sys.stderr)
        LoadGenerator(db.root_kwargs(), LoadSpec(table="sbtest1", rows=HOT_ROWS)).prepare()
        LoadGenerator(db.root_kwargs(), LoadSpec(table="sbtest2", rows=SCAN_ROWS)).prepare()
        args = build_parser().parse_args(["record", str(tmp), *db.cli_args(), "--interval", "1"])
        source, _caps = open_live(args)
        writer = RecordingWriter(tmp, interval=1.0, trigger=a.trigger)
        engine = Engine(source, PolledTimeline(), recorder=writer)
        stop = threading.Event()
        marks: dict[str, float] = {}

        def on_frame(frame) -> None:  # type: ignore[no-untyped-def]
            marker.see(writer, frame)
            d = frame.to_dict()
            tp = d["throughput"]
            print(f"  {d['time']} tps={tp['tps']} running={tp['threads_running']} "
                  f"hot={(d['hotspots'] or [{}])[0].get('name')}", file=sys.stderr)

        loader = threading.Thread(target=run_phases, args=(db, plan, stop, marks), daemon=True)
        time.sleep(1.0)
        loader.start()
        try:
            engine.run(1.0, count=total, on_frame=on_frame)
        finally:
            stop.set()
            loader.join(timeout=120)
            if not marker.done and "storm" in marks:
                writer.bookmark(marks["storm"], None, None, "contention storm (start of the storm phase)")
                print("make_incident: trigger never fired; bookmarked the storm start", file=sys.stderr)
            engine.close()
    os.replace(tmp, out)
    size = out.stat().st_size
    print(f"make_incident: wrote {out} ({size / 1e6:.2f} MB, {writer.samples_written} samples, "
          f"{size / max(1, writer.samples_written):.0f} B/sample)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
