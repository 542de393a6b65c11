"""Advice on frames from a real server: a buffer pool far too small for its scans gives the
buffer pool advice with the measured share; an idle server gives no warning."""

from __future__ import annotations

import time

import pytest

from mysqltop.cli import build_parser
from mysqltop.core.advice import advise
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.engine import Engine
from tests.support.load import LoadGenerator, LoadSpec

pytestmark = pytest.mark.live


def frames_from(db, n: int, gen: LoadGenerator | None = None) -> tuple[list, dict[str, str]]:
    from mysqltop.arguments import open_live

    args = build_parser().parse_args(["snapshot", *db.cli_args(), "--interval", "1"])
    source, _caps = open_live(args)
    pipe, frames, variables = PolledTimeline(), [], {}

    class Keep:                      # remember the variables the source read
        def read(self):
            raw = source.read()
            if raw is not None and raw.variables:
                variables.update(raw.variables)
            return raw

        def close(self) -> None:
            source.close()

    try:
        Engine(Keep(), pipe).run(1.0, count=n, on_frame=frames.append)
    finally:
        source.close()
    return frames, variables


def test_tiny_buffer_pool_scans_give_buffer_pool_advice(mariadb_factory) -> None:
    db = mariadb_factory(["--innodb-buffer-pool-size=6M"], name="advbp")
    gen = LoadGenerator(db.root_kwargs(), LoadSpec(mode="scan", threads=4, rows=30_000, duration=20,
                                                   table="adv_scan"))
    gen.prepare()
    with gen:
        time.sleep(1.0)
        frames, variables = frames_from(db, 8, gen)
    advice = advise(frames, variables)
    found = {a.id: a for a in advice}
    assert "buffer_pool_mutex" in found, [(a.id, a.evidence) for a in advice] + [
        [(h.name, round(h.share or 0, 2)) for h in f.hotspots[:4]] for f in frames]
    a = found["buffer_pool_mutex"]
    assert "single buffer pool" in a.message              # MariaDB 10.5+: no instances to add
    assert "innodb_buffer_pool_size = 6291456 (6 MiB)" in a.message
    assert " % of wait time (" in a.evidence and " waits/s)" in a.evidence   # the named latch's own figures
    assert frames[-1].advice and "buffer_pool_mutex" in [x.id for x in frames[-1].advice]


def test_idle_server_gives_no_warning(mariadb) -> None:
    frames, variables = frames_from(mariadb, 5)
    assert [a.id for a in advise(frames, variables) if a.severity != "info"] == []
