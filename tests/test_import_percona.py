"""A Percona Server 8.0 pt-stalk collection: the server named from -variables, no MariaDB (or any
privilege / instrument / config) advice for what the collection did not hold, the holder of a
stall "not recorded" (never "not visible: grant PROCESS") where a loop has no lock rows, and the
latch waits of the two mutex-status snapshots ranked as hotspots over their span.

The fixture (tests/fixtures/corpus/pt-stalk/percona-8.0-shaped, MANIFEST.tsv) is shaped as pt-stalk
3.x writes a collection of Percona Server 8.0.36: `-variables` holds SHOW GLOBAL VARIABLES with
MySQL 8's dotted component variables (validate_password.*, which sort before `version`) and then
variables_by_thread; `-mutex-status1/2` are the 92 per-instance rows of the real 8.0 capture in
corpus/innodb-mutex (and the same rows with waits added); `-transactions` (INNODB_TRX +
data_lock_waits) has pages for the first five loops only, as when the last loops' query did not
finish; `-innodbstatus2` lists the five waiters.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.core import collection_series
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.core.stalls import NOT_RECORDED
from mysqltop.recording.reader import RecordingReader

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus" / "pt-stalk"
PERCONA = CORPUS / "percona-8.0-shaped"
OWN = CORPUS / "mariadb-10.11-pt-stalk-3.2.1"
PREFIX = "2026_11_20_14_05_10"
# Words that only belong to a live server's remedies, or to MariaDB's
NOT_FOR_AN_IMPORT = ("grant PROCESS", "holder shows with PROCESS", "not visible", "instruments are off",
                     "[mysqld]", "performance-schema-instrument", "setup_instruments", "metadata_lock_info",
                     "LOCK_unused_shares", "tdc.LOCK_table_share", "MariaDB", "pool-of-threads")


@pytest.fixture(scope="module")
def percona(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("percona") / "p.mtrec"
    assert main(["import", str(PERCONA), "-o", str(out)]) == 0
    return out


def _report(path: Path, capsys: pytest.CaptureFixture[str], *fmt_args: str) -> str:
    capsys.readouterr()
    assert main(["report", str(path), *fmt_args]) == 0
    return capsys.readouterr().out


def test_version_and_flavor_from_variables_with_dotted_names(percona: Path, capsys: pytest.CaptureFixture[str]) -> None:
    variables = collection_series.variables((PERCONA / f"{PREFIX}-variables").read_text().splitlines())
    assert variables["validate_password.length"] == "8"
    assert variables["version"] == "8.0.36-28"            # the first table's, not variables_by_thread's
    with RecordingReader(percona) as r:
        server = r.sample(0).server
    assert (server.flavor, server.version, server.hostname) == ("percona", "8.0.36-28", "db-percona-1")
    text = _report(percona, capsys)
    assert "server: percona 8.0.36-28 at db-percona-1" in text
    rep = json.loads(_report(percona, capsys, "--format", "json"))
    assert rep["server"]["flavor"] == "percona" and rep["server"]["version"] == "8.0.36-28"


@pytest.mark.parametrize("collection", [PERCONA, OWN], ids=["percona-8.0", "mariadb-10.11"])
def test_no_advice_for_what_the_collection_did_not_hold(collection: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.mtrec"
    assert main(["import", str(collection), "-o", str(out)]) == 0
    text = _report(out, capsys)
    rep = json.loads(_report(out, capsys, "--format", "json"))
    ids = {a["id"] for a in rep["advice"]}
    assert "synch_instruments_off" not in ids and "synch_instruments_off" not in text
    words = NOT_FOR_AN_IMPORT if collection == PERCONA else NOT_FOR_AN_IMPORT[:9]
    for w in words:
        assert w not in text, w
        assert w not in json.dumps(rep["advice"]), w


def test_a_loop_without_lock_rows_says_not_recorded_and_the_report_names_the_holder(
        percona: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pipe = PolledTimeline()
    with RecordingReader(percona) as r:
        frames = [pipe.push(r.sample(i)) for i in range(len(r))]
    named = [f for f in frames if any(s.is_stall and s.root is not None and s.root.thread_id == 31 for s in f.stalls)]
    unrecorded = [f for f in frames if any(s.is_stall and s.source == NOT_RECORDED for s in f.stalls)]
    assert len(named) >= 3                     # pages with data_lock_waits name thread 31
    assert unrecorded and all("lock_waits" in f.unrecorded for f in unrecorded)
    assert unrecorded[0].time > named[-1].time  # the loop past the last -transactions page
    st = next(s for s in unrecorded[0].stalls if s.source == NOT_RECORDED)
    assert st.hint is None and st.waiting == 5
    adv = next(a for a in unrecorded[0].advice if a.id == "stall_row_lock")
    assert "not recorded here" in adv.message and "PROCESS" not in adv.message and "not visible" not in adv.message
    text = _report(percona, capsys)
    headline = next(line for line in text.splitlines() if line.startswith("STALL "))
    assert "root thread 31 app@10.1.2.3" in headline and "KILL 31" in headline


def test_latch_waits_between_the_two_mutex_snapshots_are_hotspots_over_their_span(
        percona: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pipe = PolledTimeline()
    with RecordingReader(percona) as r:
        frames = [pipe.push(r.sample(i)) for i in range(len(r))]
        snapshots = [r.sample(i).wall for i in range(len(r)) if r.sample(i).innodb_mutex is not None]
    span = snapshots[1] - snapshots[0]
    assert len(snapshots) == 2 and span == pytest.approx(6.0)
    hot = [f for f in frames if f.hotspots]
    assert len(hot) == 1 and hot[0].time == snapshots[1]          # one delta, not a series
    top = hot[0].hotspots[0]
    # five btr0sea.cc:202 instances, each +900 waits: summed per site, over the span
    assert (top.site, top.source, top.span_s) == ("btr0sea.cc:202", "innodb_mutex", pytest.approx(span))
    assert top.waits_per_s == pytest.approx(4500 / span)
    assert any(h.site == "trx0purge.cc:227" for h in hot[0].hotspots)   # first waited between the two
    assert any("a span, not a per-second series" in n for n in hot[0].notes)
    text = _report(percona, capsys)
    block = text[text.index("TOP HOTSPOTS"):text.index("IO, FLUSH AND LOCK PEAKS")]
    assert "btr0sea.cc:202" in block and "a start→end delta, not a series" in block
    rep = json.loads(_report(percona, capsys, "--format", "json"))
    first = rep["hotspots"][0]
    assert first["site"] == "btr0sea.cc:202" and first["span_s"] == pytest.approx(span)
    assert first["waits_per_s"] * first["span_s"] == pytest.approx(4500)     # the delta, whole
    note = next(b["note"] for b in rep["bookmarks"] if (b.get("note") or "").startswith("latch waits"))
    assert "btr0sea.cc:202 +4500" in note


def test_the_timeline_cursor_gives_the_frames_the_pipeline_gives(percona: Path) -> None:
    """Stepping through the import (replay, report) derives each frame from the samples before it
    as the pipeline did, the mutex span included."""
    from mysqltop.timeline.cursor import Cursor

    pipe = PolledTimeline()
    with RecordingReader(percona) as r:
        streamed = [pipe.push(r.sample(i)) for i in range(len(r))]
        cursor = Cursor(r)
        stepped = [cursor.frame_at(i) for i in reversed(range(len(r)))][::-1]
    assert [f.hotspots for f in stepped] == [f.hotspots for f in streamed]
    assert [f.advice for f in stepped] == [f.advice for f in streamed]
    assert any(h.span_s for f in stepped for h in f.hotspots)


@pytest.mark.parametrize("flavor", ["mysql", "percona", "mariadb", None])
def test_the_instrument_hint_gives_a_mysql_or_percona_server_no_mariadb_lines(flavor: str | None) -> None:
    from mysqltop.core.advice import advise
    from mysqltop.core.frame import Frame, ServerInfo
    from mysqltop.core.instrumentation import MARIADB_ONLY, hint_config

    note = "performance_schema wait/synch instruments are off: UPDATE performance_schema.setup_instruments …"
    frames = [Frame(time=1_700_000_000.0 + k, elapsed=1.0, server=ServerInfo("8.0.36-28", flavor, "db1"),
                    sources=[], notes=[note]) for k in range(10)]
    (a,) = [x for x in advise(frames, {"performance_schema": "ON"}) if x.id == "synch_instruments_off"]
    mariadb_words = [*MARIADB_ONLY, "on MariaDB"]
    if flavor in ("mysql", "percona"):
        assert not any(w in a.message for w in mariadb_words) and not any(n in hint_config(flavor) for n in MARIADB_ONLY)
        assert "wait/synch/rwlock/innodb/%=ON" in a.message                  # the InnoDB latches stay
    else:
        assert all(n in a.message for n in MARIADB_ONLY)


def test_an_import_is_sliced_by_dimension_too(percona: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every processlist page gives the moment's active sessions: the report's TOP LOAD names who."""
    rep = json.loads(_report(percona, capsys, "--format", "json"))
    users = {x["value"] for x in rep["load"]["slices"]["user"]}
    assert users and all(":" not in h["value"] for h in rep["load"]["slices"]["host"])     # ports dropped
