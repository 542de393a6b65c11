"""`mysqltop import`: pt-stalk collections and saved outputs into recordings (docs/import.md).

Inputs are public samples (percona-toolkit's pt-mext and pt-secure-collect test data) and a
collection made by the real pt-stalk 3.2.1 on a throwaway MariaDB (tests/fixtures/corpus/MANIFEST.tsv).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.core import collection_pages, collection_series
from mysqltop.recording.reader import RecordingReader

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"
MEXT = CORPUS / "mysqladmin"
SECURE = CORPUS / "pt-stalk" / "secure-collect-2018"
OWN = CORPUS / "pt-stalk" / "mariadb-10.11-pt-stalk-3.2.1"
OWN_PREFIX = "2026_11_27_03_23_04"


def _import(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["import", *argv])
    return code, capsys.readouterr().err


def _report(path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["report", str(path), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _result_columns(path: Path) -> dict[str, list[int]]:
    out = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and all(p.lstrip("-").isdigit() for p in parts[1:]):
            out[parts[0]] = [int(p) for p in parts[1:]]
    return out


# --- mysqladmin ext: absolute and -r -----------------------------------------------------------

def _absolute(path: Path) -> tuple[list[dict[str, str]], bool]:
    conv = collection_series.Absolutes()
    out = []
    for s in collection_series.mysqladmin_samples(path.read_text().splitlines()):
        out += conv.feed(s)
    out += conv.finish()
    assert conv.relative is not None
    return out, conv.relative


def test_relative_form_is_detected_and_summed_back_as_pt_mext_reads_it() -> None:
    # mext-001 was taken with `mysqladmin ext -r`: pt-mext (no -r) prints its raw columns
    samples, relative = _absolute(MEXT / "percona-toolkit__mext-001.txt")
    assert relative and len(samples) == 4
    expected = _result_columns(MEXT / "percona-toolkit__mext-001-result.txt")
    checked = 0
    for name, cols in expected.items():
        if name not in samples[0] or not samples[0][name].isdigit():
            continue
        values = [int(s[name]) for s in samples]
        assert [values[0]] + [b - a for a, b in zip(values, values[1:])] == cols, name
        checked += 1
    assert checked > 200
    assert [int(s["Uptime"]) for s in samples] == [5550, 5553, 5557, 5560]


def test_absolute_form_passes_through_as_pt_mext_r_diffs_it() -> None:
    samples, relative = _absolute(MEXT / "percona-toolkit__mext-002.txt")
    assert not relative
    expected = _result_columns(MEXT / "percona-toolkit__mext-002-result.txt")
    for name in ("Questions", "Uptime", "Com_select", "Bytes_received"):
        values = [int(s[name]) for s in samples]
        assert [values[0]] + [b - a for a, b in zip(values, values[1:])] == expected[name]


def test_a_restart_is_not_the_relative_form() -> None:
    def table(uptime: int, q: int) -> list[str]:
        return ["| Variable_name | Value |", f"| Questions | {q} |", f"| Uptime | {uptime} |"]
    conv = collection_series.Absolutes()
    out = []
    for s in collection_series.mysqladmin_samples(table(900, 50) + table(2, 3) + table(3, 9) + table(4, 12)):
        out += conv.feed(s)
    out += conv.finish()
    assert conv.relative is False
    assert [s["Questions"] for s in out] == ["50", "3", "9", "12"]


# --- loop files ---------------------------------------------------------------------------------

def test_ts_paged_processlist() -> None:
    pages = list(collection_pages.vertical_pages(open(SECURE / "2018_03_05_13_24_55-processlist", encoding="utf-8")))
    assert len(pages) == 30
    assert pages[0].ts is not None and pages[0].ts[0] == pytest.approx(1520256297.002, abs=0.01)
    assert collection_pages.utc_offset(pages[0].ts) == 0
    rows = pages[0].results[0]
    assert rows[0]["Id"] == "689004" and rows[0]["Command"] == "Sleep"


def test_pages_without_ts_lines_split_where_the_first_column_repeats() -> None:
    # pt-stalk 3.1–3.4 wrote no TS lines; -transactions holds INNODB_TRX, INNODB_LOCKS and
    # INNODB_LOCK_WAITS result sets per loop
    pages = list(collection_pages.vertical_pages(open(OWN / f"{OWN_PREFIX}-processlist", encoding="utf-8")))
    assert len(pages) == 8 and all(p.ts is None for p in pages)
    tpages = list(collection_pages.vertical_pages(open(OWN / f"{OWN_PREFIX}-transactions", encoding="utf-8")))
    assert len(tpages) == 8
    keys = [set(rs[0]) for rs in tpages[0].results]
    assert "trx_state" in keys[0] and any("requesting_trx_id" in k for k in keys)


def test_statement_text_cannot_forge_a_column_or_a_row() -> None:
    text = ["TS 1700000000.5 2023-11-14 22:13:20",
            "*************************** 1. row ***************************",
            "     Id: 7", "   User: app", "Command: Query", "   Time: 3", "  State: updating",
            "   Info: UPDATE t SET a = 1", "   User: root", "Command: Sleep", "     Id: 99",
            "*************************** 2. row ***************************",
            "     Id: 8", "   User: app", "Command: Query", "   Time: 1", "  State: x", "   Info: SELECT 1"]
    page = next(collection_pages.vertical_pages(text))
    rows = page.results[0]
    assert len(rows) == 2
    assert rows[0]["User"] == "app" and rows[0]["Id"] == "7"
    assert "User: root" in rows[0]["Info"] and "Id: 99" in rows[0]["Info"]


def test_sessions_and_transactions_in_the_live_shapes() -> None:
    page = list(collection_pages.vertical_pages(open(OWN / f"{OWN_PREFIX}-processlist", encoding="utf-8")))[2]
    rows = [r for rs in page.results for r in rs]
    busy, states = collection_series.sessions(rows)
    assert all(len(s) == 8 for s in busy) and all(s[4] not in collection_series.IDLE_COMMANDS for s in busy)
    assert sum(int(str(s[2])) for s in states) == len(rows)
    procs = {int(r["Id"]): r for r in rows}
    tpage = list(collection_pages.vertical_pages(open(OWN / f"{OWN_PREFIX}-transactions", encoding="utf-8")))[2]
    trx, waits = collection_series.transactions(tpage.results, procs, None)
    assert trx and all(len(t) == 13 for t in trx)
    assert waits and all(len(w) == 18 for w in waits)
    assert {w[14] for w in waits} <= {"`mysqltop_test`.`sbtest1`"}


# --- mutex status: three dialects, repeats summed, then diffed ------------------------------------

def test_latch_deltas_in_every_dialect() -> None:
    old = ("Type\tName\tStatus\nInnoDB\t&kernel_mutex\tos_waits=10\nInnoDB\t&buf_pool->mutex\tos_waits=5\n",
           "Type\tName\tStatus\nInnoDB\t&kernel_mutex\tos_waits=25\nInnoDB\t&buf_pool->mutex\tos_waits=5\n"
           "InnoDB\t&log_sys->mutex\tos_waits=3\n")
    d = collection_series.latch_deltas(*old)
    assert d is not None and [(x.name, x.waits) for x in d] == [("&kernel_mutex", 15), ("&log_sys->mutex", 3)]
    # 5.7+: one name per instance (summed by name first), and a latch that appears only once it waited
    new1 = "Type\tName\tStatus\nInnoDB\trwlock: btr0sea.cc:202\twaits=4\nInnoDB\trwlock: btr0sea.cc:202\twaits=6\n"
    new2 = ("Type\tName\tStatus\nInnoDB\trwlock: btr0sea.cc:202\twaits=40\nInnoDB\trwlock: btr0sea.cc:202\twaits=70\n"
            "InnoDB\trwlock: dict0dict.cc:2783\twaits=2\n")
    d = collection_series.latch_deltas(new1, new2)
    assert d is not None and [(x.site, x.waits) for x in d] == [("btr0sea.cc:202", 100), ("dict0dict.cc:2783", 2)]
    # 5.6 with spins/waits/calls
    s1 = "Type\tName\tStatus\nInnoDB\t&trx_sys->mutex\tspins=10,waits=2,calls=100\n"
    s2 = "Type\tName\tStatus\nInnoDB\t&trx_sys->mutex\tspins=90,waits=12,calls=900\n"
    d = collection_series.latch_deltas(s1, s2)
    assert d is not None and d[0].waits == 10
    assert collection_series.latch_deltas("hello", s2) is None


# --- the command ---------------------------------------------------------------------------------

def test_import_a_real_pt_stalk_collection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "stalk.mtrec"
    code, err = _import(capsys, str(OWN), "-o", str(out))
    assert code == 0, err
    assert "pt-stalk removed it as empty" in err and "mutex-status1" in err
    with RecordingReader(out) as r:
        # 8 counter samples from the collection's start (mysqladmin), the loop pages from a
        # second later (the last one past the counters), then the second status snapshot
        assert len(r) == 10
        raws = [r.sample(i) for i in range(len(r))]
        marks = r.bookmarks
    assert raws[0].server.flavor == "mariadb" and raws[0].variables["innodb_lock_wait_timeout"]
    assert sum(1 for x in raws if x.innodb_status) == 2
    assert raws[0].sessions is None and raws[0].innodb_status                 # before the first loop
    assert all(x.sessions is not None and x.global_status for x in raws[1:8])
    assert raws[8].sessions is not None and raws[8].global_status == {}       # unknown, not zero
    assert raws[9].innodb_status and raws[9].sessions is None
    assert all(x.innodb_mutex is None for x in raws)            # missing stays unknown
    assert marks and marks[0].note is not None and marks[0].note.startswith("pt-stalk trigger:")
    rep = _report(out, capsys)
    assert rep["throughput"]["tps"]["avg"] > 5
    chains = rep["blocking_chains"]
    assert chains and max(c["max_blocked"] for c in chains) >= 4
    assert rep["locks"]["row_lock_current_waits"]["max"] >= 4


def test_import_ts_paged_collection_and_mixed_prefixes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "secure.mtrec"
    code, err = _import(capsys, str(SECURE), "--prefix", "2018_03_05_13_24_55", "-o", str(out))
    assert code == 0, err
    assert "no -mysqladmin: server counters (TPS, QPS, rates) not recorded" in err
    with RecordingReader(out) as r:
        raws = [r.sample(i) for i in range(len(r))]
    assert len(raws) == 30
    assert raws[0].wall == pytest.approx(1520256297.0, abs=1.5)
    statuses = [x for x in raws if x.innodb_status]
    assert len(statuses) == 2 and statuses[1].wall - statuses[0].wall > 20
    assert all(x.global_status == {} for x in raws)


def test_plain_mysqladmin_series(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rel, ab = tmp_path / "rel.mtrec", tmp_path / "abs.mtrec"
    code, err = _import(capsys, str(MEXT / "percona-toolkit__mext-001.txt"), "-o", str(rel), "--at", "2024-01-01T00:00:00Z")
    assert code == 0 and "relative (-r)" in err
    assert _import(capsys, str(MEXT / "percona-toolkit__mext-002.txt"), "-o", str(ab), "--at", "2024-01-01T00:00:00Z")[0] == 0
    with RecordingReader(rel) as r:
        assert [r.time_at(i) - r.time_at(0) for i in range(len(r))] == [0, 3, 6, 9]    # -i3, Uptime 3, 4, 3 apart
        assert r.sample(3).global_status["Uptime"] == "5560"
    rep = _report(rel, capsys)
    assert rep["throughput"]["qps"]["samples"] == 3


def _collection(tmp_path: Path) -> Path:
    d = tmp_path / "c"
    shutil.copytree(OWN, d)
    return d


@pytest.mark.parametrize("case", ["not-a-collection", "empty-dir", "binary", "truncated-status", "exists",
                                  "missing", "binary-status", "not-what-it-claims"])
def test_bad_input_one_line_and_nothing_written(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.mtrec"
    path = tmp_path / "in"
    expected_code, words = 1, ""
    if case == "not-a-collection":
        path.mkdir()
        (path / "notes.txt").write_text("hello\nworld\n")
        expected_code, words = 2, "neither a pt-stalk file"
    elif case == "empty-dir":
        path.mkdir()
        expected_code, words = 2, "no files"
    elif case == "binary":
        path.mkdir()
        (path / f"{OWN_PREFIX}-processlist").write_bytes(bytes(range(256)) * 100)
        words = "binary data"
    elif case == "binary-status":
        path = _collection(tmp_path)
        (path / f"{OWN_PREFIX}-innodbstatus2").write_bytes(b"\x7fELF\x00\x01" * 1000)
        words = "binary data"
    elif case == "truncated-status":
        path = _collection(tmp_path)
        f = path / f"{OWN_PREFIX}-innodbstatus2"
        f.write_text(f.read_text()[:3000])
        words = "cut short"
    elif case == "not-what-it-claims":
        path = _collection(tmp_path)
        (path / f"{OWN_PREFIX}-processlist").write_text("<html><body>502 Bad Gateway</body></html>\n" * 50)
        words = "not SHOW FULL PROCESSLIST\\G pages"
    elif case == "exists":
        path = OWN
        out.write_text("keep me")
        expected_code, words = 2, "already exists"
    elif case == "missing":
        path = tmp_path / "nope"
        expected_code, words = 2, "no such file"
    code, err = _import(capsys, str(path), "-o", str(out))
    assert code == expected_code, err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith((".out", "out"))) == (
        ["out.mtrec"] if case == "exists" else [])
    if case == "truncated-status":
        code, err = _import(capsys, str(path), "-o", str(out), "--partial")
        assert code == 0 and "cut short (no END OF INNODB MONITOR OUTPUT), left out" in err


def test_overlong_lines_and_big_files_stream(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _collection(tmp_path)
    with open(d / f"{OWN_PREFIX}-processlist", "a") as f:
        f.write("TS 1795749794.0 2026-11-27 03:23:14\n*************************** 1. row ***************************\n"
                "     Id: 5\n   User: x\n   Info: " + "A" * (5 << 20) + "\n")
    out = tmp_path / "o.mtrec"
    code, err = _import(capsys, str(d), "-o", str(out))
    assert code == 0, err
    with RecordingReader(out) as r:
        for i in range(len(r)):
            for s in r.sample(i).sessions or []:
                assert len(str(s[7] or "")) <= collection_pages.MAX_VALUE_CHARS


def test_latch_data_at_two_points_is_one_delta_not_a_series(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _collection(tmp_path)
    (d / f"{OWN_PREFIX}-mutex-status1").write_text(
        "Type\tName\tStatus\nInnoDB\trwlock: btr0sea.cc:202\twaits=4\nInnoDB\trwlock: btr0sea.cc:202\twaits=6\n")
    (d / f"{OWN_PREFIX}-mutex-status2").write_text(
        "Type\tName\tStatus\nInnoDB\trwlock: btr0sea.cc:202\twaits=400\nInnoDB\trwlock: btr0sea.cc:202\twaits=610\n"
        "InnoDB\trwlock: dict0dict.cc:2783\twaits=2\n")
    out = tmp_path / "m.mtrec"
    code, err = _import(capsys, str(d), "-o", str(out))
    assert code == 0, err and "mutex-status" not in err
    with RecordingReader(out) as r:
        raws = [r.sample(i) for i in range(len(r))]
        marks = r.bookmarks
    with_mutex = [x for x in raws if x.innodb_mutex is not None]
    assert len(with_mutex) == 2 and all(x.innodb_status for x in with_mutex)
    note = next(m.note for m in marks if m.note and m.note.startswith("latch waits"))
    assert "start→end delta of two snapshots, not a series" in note
    assert "btr0sea.cc:202 +1000" in note and "dict0dict.cc:2783 +2" in note
    rep = _report(out, capsys)
    assert any("latch waits mutex-status1→2" in (b.get("note") or "") for b in rep["bookmarks"])


def test_plain_series_of_saved_status_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = []
    for n, src in enumerate(sorted(SECURE.glob("*-innodbstatus*"))):
        f = tmp_path / f"status-{n}.txt"                  # saved by hand: no pt-stalk prefix
        f.write_text(src.read_text())
        files.append(str(f))
    out = tmp_path / "s.mtrec"
    code, err = _import(capsys, *files, "-o", str(out))
    assert code == 0, err
    with RecordingReader(out) as r:
        times = [r.time_at(i) for i in range(len(r))]
        assert len(r) == 4 and all(r.sample(i).innodb_status for i in range(len(r)))
    assert times == sorted(times) and times[-1] - times[0] > 290      # two collections five minutes apart


def test_host_from_vmstat_needs_a_cpu_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _collection(tmp_path)
    (d / f"{OWN_PREFIX}-procstat").unlink()
    out = tmp_path / "v.mtrec"
    code, err = _import(capsys, str(d), "-o", str(out))
    assert code == 0 and "no CPU count: host not recorded" in err
    with RecordingReader(out) as r:
        assert all(r.sample(i).host is None for i in range(len(r)))           # unknown, not 0 CPUs
    (d / f"{OWN_PREFIX}-mpstat").write_text("Linux 6.1.0-28-amd64 (vm) \t11/27/26 \t_x86_64_\t(2 CPU)\n\n")
    out.unlink()
    code, err = _import(capsys, str(d), "-o", str(out))
    assert code == 0 and "with the CPU count of -mpstat" in err
    capsys.readouterr()
    rep = _report(out, capsys)
    assert rep["host"]["run_queue"]["max"] >= 17                            # vmstat's r column
    assert rep["host"]["cpu_busy_pct"]["max"] > 50 and rep["host"]["cpus"] == 2


# --- TS-paged loop files a page at a time: the same pages as the line reader --------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_VALUES = st.sampled_from(["7", "app", "", "NULL", "Sleep", "UPDATE t SET v = 1", "   User: root", "Id: 3",
                           "*************************** 2. row ***************************", "TS 1 x",
                           "a\tb", "x" * 70_000, "é ü", " trailing ",
                           "*************************** 01. row ***************************",
                           "*************************** ١. row ***************************",
                           "TS 1795749791.5 2026-11-27 03:23:11\x0b", "TS 1795749792 2026-13-27 03:23:11"])


@st.composite
def _page(draw: st.DrawFn) -> str:
    out = []
    for _ in range(draw(st.integers(1, 3))):                       # result sets
        columns = draw(st.lists(st.sampled_from(["Id", "User", "Host", "Command", "Time", "State", "Info",
                                                 "trx_id", "lock_id"]), min_size=1, max_size=5, unique=True))
        for n in range(1, draw(st.integers(1, 4)) + 1):
            out.append(f"*************************** {n}. row ***************************")
            for c in columns[:draw(st.integers(1, len(columns)))]:
                value = draw(_VALUES)
                out.append(f"{c.rjust(9)}: {value}")
                for _ in range(draw(st.integers(0, 2))):          # a statement over several lines
                    out.append(draw(_VALUES))
    return "\n".join(out) + "\n"


@settings(max_examples=150, deadline=None)
@given(st.lists(_page(), min_size=1, max_size=4), st.booleans(), st.integers(1, 7))
def test_pages_read_a_page_at_a_time_equal_the_line_reader(pages: list[str], crlf: bool, cut: int) -> None:
    text = "".join(f"TS {1795749790 + k}.5 2026-11-27 03:23:{10 + k:02d}\n{p}" for k, p in enumerate(pages))
    if crlf:
        text = text.replace("Host", "Host\r", 1)
    lines = [ln + "\n" for ln in text.split("\n")[:-1]]          # as the file reader splits: at \n only
    blocks = ["".join(lines[i:i + cut]) for i in range(0, len(lines), cut)]      # cut at line ends
    by_line = list(collection_pages.vertical_pages(lines))
    by_page = list(collection_pages.ts_pages(blocks))
    assert [(p.ts, p.results, p.index) for p in by_page] == [(p.ts, p.results, p.index) for p in by_line]


def test_a_statement_over_many_lines_is_joined_once_and_cut_at_the_cell_limit() -> None:
    stmt_lines = ["INSERT INTO t VALUES"] + [f"({i}, 'x')," for i in range(30_000)]
    text = ("*************************** 1. row ***************************\n     Id: 5\n   Info: "
            + "\n".join(stmt_lines) + "\n  State: init\n")
    (page,) = collection_pages.vertical_pages(text.split("\n")[:-1])
    row = page.results[0][0]
    assert row["Info"] == "\n".join(stmt_lines)[:collection_pages.MAX_VALUE_CHARS]
    assert row["State"] == "init" and row["Id"] == "5"


@settings(max_examples=200, deadline=None)
@given(st.lists(_page(), min_size=1, max_size=5), st.integers(1, 7), st.sampled_from(["", "\n", "junk\n", "TS 1 2\n"]),
       st.booleans())
def test_pages_without_ts_lines_read_a_page_at_a_time_equal_the_line_reader(
        pages: list[str], cut: int, head: str, same_first: bool) -> None:
    if same_first:                                # every loop's first result set starts with Id
        pages = [p.replace("\n", "\n       Id: 1\n", 1) if p.startswith("*") else p for p in pages]
    text = head + "".join(pages)
    lines = [ln + "\n" for ln in text.split("\n")[:-1]]
    blocks = ["".join(lines[i:i + cut]) for i in range(0, len(lines), cut)]
    by_line = list(collection_pages.vertical_pages(lines))
    by_page = list(collection_pages.untimed_pages(blocks))
    assert [(p.ts, p.results, p.index) for p in by_page] == [(p.ts, p.results, p.index) for p in by_line]


# --- processlist pages as the mysql client prints them: read a column at a time ------------------

_CELLS = st.sampled_from(["7", "app", "", "NULL", " lead", "Id: 3", "   User: root", "TS 1 x", "é ü", "a\tb",
                          "*************************** 2. row ***************************", "x" * 70_000,
                          "\x0b", "\u2028", "\x85", "SHOW FULL PROCESSLIST", ": ", "trailing ", "1\r"])


@st.composite
def _client_page(draw: st.DrawFn) -> tuple[str, bool]:
    """One SHOW FULL PROCESSLIST\\G page (keys right-aligned as the client does), perhaps spoiled
    in one place; and whether it is still the plain form."""
    columns = draw(st.lists(st.sampled_from(["Id", "User", "Host", "db", "Command", "Time", "State", "Info",
                                             "Progress"]), min_size=1, max_size=6, unique=True))
    width = max(map(len, columns))
    rows = [[draw(_CELLS) for _ in columns] for _ in range(draw(st.integers(1, 6)))]
    lines: list[str] = []
    for n, row in enumerate(rows, 1):
        lines.append(f"*************************** {n}. row ***************************")
        lines += [f"{c.rjust(width)}: {v}" for c, v in zip(columns, row)]
    spoil = draw(st.sampled_from(["", "colon", "indent", "number", "more", "blank", "drop", "crlf"]))
    at = draw(st.integers(0, len(lines) - 1))
    if spoil == "colon" and ": " in lines[at]:
        lines[at] = lines[at].replace(": ", ":", 1)           # "Key:" with nothing after
    elif spoil == "indent":
        lines[at] = " " + lines[at]
    elif spoil == "number":
        lines[at] = "*************************** 01. row ***************************"
    elif spoil == "more":
        lines.insert(at + 1, draw(_CELLS))                     # a statement over two lines
    elif spoil == "blank":
        lines.insert(at + 1, "")
    elif spoil == "drop" and len(lines) > 1:
        del lines[max(1, at)]
    elif spoil == "crlf":
        lines[at] += "\r"
    plain = not spoil and not any("\r" in v or len(v) > collection_pages.MAX_VALUE_CHARS for row in rows for v in row)
    return "\n".join(lines) + "\n", plain


@settings(max_examples=300, deadline=None)
@given(st.lists(_client_page(), min_size=1, max_size=4), st.integers(1, 9), st.booleans())
def test_client_pages_read_by_columns_equal_the_line_reader(pages: list[tuple[str, bool]], cut: int, ts: bool) -> None:
    for text, plain in pages:
        fast = collection_pages._fast_results(text)
        assert fast is None or fast == collection_pages._slow_results(text)
        if plain:                                              # read by columns, not left to the token pass
            assert collection_pages._columnar(text) == collection_pages._slow_results(text)
    if ts:
        text = "".join(f"TS {1795749790 + k}.5 2026-11-27 03:23:{10 + k:02d}\n{p}" for k, (p, _) in enumerate(pages))
    else:
        text = "".join(p for p, _ in pages)
    lines = [ln + "\n" for ln in text.split("\n")[:-1]]
    blocks = ["".join(lines[i:i + cut]) for i in range(0, len(lines), cut)]
    by_line = list(collection_pages.vertical_pages(lines))
    by_page = list((collection_pages.ts_pages if ts else collection_pages.untimed_pages)(blocks))
    assert [(p.ts, p.results, p.index) for p in by_page] == [(p.ts, p.results, p.index) for p in by_line]


def _sessions_by_sorting(rows: list[dict[str, str]]) -> list[list[object]]:
    """The busiest sessions by the plain definition: every non-idle one ordered by time, then id."""
    busy = [r for r in rows if r.get("Command", "") not in collection_series.IDLE_COMMANDS
            and (r.get("Info") or "").strip() != "SHOW FULL PROCESSLIST"]
    busy.sort(key=lambda r: (-(collection_series._int(r.get("Time")) or 0), collection_series._int(r.get("Id")) or 0))
    return [[collection_series._int(r.get("Id")), r.get("User"), r.get("Host"), collection_series._null(r.get("db")), r.get("Command", ""),
             "" if (r.get("State") or "") == "NULL" else r.get("State") or "", collection_series._int(r.get("Time")) or 0,
             collection_series._null(r.get("Info"))] for r in busy[:collection_series.MAX_SESSIONS]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fixed_dictionaries(
    {"Id": st.sampled_from(["1", "2", "3", "07", "x", "", "١", "-4"]), "Command": st.sampled_from(["Sleep", "Query", "Execute"]),
     "Time": st.sampled_from(["0", "1", "2", "30", "-3", "", "NULL", "١", " 5"]),
     "State": st.sampled_from(["", "NULL", "updating"]), "User": st.just("app"), "Host": st.just("h"),
     "db": st.sampled_from(["NULL", "shop"]), "Info": st.sampled_from(["NULL", "SHOW FULL PROCESSLIST", "SELECT 1"])}),
    max_size=80))
def test_the_busiest_sessions_are_the_first_by_time_then_id(rows: list[dict[str, str]]) -> None:
    busy, states = collection_series.sessions(rows)
    assert busy == _sessions_by_sorting(rows)
    assert sum(int(str(s[2])) for s in states) == len(rows)


def test_a_collection_imports_the_same_read_by_columns_or_by_tokens(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    d = _collection(tmp_path)
    kinds = [("Sleep", "", "NULL"), ("Query", "updating", "UPDATE stock SET qty = qty - 1 WHERE sku = {i}"),
             ("Query", "Waiting for table metadata lock", "ALTER TABLE audit ADD COLUMN note{i} TEXT")]
    with open(d / f"{OWN_PREFIX}-processlist", "a") as f:          # pt-stalk 3.2.1: no TS lines
        for k in range(20):
            for i in range(1, 200):
                command, state, info = kinds[(i + k) % 3]
                f.write(f"*************************** {i}. row ***************************\n      Id: {1000 + i}\n"
                        f"    User: app\n    Host: 10.0.0.{i % 250}:{30000 + i}\n      db: shop\n Command: {command}\n"
                        f"    Time: {(i * 7 + k) % 90}\n   State: {state}\n    Info: {info.format(i=i)}\n"
                        "Progress: 0.000\n")
    calls = []
    real = collection_pages._columnar
    monkeypatch.setattr(collection_pages, "_columnar", lambda text: calls.append(real(text)) or calls[-1])
    code, err = _import(capsys, str(d), "-o", str(tmp_path / "columns.mtrec"))
    assert code == 0, err
    assert sum(c is not None for c in calls) >= 20                # the pages above were read by columns
    monkeypatch.setattr(collection_pages, "_columnar", lambda text: None)
    code, err = _import(capsys, str(d), "-o", str(tmp_path / "tokens.mtrec"))
    assert code == 0, err
    with RecordingReader(tmp_path / "columns.mtrec") as a, RecordingReader(tmp_path / "tokens.mtrec") as b:
        assert len(a) == len(b) > 20
        assert [a.sample(i) for i in range(len(a))] == [b.sample(i) for i in range(len(b))]
        assert max(len(a.sample(i).sessions or []) for i in range(len(a))) == collection_series.MAX_SESSIONS
