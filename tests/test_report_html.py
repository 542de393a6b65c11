"""`report --format html`: one self-contained page — no script, nothing to fetch, a strict policy —
saying what the text report says, for every kind of recording (tests/test_report_page_browser.py
opens the pages in Chromium)."""

from __future__ import annotations

import base64
import hashlib
import html
import os
import pty
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mysqltop.cli import main
from tests.support import hostile_recording as evil
from tests.support.ptstalk_export import write_collection

GALLERY = Path(__file__).resolve().parents[1] / "recordings"
ROW_LOCK = GALLERY / "row-lock-idle-trx.mtrec"
RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


class Tags(HTMLParser):
    """Every start tag with its attributes, the <style> text, and the text shown."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.style = ""
        self.text: list[str] = []
        self._in: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._in and self._in[-1] == tag:
            self._in.pop()

    def handle_data(self, data: str) -> None:
        if self._in and self._in[-1] == "style":
            self.style += data
        else:
            self.text.append(data)


def page_of(path: Path, tmp_path: Path, *extra: str) -> str:
    out = tmp_path / f"{path.stem}.html"
    assert main(["report", str(path), "--format", "html", "-o", str(out), *extra]) == 0
    return out.read_text(encoding="utf-8")


def parsed(page: str) -> Tags:
    t = Tags()
    t.feed(page)
    return t


def text_report(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    capsys.readouterr()
    assert main(["report", str(path), *extra]) == 0
    return capsys.readouterr().out


def test_the_page_runs_no_script_loads_nothing_and_says_so_in_its_policy(tmp_path: Path) -> None:
    page = page_of(ROW_LOCK, tmp_path)
    t = parsed(page)
    names = [tag for tag, _ in t.tags]
    assert not set(names) & {"script", "iframe", "object", "embed", "img", "link", "base", "form", "audio", "video"}
    for tag, attrs in t.tags:
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
        for a in ("href", "src", "xlink:href", "action"):
            assert attrs.get(a) is None or str(attrs[a]).startswith("#"), (tag, attrs)
        assert "style" not in attrs, tag                       # the policy would refuse it
        if attrs.get("fill", "").startswith("url("):
            assert re.fullmatch(r"url\(#[\w-]+\)", attrs["fill"] or ""), attrs
    (csp,) = [a["content"] for tag, a in t.tags if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp is not None
    assert "default-src 'none'" in csp and "script-src 'none'" in csp and "unsafe" not in csp
    digest = base64.b64encode(hashlib.sha256(t.style.encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in csp
    assert "http://" not in page and "https://" not in page and "@import" not in t.style and "url(" not in t.style
    assert [a.get("class") for tag, a in t.tags if tag == "svg" and "plot" in (a.get("class") or "")] == \
        ["plot strip"] + ["plot"] * 7


def test_the_headline_is_the_text_reports_first_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = text_report(ROW_LOCK, capsys).splitlines()[1]
    assert first.startswith("STALL ") and "KILL 9" in first
    page = page_of(ROW_LOCK, tmp_path)
    (headline,) = re.findall(r'<p class="headline">(.*?)</p>', page, re.S)
    assert html.unescape(headline) == first
    # and every chart drew points, the stall tree its nine waiters
    points = [int(n) for n in re.findall(r'<svg class="plot" [^>]*data-points="(\d+)"', page)]
    assert len(points) == 7 and min(points) > 100
    strip = re.search(r'<svg class="plot strip" [^>]*data-points="(\d+)"', page)
    assert strip is not None and int(strip.group(1)) == 4          # the stall and three findings
    assert page.count('<li><span class="node">') == 10


def test_without_a_stall_the_headline_names_the_findings_most_severe_first(tmp_path: Path) -> None:
    page = page_of(GALLERY / "ahi-latch.mtrec", tmp_path)
    head = page[page.index('id="headline"'):page.index('id="timeline"')]
    assert "No stall in this window" in head and "<code>ahi_latch</code>" in head
    assert "innodb_adaptive_hash_index = OFF" in html.unescape(head)


def test_html_is_not_written_to_a_terminal(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        res = subprocess.run([sys.executable, "-m", "mysqltop", "report", str(ROW_LOCK), "--format", "html"],
                             stdout=follower, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(follower)
        os.close(leader)
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "-o FILE.html" in res.stderr and "Traceback" not in res.stderr


def test_stdout_and_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["report", str(ROW_LOCK), "--format", "html"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    target = tmp_path / "page.html"
    target.write_text("old")
    assert main(["report", str(ROW_LOCK), "--format", "html", "-o", str(target), "--start", "nonsense"]) == 2
    assert target.read_text() == "old"                                   # left as it was
    assert main(["report", str(ROW_LOCK), "--format", "html", "-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == out
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]          # no temporary file left


def test_a_window_and_a_comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = page_of(ROW_LOCK, tmp_path, "--start", "+10s", "--end", "+40s")
    assert "No stall" in page and "STALL " not in page
    text = text_report(ROW_LOCK, capsys, "--start", "+10s", "--end", "+40s")
    window = next(x for x in text.splitlines() if x.startswith("window: "))
    assert html.escape(window, quote=False) in page
    both = page_of(ROW_LOCK, tmp_path, "--compare", "+0s..+40s", "+60s..+100s")
    assert 'id="compare"' in both and 'id="a-headline"' in both and 'id="b-headline"' in both
    assert len(re.findall(r'<svg class="plot" [^>]*data-points="\d+"', both)) == 14
    assert len(set(re.findall(r'id="([^"]+)"', both))) == len(re.findall(r'id="([^"]+)"', both))   # ids unique


def test_a_fleet_directory_is_reported_one_server_at_a_time(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    for name in ("db1_3306.mtrec", "db2_3306.mtrec"):
        shutil.copy(ROW_LOCK, fleet / name)
    assert main(["report", str(fleet), "--format", "html", "-o", str(tmp_path / "x.html")]) == 2
    assert "report one at a time" in capsys.readouterr().err
    page = page_of(fleet / "db2_3306.mtrec", tmp_path)
    assert "recording db2_3306.mtrec: 152 samples" in page


def test_a_redacted_copy_gives_a_page_that_says_so_and_keeps_no_names(tmp_path: Path) -> None:
    copy = tmp_path / "shared.mtrec"
    assert main(["redact", str(ROW_LOCK), str(copy)]) == 0
    page = page_of(copy, tmp_path)
    assert 'class="banner redacted"' in page and "pseudonyms" in page
    for name in ("sbtest1", "mysqltop_test", "root@", "UPDATE sbtest1", "56299"):
        assert name not in page, name
    plain = page_of(ROW_LOCK, tmp_path)
    assert 'class="banner not-redacted"' in plain and "sbtest1" in plain


def test_a_pt_stalk_import_draws_the_time_between_collections_as_not_recorded(tmp_path: Path) -> None:
    from mysqltop.recording.reader import RecordingReader

    with RecordingReader(ROW_LOCK) as r:
        first = [r.sample(i) for i in range(20, 50)]
        second = [r.sample(i) for i in range(100, 140)]
    write_collection(first, tmp_path / "c", utc_offset_s=3600)
    write_collection(second, tmp_path / "c", utc_offset_s=3600)
    out = tmp_path / "imported.mtrec"
    assert main(["import", str(tmp_path / "c"), "-o", str(out)]) == 0
    page = page_of(out, tmp_path)
    gaps = re.findall(r'<rect class="band band-gap" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', page)
    assert len(gaps) == 7                                 # one per chart
    w = float(gaps[0][1])
    assert w > 100                                        # ~50 s of ~120 s not recorded (px of ~366)
    tps = re.search(r'<path class="line s0" d="([^"]+)"', page)
    assert tps is not None and tps.group(1).count("M") == 2     # the line breaks at the gap
    assert "performance_schema latch waits: not recorded in" in page
    assert "not recorded: " in html.unescape(page)        # the import's bookmark between the collections


def test_hostile_text_is_escaped_and_made_visible(tmp_path: Path) -> None:
    path = evil.write_hostile(tmp_path / "evil.mtrec")
    page = page_of(path, tmp_path)
    assert RAW.search(page) is None                       # bidi, escapes, NULs: shown as \u202e, \x1b
    t = parsed(page)
    assert not {tag for tag, _ in t.tags} & {"script", "img", "iframe", "b", "svg"} - {"svg"}
    assert [tag for tag, _ in t.tags].count("style") == 1
    for tag, attrs in t.tags:
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
        assert tag != "a" or str(attrs.get("href")).startswith("#"), attrs
    shown = html.unescape("".join(t.text))
    for payload in ("<script>window.__pwned=4</script>", "<b onmouseover=window.__pwned=6>t</b>", "{{ config }}",
                    "\\u202eevil\\u202c", "\\x1b[31mred", "</style><style>body{display:none}</style>",
                    "10.11.19-MariaDB</title><script>window.__pwned=8</script>", "{% if 1 %}jinja{% endif %}"):
        assert payload in shown, payload
    assert "Deadlocks" in shown and "the server rolled back (1)" in shown
