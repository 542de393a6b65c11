"""Numbers a newcomer caught wrong: each test here failed before its fix."""

from __future__ import annotations

import json

from mysqltop.core.derive import derive
from mysqltop.core.parsed import parse_sample
from mysqltop.core.sample import RawSample
from mysqltop.views.headless import json_frame
from mysqltop.views.report_text import _change

MARIADB_STATUS = """
=====================================
2026-11-23 10:00:10 0x7fb1 INNODB MONITOR OUTPUT
=====================================
Per second averages calculated from the last 5 seconds
--------
FILE I/O
--------
Pending flushes (fsync): 0
179 OS file reads, 0 OS file writes, 8 OS fsyncs
0.00 reads/s, 0 avg bytes/read, 0.00 writes/s, 0.23 fsyncs/s
----------------------------
END OF INNODB MONITOR OUTPUT
============================
"""


def test_json_io_pool_slots_each_have_their_own_id() -> None:
    raw = RawSample(wall=1.0, mono=1.0, innodb_status=MARIADB_STATUS,
                    variables={"innodb_read_io_threads": "4", "innodb_write_io_threads": "4"})
    threads = json.loads(json_frame(derive(None, parse_sample(raw))))["io"]["threads"]
    assert [t["id"] for t in threads] == list(range(8))
    assert [t["role"] for t in threads] == ["read"] * 4 + ["write"] * 4


def test_compare_changes_use_one_notation() -> None:
    assert _change(4600) == "+4.6k %" and _change(600) == "+600 %" and _change(-40) == "-40 %"
    assert _change(0.2) == "0 %" and _change(None) == "-"
    assert not any("×" in _change(x) for x in (899, 900, 4600, 1e6))


CORPUS = "tests/fixtures/corpus/innodb-status/mariadb-10.11__mysqltop-lab__oltp-rw-32thr.txt"


def _parse(tmp_path, text: str, fmt: str) -> str:
    import subprocess
    import sys

    f = tmp_path / "status.txt"
    f.write_text(text)
    out = subprocess.run([sys.executable, "-m", "mysqltop", "parse", "--format", fmt, str(f)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_parse_text_dirty_percent_is_the_one_formula(tmp_path) -> None:
    from pathlib import Path

    text = Path(CORPUS).read_text()
    # the server's own figure: modified / (database + free) = 10670 / (12490 + 3734) = 65.76 %
    assert json.loads(_parse(tmp_path, text, "json"))["buffer_pool"]["dirty_pct"] == 65.763
    line = next(x for x in _parse(tmp_path, text, "text").splitlines() if x.startswith("  BUFFER POOL"))
    assert "dirty 65.8%" in line or "dirty 66%" in line, line          # not 10670 / 12490 = 85 %


def test_status_averaged_over_zero_seconds_prints_no_rates(tmp_path) -> None:
    from pathlib import Path

    text = Path(CORPUS).read_text().replace("from the last 18 seconds", "from the last 0 seconds")
    text = text.replace("0.00 reads/s, 11555 avg bytes/read, 0.00 writes/s, 0.00 fsyncs/s",
                        "0.00 reads/s, 11555 avg bytes/read, 121000.00 writes/s, 107000.00 fsyncs/s")
    d = json.loads(_parse(tmp_path, text, "json"))
    assert d["file_io"]["writes_per_s"] is None and d["file_io"]["fsyncs_per_s"] is None
    assert d["buffer_pool"]["pages_read_per_s"] is None and any("last 0 seconds" in n for n in d["notes"])
    out = _parse(tmp_path, text, "text")
    assert "writes/s" not in out and "fsyncs/s" not in out and "last 0 seconds" in out
    normal = _parse(tmp_path, Path(CORPUS).read_text(), "text")
    assert "reads/s" in normal and "last 0 seconds" not in normal
