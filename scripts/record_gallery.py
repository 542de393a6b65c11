#!/usr/bin/env python3
"""Re-record the incident gallery (recordings/*.mtrec) from scratch on throwaway MariaDB servers.

Each incident is one real problem injected on its own throwaway server (tests/support/mariadb.py,
never the service on 3306) and recorded by mysqltop's live source at 1 s, as `mysqltop record`
does: a calm lead-in (light paced OLTP), then the onset (bookmarked), held for a while. The
injections are the ones the diagnosis scenarios use (tests/support/scenarios.py, bench/diagnosis).

    .venv/bin/python scripts/record_gallery.py [--only NAME …] [--out recordings] [--scale 1.0]

Writes recordings/NAME.mtrec (each via a temporary file, renamed when complete) and
recordings/gallery.json (name, title, the finding a report must name). recordings/README.md is
written by hand: what to look at and the fix.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mysqltop.cli import build_parser  # noqa: E402
from mysqltop.arguments import open_live  # noqa: E402
from mysqltop.core.frame import Frame  # noqa: E402
from mysqltop.timeline.polled import PolledTimeline  # noqa: E402
from mysqltop.engine import Engine  # noqa: E402
from mysqltop.recording.writer import RecordingWriter  # noqa: E402
from tests.support import slow_sync  # noqa: E402
from tests.support.load import TEST_DB, LoadGenerator, LoadSpec, ReadViewHolder  # noqa: E402
from tests.support.mariadb import ThrowawayMariaDB  # noqa: E402
from tests.support.scenarios import DURABLE, LOG_SYNC_DELAY_MS  # noqa: E402

LONG = dict(transactions=10**9, duration=3600.0)
CALM = LoadSpec(mode="oltp", threads=2, rate=10, rows=20_000, **LONG)  # type: ignore[arg-type]


@dataclass
class Incident:
    name: str
    title: str
    finding: str | None                 # the advice id the report must name (None: a stall class today's
                                        # rules do not name yet; tests/test_gallery.py checks its facts)
    server_args: list[str] = field(default_factory=list)
    tables: list[tuple[str, int]] = field(default_factory=lambda: [("sbtest1", 20_000)])
    onset: list[LoadSpec] = field(default_factory=list)
    calm: LoadSpec = field(default_factory=lambda: CALM)
    slow_sync_ms: float = 0.0
    # extra sessions opened at the onset (an idle lock holder, a read view …), closed at the end
    inject: Callable[[ThrowawayMariaDB], list[Any]] | None = None
    calm_s: float = 45.0
    onset_s: float = 105.0


def _spec(**kw: Any) -> LoadSpec:
    return LoadSpec(**{**LONG, **kw})


class IdleRowHolder:
    """A session that updates a row in an open transaction and then sits idle (Sleep)."""

    def __init__(self, db: ThrowawayMariaDB, sql: str) -> None:
        self.conn = db.root_conn(database=TEST_DB)
        with self.conn.cursor() as cur:
            cur.execute("BEGIN")
            cur.execute(sql)
            cur.fetchall()

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001 - the server may have ended it
            pass


class BackgroundStatement:
    """One statement run in its own session on a thread (it waits: an ALTER behind a lock)."""

    def __init__(self, db: ThrowawayMariaDB, sql: str) -> None:
        self.conn = db.root_conn(database=TEST_DB)
        self.thread = threading.Thread(target=self._run, args=(sql,), daemon=True)
        self.thread.start()

    def _run(self, sql: str) -> None:
        try:
            with self.conn.cursor() as cur:
                cur.execute(sql)
        except Exception:  # noqa: BLE001 - killed or closed at the end
            pass

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001
            pass


def _row_lock(db: ThrowawayMariaDB) -> list[Any]:
    return [IdleRowHolder(db, "UPDATE sbtest1 SET k = k + 1 WHERE id = 1")]


def _read_view(db: ThrowawayMariaDB) -> list[Any]:
    return [ReadViewHolder(db.root_kwargs(), table="sbtest1")]


def _mdl(db: ThrowawayMariaDB) -> list[Any]:
    holder = IdleRowHolder(db, "SELECT COUNT(*) FROM sbtest1")     # shared MDL kept by the open transaction
    time.sleep(0.5)
    return [holder, BackgroundStatement(db, "ALTER TABLE sbtest1 ADD COLUMN gallery_note INT")]


INCIDENTS: dict[str, Incident] = {i.name: i for i in (
    Incident("ahi-latch", "adaptive hash index latch (btr_search) contention", "ahi_latch",
             ["--innodb-adaptive-hash-index=ON"], onset=[_spec(mode="ahi", threads=16, rows=20_000)]),
    Incident("small-buffer-pool", "buffer pool too small for the scanned data", "buffer_pool_mutex",
             ["--innodb-buffer-pool-size=6M"], tables=[("sbtest1", 20_000), ("sbtest2", 30_000)],
             onset=[_spec(mode="scan", table="sbtest2", threads=4, rows=30_000)]),
    Incident("small-redo-log", "redo log too small for the write rate", "checkpoint_age",
             ["--innodb-log-file-size=4M", "--innodb-buffer-pool-size=128M"],
             onset=[_spec(mode="update", threads=8, rows=20_000), _spec(mode="insert", threads=4, rows=20_000)]),
    Incident("fsync-commits", "fsync-bound commits with the binary log (slow log storage)", "commit_path",
             DURABLE, slow_sync_ms=LOG_SYNC_DELAY_MS, calm=_spec(mode="oltp", threads=2, rate=5, rows=20_000),
             onset=[_spec(mode="insert", threads=8, rows=20_000)]),
    Incident("purge-read-view", "purge held back by an old read view", "purge_lag",
             onset=[_spec(mode="update", threads=4, rows=20_000)], inject=_read_view),
    Incident("row-lock-idle-trx", "row-lock pile-up behind an idle transaction", "stall_row_lock",
             ["--innodb-lock-wait-timeout=300"], onset=[_spec(mode="hot", threads=9, hold_ms=5)],
             inject=_row_lock),
    Incident("metadata-lock", "metadata-lock pile-up behind an ALTER waiting on an idle transaction",
             "stall_metadata_lock", ["--lock-wait-timeout=600"], onset=[_spec(mode="oltp", threads=8, rows=20_000)],
             inject=_mdl),
)}


def record(inc: Incident, out: Path, scale: float, build_dir: Path) -> dict[str, Any]:
    env = slow_sync.server_env(slow_sync.build(build_dir), inc.slow_sync_ms) if inc.slow_sync_ms else {}
    tmp = out.with_name(out.name + ".tmp")
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        p.unlink(missing_ok=True)
    calm_s, onset_s = inc.calm_s * scale, inc.onset_s * scale
    with ThrowawayMariaDB(extra_args=inc.server_args, name="gallery", env=env) as db:
        print(f"record_gallery: {inc.name}: server on port {db.port}; preparing", file=sys.stderr)
        for table, rows in inc.tables:
            LoadGenerator(db.root_kwargs(), LoadSpec(table=table, rows=rows)).prepare()
        args = build_parser().parse_args(["record", str(tmp), *db.cli_args(), "--interval", "1"])
        source, _caps = open_live(args)
        writer = RecordingWriter(tmp, interval=1.0)
        engine = Engine(source, PolledTimeline(), recorder=writer)
        stop = threading.Event()
        held: list[Any] = []
        gens: list[LoadGenerator] = []
        onset_at: list[float] = []

        def phases() -> None:
            calm = LoadGenerator(db.root_kwargs(), inc.calm)
            calm.start()
            gens.append(calm)
            if stop.wait(calm_s):
                return
            onset_at.append(time.time())
            if inc.inject is not None:
                held.extend(inc.inject(db))
            for spec in inc.onset:
                g = LoadGenerator(db.root_kwargs(), spec)
                g.start()
                gens.append(g)
            writer.bookmark(onset_at[0], None, None, f"onset: {inc.title}")
            print(f"record_gallery: {inc.name}: onset", file=sys.stderr)

        def on_frame(frame: Frame) -> None:
            d = frame.to_dict()
            tp = d["throughput"]
            print(f"  {d['time']} tps={tp['tps']} running={tp['threads_running']}", file=sys.stderr)

        loader = threading.Thread(target=phases, daemon=True)
        time.sleep(1.0)
        loader.start()
        try:
            engine.run(1.0, count=int(calm_s + onset_s) + 2, on_frame=on_frame)
        finally:
            stop.set()
            loader.join(timeout=60)
            engine.close()
            for h in held:             # first: waiters behind a holder end with it
                h.close()
            for g in gens:
                g._stop.set()
            for g in gens:
                g.wait(timeout=15)
    os.replace(tmp, out)
    out.chmod(0o644)                # a shared gallery, not a private recording
    size = out.stat().st_size
    print(f"record_gallery: wrote {out} ({size / 1e6:.2f} MB, {writer.samples_written} samples)", file=sys.stderr)
    return {"name": inc.name, "file": out.name, "title": inc.title, "finding": inc.finding,
            "onset_s": round(calm_s), "samples": writer.samples_written}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--only", nargs="*", choices=list(INCIDENTS), help="incidents to re-record (default: all)")
    ap.add_argument("--out", default=str(ROOT / "recordings"), help="gallery directory")
    ap.add_argument("--scale", type=float, default=1.0, help="stretch or shrink both phases")
    a = ap.parse_args(argv)
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    index_path = out_dir / "gallery.json"
    index: dict[str, Any] = json.loads(index_path.read_text()) if index_path.is_file() else {}
    with tempfile.TemporaryDirectory(prefix="mtop-gallery-lib-") as build:
        for name in a.only or list(INCIDENTS):
            entry = record(INCIDENTS[name], out_dir / f"{name}.mtrec", a.scale, Path(build))
            index[name] = entry
            ordered = {k: index[k] for k in INCIDENTS if k in index}
            tmp = index_path.with_name(index_path.name + ".tmp")
            tmp.write_text(json.dumps(ordered, indent=2) + "\n")
            os.replace(tmp, index_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
