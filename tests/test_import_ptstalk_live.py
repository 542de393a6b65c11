"""The real pt-stalk, run the common way (`--iterations=2`) against the throwaway MariaDB: its
folder of two collections imports as one recording, oldest first, the time between them marked
not recorded, the server named from -variables, and no advice for what pt-stalk does not
collect."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.recording.reader import RecordingReader
from tests.support.mariadb import ThrowawayMariaDB

pytestmark = pytest.mark.skipif(shutil.which("pt-stalk") is None, reason="pt-stalk (percona-toolkit) not installed")


def _stalk(db: ThrowawayMariaDB, dest: Path) -> None:
    """pt-stalk --no-stalk --iterations=2, its sleep longer than its run time (as the defaults,
    30 s and 300 s, are), in a process group of its own, killed whole if anything goes wrong."""
    proc = subprocess.Popen(
        ["pt-stalk", "--no-stalk", "--iterations=2", "--run-time=2", "--sleep=8", f"--dest={dest}",
         f"--pid={dest}.pid", f"--log={dest}.log", "--", f"--socket={db.socket}", "--user=root"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert proc.wait(timeout=240) == 0, Path(f"{dest}.log").read_text()[-2000:]
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)       # its collectors too, whatever happened
        except ProcessLookupError:
            pass
        proc.wait()


def test_two_iterations_of_the_real_pt_stalk_are_one_recording(mariadb: ThrowawayMariaDB, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    dest = tmp_path / "pt-stalk"
    _stalk(mariadb, dest)
    prefixes = sorted({p.name[:19] for p in dest.iterdir()})
    assert len(prefixes) == 2
    out = tmp_path / "stalk.mtrec"
    assert main(["import", str(dest), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "2 collections, imported oldest first, one segment each" in err and ", ".join(prefixes) in err
    with RecordingReader(out) as r:
        times = [r.time_at(i) for i in range(len(r))]
        starts = r.segment_starts
        marks = [b for b in r.bookmarks if b.note]
        raws = [r.sample(i) for i in range(len(r))]
    assert times == sorted(times) and len(starts) == 2
    gap = next(b for b in marks if b.note.startswith("not recorded:"))
    assert gap.index == starts[1] and f"between pt-stalk collections {prefixes[0]} and {prefixes[1]}" in gap.note
    assert sum(1 for b in marks if b.note.startswith("pt-stalk trigger:")) == 2
    version = mariadb.query("SELECT VERSION()")[0][0]
    assert {(x.server.flavor, x.server.version) for x in raws} == {("mariadb", version)}
    assert all(x.not_recorded is not None and "ps_waits" in x.not_recorded for x in raws)
    assert sum(1 for x in raws if x.innodb_status) == 4                      # two snapshots per collection
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["server"]["version"] == version
    assert "synch_instruments_off" not in {a["id"] for a in rep["advice"]}
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "not recorded:" in text and "[mysqld]" not in text and "grant PROCESS" not in text
