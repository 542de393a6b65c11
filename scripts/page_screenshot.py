#!/usr/bin/env python3
"""Render docs/report-page.png: the top of `report --format html` of a gallery recording
(recordings/row-lock-idle-trx.mtrec) as headless Chromium draws it (tests/support/chromium.py).

    .venv/bin/python scripts/page_screenshot.py [--recording NAME] [--width 1280] [--height 1500]
"""

from __future__ import annotations

import argparse
import base64
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mysqltop.cli import main as mysqltop  # noqa: E402
from tests.support.chromium import Browser  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--recording", default="row-lock-idle-trx")
    ap.add_argument("--width", type=int, default=1280, help="CSS pixels (default 1280)")
    ap.add_argument("--height", type=int, default=1500, help="the top this many CSS pixels (default 1500)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "report-page.png"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "page.html"
        if mysqltop(["report", str(ROOT / "recordings" / f"{a.recording}.mtrec"), "--format", "html",
                     "-o", str(page)]) != 0:
            return 1
        with Browser() as b:
            visit = b.open(page, a.width)
            if visit.console_errors or len(visit.requests) != 1:
                print(f"page_screenshot: {visit.console_errors} {visit.requests}", file=sys.stderr)
                return 1
            shot = visit.call("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": a.width, "height": a.height, "scale": 1}})
    Path(a.out).write_bytes(base64.b64decode(shot["data"]))
    print(f"page_screenshot: wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
