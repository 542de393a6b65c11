"""Imports carry their deadlocks: a pt-stalk collection's -innodbstatus files become recorded
samples whose LATEST DETECTED DEADLOCK is read whole, and `report` tells it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.recording.reader import RecordingReader
from mysqltop.views.headless import text_frame

SECURE = Path(__file__).resolve().parent / "fixtures" / "corpus" / "pt-stalk" / "secure-collect-2018"


def test_pt_stalk_innodbstatus_deadlock_reaches_frames_and_report(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "secure.mtrec"
    assert main(["import", str(SECURE), "--prefix", "2018_03_05_13_24_55", "-o", str(out)]) == 0, \
        capsys.readouterr().err
    capsys.readouterr()
    with RecordingReader(out) as r:
        raws = [r.sample(i) for i in range(len(r))]
    pipe = PolledTimeline()
    frames = [pipe.push(x, advise=False) for x in raws]
    deadlocks = [f.deadlock for f in frames if f.deadlock is not None]
    assert deadlocks, "no imported sample carried its deadlock"
    d = deadlocks[0]
    assert (d.time, d.victim, len(d.transactions)) == ("2018-02-27 14:45:46", 2, 2)
    assert [t.thread_id for t in d.transactions] == [29247292, 29247291]
    assert d.transactions[1].holds[0].table == "percona_com_redesign2015.semaphore"
    shown = next(f for f in frames if f.deadlock is not None)
    assert "DEADLOCK    latest deadlock 2018-02-27 14:45:46: 2 trx on percona_com_redesign2015.semaphore" \
        in text_frame(shown)
    assert main(["report", str(out), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)["deadlocks"]
    # the same deadlock in every file: it happened before the collection, none during it
    assert rep["captured"] == 0 and rep["patterns"] == []
    assert rep["before"].startswith("2 trx on percona_com_redesign2015.semaphore (PRIMARY)")
