"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe): the
standard library only — JSON messages ending in NUL on fds 3 (commands) and 4 (answers).

    with Browser() as b:
        visit = b.open(Path("page.html"), width=1280)
        visit.console_errors, visit.requests, visit.evaluate("document.title")
        visit.screenshot(Path("page.png"))

Started with no network use of its own (no background networking, component updates, sync or
first-run), a new empty profile, and stopped with its whole process group when done, on failure
too. Debian's `chromium` package (./dev installs it).
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
         "--remote-debugging-pipe")
TIMEOUT_S = 60.0


def executable() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(RuntimeError):
    pass


@dataclass
class Visit:
    """One page opened in its own tab: what it logged and asked for while loading."""

    browser: "Browser"
    session: str
    url: str
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.call(method, params, self.session)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (DevTools evaluates it whatever the
        page's Content-Security-Policy says; the page's own scripts are what the policy stops)."""
        res = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in res:
            raise BrowserError(f"evaluate {expression!r}: {res['exceptionDetails'].get('text')}")
        return res["result"].get("value")

    def screenshot(self, path: Path) -> tuple[int, int]:
        """The whole page as a PNG at its layout width; returns (width, height) in CSS pixels."""
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        w, h = int(size["width"]), int(min(size["height"], 16000))
        shot = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                     "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}})
        path.write_bytes(base64.b64decode(shot["data"]))
        return w, h


class Browser:
    def __init__(self, timeout_s: float = TIMEOUT_S) -> None:
        exe = executable()
        if exe is None:
            raise BrowserError("chromium is not installed (./dev test installs Debian's chromium)")
        self.timeout_s = timeout_s
        self.profile = tempfile.mkdtemp(prefix="mysqltop-chromium-")
        cmd_r, self._cmd_w = os.pipe()          # our commands → its fd 3
        self._out_r, out_w = os.pipe()          # its fd 4 → our answers

        def child() -> None:
            a, b = os.dup(cmd_r), os.dup(out_w)   # dup2 onto 3 and 4 (made inheritable by dup2)
            os.dup2(a, 3)
            os.dup2(b, 4)
            for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGTERM):
                signal.signal(sig, signal.SIG_DFL)

        self.proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, close_fds=False, preexec_fn=child,
                                     start_new_session=True)
        os.close(cmd_r)
        os.close(out_w)
        self._buf = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> int:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        return self._next

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._out_r], [], [], max(0.0, left))
            if not ready:
                raise BrowserError("chromium did not answer in time")
            chunk = os.read(self._out_r, 1 << 20)
            if not chunk:
                raise BrowserError("chromium closed its pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        want = self.send(method, params, session)
        deadline = time.monotonic() + self.timeout_s
        while True:
            msg = self._read(deadline)
            if msg.get("id") == want:
                if "error" in msg:
                    raise BrowserError(f"{method}: {msg['error'].get('message')}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method: str, session: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout_s
        for i, e in enumerate(self.events):
            if e.get("method") == method and e.get("sessionId") == session:
                return self.events.pop(i)
        while True:
            msg = self._read(deadline)
            if msg.get("method") == method and msg.get("sessionId") == session:
                return msg
            self.events.append(msg)

    def open(self, page: Path, width: int, height: int = 900, bypass_csp: bool = False) -> Visit:
        """`page` in a new tab `width` CSS pixels wide (a phone below 500: touch, mobile viewport),
        after its load event; console errors, exceptions, dialogs and every request recorded."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for m in ("Page.enable", "Runtime.enable", "Network.enable", "Log.enable"):
            self.call(m, session=session)
        mobile = width < 500
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": mobile}, session)
        if mobile:
            self.call("Emulation.setTouchEmulationEnabled", {"enabled": True}, session)
        if bypass_csp:
            self.call("Page.setBypassCSP", {"enabled": True}, session)
        url = page.resolve().as_uri()
        self.call("Page.navigate", {"url": url}, session)
        self.wait_event("Page.loadEventFired", session)
        visit = Visit(self, session, url)
        self.call("Runtime.evaluate", {"expression": "1"}, session)     # flush the load's events
        for e in [e for e in self.events if e.get("sessionId") == session]:
            self.events.remove(e)
            _record(visit, e)
        return visit

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                try:
                    self.send("Browser.close")
                    self.proc.wait(timeout=10)
                except (OSError, subprocess.TimeoutExpired):
                    pass
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=10)
            try:                                  # its renderers and zygotes: the group it led
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            for fd in (self._cmd_w, self._out_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)


def _record(visit: Visit, e: dict[str, Any]) -> None:
    method, p = e.get("method"), e.get("params", {})
    if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
        visit.console_errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
    elif method == "Runtime.exceptionThrown":
        visit.console_errors.append(str(p.get("exceptionDetails", {}).get("text")))
    elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
        visit.console_errors.append(str(p["entry"].get("text")))
    elif method == "Network.requestWillBeSent":
        visit.requests.append(str(p.get("request", {}).get("url")))
    elif method == "Page.javascriptDialogOpening":
        visit.dialogs.append(str(p.get("message")))
