"""`report` TOP LOAD: the gallery's row-lock pile-up written again with the active session rows a
live poll would have kept (built from the busy sessions and lock waits it recorded), reported as
text, JSON, Markdown and HTML, and compared across two windows."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.core import active_sessions
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter

GALLERY = Path(__file__).resolve().parent.parent / "recordings" / "row-lock-idle-trx.mtrec"


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "pile.mtrec"
    with RecordingReader(GALLERY) as r, RecordingWriter(path, interval=r.meta.interval) as w:
        for i in range(len(r)):
            s = r.sample(i)
            rows = None if s.sessions is None else active_sessions.rows(
                s.sessions, s.lock_waits, s.row_locks, s.metadata_locks, with_port=False)
            w.append(dataclasses.replace(s, active_sessions=rows))
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["report", *args]) == 0
    return capsys.readouterr().out


def test_json_slices_name_the_row_and_agree_with_the_wait_classes(recording: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rep = json.loads(run(capsys, str(recording), "--format", "json"))
    load = rep["load"]
    objects = load["slices"]["object"]
    top = objects[0]
    assert "row_lock" in top["classes"] and top["value"] != "CPU"
    # every dimension adds up to the window's active sessions (one fold, the same seconds)
    for dim in ("user", "wait_class"):
        assert sum(x["sessions"] for x in load["slices"][dim]) == pytest.approx(load["active_avg"], abs=0.1)
    by_class = {x["value"]: x["sessions"] for x in load["slices"]["wait_class"]}
    assert by_class["row_lock"] == pytest.approx(load["classes"]["row_lock"], abs=0.1)
    assert any(s["id"].startswith("stall_") for s in load["spans"])


def test_text_and_markdown_have_the_top_load_block(recording: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = run(capsys, str(recording))
    assert "TOP LOAD" in text and "by wait object:" in text and "row lock" in text and "during stall_" in text
    md = run(capsys, str(recording), "--format", "md")
    assert "## Top load" in md


def test_the_page_fills_its_top_load_tables(recording: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.html"
    run(capsys, str(recording), "--format", "html", "-o", str(out))
    page = out.read_text()
    assert "every active session of each poll" in page and "Objects waited on" in page


def test_compare_shows_what_grew(recording: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with RecordingReader(recording) as r:
        n = len(r)
    text = run(capsys, str(recording), "--compare", f"+0s..+{n // 4}s", f"-{n // 4}s..-0s")
    assert "TOP LOAD COMPARED" in text
    rep = json.loads(run(capsys, str(recording), "--compare", f"+0s..+{n // 4}s", f"-{n // 4}s..-0s",
                         "--format", "json"))
    assert set(rep["load"]) >= {"user", "object", "sql"}
    assert all({"value", "a", "b"} == set(x) for x in rep["load"]["user"])


def test_an_older_recording_says_not_recorded(capsys: pytest.CaptureFixture[str]) -> None:
    text = run(capsys, str(GALLERY))
    assert "not recorded: this window holds no active-session samples" in text
    assert json.loads(run(capsys, str(GALLERY), "--format", "json"))["load"]["slices"] == {}


def test_the_row_lock_finding_names_who_carries_the_load(recording: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rep = json.loads(run(capsys, str(recording), "--format", "json"))
    ev = [e["evidence"] for e in rep["advice"] if e["id"] == "row_lock_waits"]
    assert ev and any("% of the row-lock load is `UPDATE sbtest1 SET k=k+? WHERE id=?` from root@" in x
                      and "in schema mysqltop_test" in x for x in ev), ev
