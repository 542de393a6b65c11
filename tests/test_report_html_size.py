"""An hour's page stays small: a one-hour recording at 1 s (the gallery's row-lock incident played
24 times over, tests/support/long_recording.py: 24 stalls, ~100 finding episodes, 3,600 samples)
gives a page of at most 2 MB. Slow (~1 min of CPU: the hour is written, then derived sample by
sample); its render time is bench/report_html's."""

from __future__ import annotations

from pathlib import Path

from mysqltop.cli import main
from tests.support.long_recording import write_long

MAX_BYTES = 2_000_000


def test_a_one_hour_recording_makes_a_page_under_2_mb(tmp_path: Path) -> None:
    hour = write_long(tmp_path / "hour.mtrec", seconds=3600)
    out = tmp_path / "hour.html"
    assert main(["report", str(hour), "--format", "html", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    size = len(page.encode("utf-8"))
    assert 50_000 < size <= MAX_BYTES, size
    assert page.count('class="stall"') == 20 and "… 4 more stall(s)" in page      # 24 stalls: 20 listed
    assert page.count('<svg class="plot"') == 7 and "59m59s, 3600 samples" in page
