"""The HTML report opened as a reader opens it: from disk, in headless Chromium (Debian's
`chromium`, driven over the DevTools pipe: tests/support/chromium.py), at a desktop's 1280 px and
a phone's 390 px. Each gallery page: no console error, no request but the file itself, every chart
drawn with data, the headline shown, nothing wider than the phone, a print layout; a screenshot at
both widths is kept under tmp/artifacts/report-page/ (the path is printed). A hostile recording:
its markup and script stay text — checked in the browser with the page's policy bypassed, so the
escaping alone is what stops them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from mysqltop.cli import main
from tests.support import chromium
from tests.support import hostile_recording as evil

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "recordings"
ENTRIES = json.loads((GALLERY / "gallery.json").read_text())
ARTIFACTS = ROOT / "tmp" / "artifacts" / "report-page"
WIDTHS = (1280, 390)

pytestmark = pytest.mark.skipif(chromium.executable() is None,
                                reason="chromium is not installed (./dev test installs Debian's chromium)")

CHARTS = "document.querySelectorAll('svg.plot:not(.strip)').length"
FIRED = "document.querySelectorAll('svg.strip rect.band').length"
DRAWN = ("[...document.querySelectorAll('svg.plot')].filter(s => +s.dataset.points > 0"
         " && s.querySelector('path.line, path.area') && s.querySelector('path').getAttribute('d').length > 20).length")
WIDEST = "document.documentElement.scrollWidth"
TAKEN = ("JSON.stringify({pwned: typeof window.__pwned, title: document.title, scripts: document.scripts.length,"
         " handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a =>"
         " a.name.startsWith('on'))).length, media: document.querySelectorAll('img,iframe,object,embed').length,"
         " shown: getComputedStyle(document.body).display})")


@pytest.fixture
def browser() -> Iterator[chromium.Browser]:
    """One browser per test: its renderers start during the test, and whatever a test started is
    stopped when it ends (tests/conftest.py)."""
    with chromium.Browser() as b:
        yield b


@pytest.fixture(scope="module")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def _page(recording: Path, out: Path) -> Path:
    assert main(["report", str(recording), "--format", "html", "-o", str(out)]) == 0
    return out


def _text_headline(recording: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """What the page must lead with: the text report's STALL line, else its first finding's id."""
    capsys.readouterr()
    assert main(["report", str(recording), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    return rep["headline"] or sorted(rep["advice"], key=lambda a: -["info", "warning", "critical"].index(a["severity"]))[0]["id"]


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_each_gallery_page_opens_clean_at_desktop_and_phone_width(
        name: str, browser: chromium.Browser, artifacts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recording = GALLERY / ENTRIES[name]["file"]
    page = _page(recording, artifacts / f"{name}.html")
    headline = _text_headline(recording, capsys)
    for width in WIDTHS:
        visit = browser.open(page, width)
        assert visit.console_errors == [], visit.console_errors
        assert visit.requests == [page.resolve().as_uri()], visit.requests      # nothing outside the file
        assert visit.evaluate(CHARTS) == 7
        assert visit.evaluate(DRAWN) >= 6, name          # every chart with data (a calm one may have no latch)
        assert visit.evaluate(FIRED) >= 2, name          # what fired when: the injected finding and more
        assert headline in visit.evaluate("document.querySelector('#headline').innerText")
        assert visit.evaluate(WIDEST) <= width, f"{name}: wider than {width} px"
        shot = artifacts / f"{name}-{width}.png"
        w, h = visit.screenshot(shot)
        assert w == width and h > 1000 and shot.stat().st_size > 20_000
    with capsys.disabled():
        print(f"\nreport page screenshots: {artifacts}/{name}-{{{','.join(map(str, WIDTHS))}}}.png")


def test_the_page_prints(browser: chromium.Browser, artifacts: Path) -> None:
    page = _page(GALLERY / "row-lock-idle-trx.mtrec", artifacts / "row-lock-idle-trx-print.html")
    visit = browser.open(page, 1280)
    visit.call("Emulation.setEmulatedMedia", {"media": "print"})
    assert visit.evaluate("getComputedStyle(document.querySelector('nav')).display") == "none"
    pdf = visit.call("Page.printToPDF", {"printBackground": True, "paperWidth": 8.27, "paperHeight": 11.69})
    assert len(pdf["data"]) > 50_000                     # several A4 pages of charts and text
    assert visit.console_errors == []


def test_hostile_text_stays_text_in_the_browser(browser: chromium.Browser, tmp_path: Path) -> None:
    page = _page(evil.write_hostile(tmp_path / "evil.mtrec"), tmp_path / "evil.html")
    for bypass in (True, False):              # without the policy: the escaping alone holds
        visit = browser.open(page, 1280, bypass_csp=bypass)
        taken = json.loads(visit.evaluate(TAKEN))
        assert taken == {"pwned": "undefined", "title": visit.evaluate("document.title"), "scripts": 0,
                         "handlers": 0, "media": 0, "shown": "block"}, taken
        assert "pwned" not in taken["title"]
        assert visit.requests == [page.resolve().as_uri()] and visit.dialogs == []
        assert visit.console_errors == []
        text = visit.evaluate("document.body.innerText")
        for payload in ("<script>window.__pwned=4</script>", "{{ config }}", "\\u202eevil\\u202c",
                        "</style><style>body{display:none}</style>"):
            assert payload in text, payload
        assert "\u202e" not in text and "\x1b" not in text


def test_an_import_with_gaps_opens_clean(browser: chromium.Browser, tmp_path: Path) -> None:
    from mysqltop.recording.reader import RecordingReader
    from tests.support.ptstalk_export import write_collection

    with RecordingReader(GALLERY / "row-lock-idle-trx.mtrec") as r:
        write_collection([r.sample(i) for i in range(20, 50)], tmp_path / "c", utc_offset_s=3600)
        write_collection([r.sample(i) for i in range(100, 140)], tmp_path / "c", utc_offset_s=3600)
    assert main(["import", str(tmp_path / "c"), "-o", str(tmp_path / "i.mtrec")]) == 0
    page = _page(tmp_path / "i.mtrec", tmp_path / "i.html")
    visit = browser.open(page, 390)
    assert visit.console_errors == [] and visit.requests == [page.resolve().as_uri()]
    assert visit.evaluate("document.querySelectorAll('svg.plot rect.band-gap').length") == 7
    assert visit.evaluate(WIDEST) <= 390
