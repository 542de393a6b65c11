"""The incident gallery (recordings/, scripts/record_gallery.py) as a regression corpus: every
recording's report finds the incident that was injected, after its bookmarked onset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mysqltop.cli import main

GALLERY = Path(__file__).resolve().parents[1] / "recordings"
ENTRIES = json.loads((GALLERY / "gallery.json").read_text())


def _report(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    assert main(["report", str(path), "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_gallery_is_complete_and_small() -> None:
    assert len(ENTRIES) >= 6
    files = sorted(GALLERY.glob("*.mtrec"))
    assert sorted(f.stem for f in files) == sorted(ENTRIES)
    assert sum(f.stat().st_size for f in files) < 10e6
    readme = (GALLERY / "README.md").read_text()
    for name in ENTRIES:
        assert f"`{name}`" in readme, name


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_report_finds_the_injected_incident(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    entry = ENTRIES[name]
    path = GALLERY / entry["file"]
    rep = _report(path, capsys)
    (mark,) = [b for b in rep["bookmarks"] if (b.get("note") or "").startswith("onset:")]
    assert rep["samples"] >= 120 and rep["stale_frames"] == 0
    calm = _report(path, capsys, "--end", mark["time"].replace("Z", "+00:00"))
    if entry["finding"] is not None:
        ids = [a["id"] for a in rep["advice"]]
        assert entry["finding"] in ids, ids
        assert entry["finding"] not in [a["id"] for a in calm["advice"]]      # not in the calm lead-in
    if name == "row-lock-idle-trx":
        # the stall as today's capture shows it: one idle session blocks every waiter
        top = max(rep["blocking_chains"], key=lambda c: c["max_blocked"])
        assert top["max_blocked"] == 9 and top["command"] == "Sleep" and top["kill"] == f"KILL {top['thread_id']}"
        assert rep["locks"]["row_lock_current_waits"]["max"] == 9
        assert not calm["blocking_chains"]
    if name == "metadata-lock":
        # sessions stuck in "Waiting for table metadata lock" and throughput gone to zero
        assert rep["throughput"]["tps"]["min"] == 0 and calm["throughput"]["tps"]["avg"] > 10
        assert rep["throughput"]["threads_running"]["max"] >= 9


@pytest.mark.parametrize("name", ["row-lock-idle-trx", "metadata-lock"])
def test_a_lock_incident_opens_where_its_stall_finding_shows(name: str) -> None:
    """`demo` of a lock incident starts where a replay judged from there shows the stall finding
    at once (the default demo is one of these), after the onset and not a minute late."""
    from mysqltop.commands.demo import DEFAULT, opening
    from mysqltop.timeline.cursor import Cursor
    from mysqltop.recording.reader import RecordingReader
    from mysqltop.sources.replay_source import ReplaySource

    assert DEFAULT in ("row-lock-idle-trx", "metadata-lock")
    path = GALLERY / ENTRIES[name]["file"]
    start = opening(name, path, at_finding=True)
    assert start is not None
    src = ReplaySource(str(path), start=start, on_damage=None)
    try:
        first = src.first
    finally:
        src.close()
    with RecordingReader(path) as reader:
        onset = reader.bookmarks[0].time
        assert onset <= reader.time_at(first) <= onset + 30
        frame = Cursor(reader, floor=first).frame_at(first)
    assert ENTRIES[name]["finding"] in [a.id for a in frame.advice]
    # the locks pane has the pile: a tree where the server names the holder, else the candidates
    assert frame.blocking or frame.metadata_blocking or any(s.is_stall and s.candidates for s in frame.stalls)
