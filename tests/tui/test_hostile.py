"""Hostile text in the TUI: control characters are shown, never sent to the terminal; nothing
untrusted (server names and messages, bookmark notes, typed prompt text) is read as markup."""

from __future__ import annotations

import os
import re
import sys

import pytest
from textual.notifications import Notify

from mysqltop.core.frame import Advice, Frame, Hotspot, Io, IoThread, ServerInfo
from mysqltop.views.tui.app import MysqltopApp
from mysqltop.views.tui.feed_events import FrameShown
from mysqltop.views.tui.position import Position, ViewMode

from tests.support.row_waits import start_row_waiter

from .conftest import pilot, replay_app, wait_for
from .pty_app import PtyApp
from .samples import T0, samples

ESC_TITLE = "\x1b]0;PWNED-TITLE\x07"
ESC_CLEAR = "\x1b[2J"
ESC_RED = "\x1b[31m"
HOSTILE = f"{ESC_TITLE}{ESC_CLEAR}{ESC_RED}PWNED"


class OneFrameFeed:
    """Posts one hand-made frame (a hostile server's names and messages in every field)."""

    interval = 1.0

    def __init__(self, frame: Frame) -> None:
        self.frame = frame

    def start(self, post) -> None:  # type: ignore[no-untyped-def]
        post(FrameShown(self.frame, (self.frame,), Position(mode=ViewMode.LIVE, interval=1.0)))

    def send(self, command: object) -> None:
        pass

    def stop(self) -> None:
        pass


def hostile_frame() -> Frame:
    return Frame(
        time=T0, elapsed=1.0,
        server=ServerInfo(version=f"10.11{HOSTILE}", flavor="mariadb", address="db1:3306"),
        hotspots=[Hotspot(f"wait/synch/mutex/{HOSTILE}", "mutex", "performance_schema", waits_per_s=5.0,
                          wait_ms_per_s=3.0, share=1.0, site=f"[/oops]{HOSTILE}")],
        io=Io(threads=[IoThread(1, "read", f"[bold]{HOSTILE}")]),
        advice=[Advice("x", "warning", f"[@click=app.quit]{HOSTILE}", f"[/x]{HOSTILE}")],
        notes=[f"note {HOSTILE}"],
    )


@pilot
async def test_control_characters_in_every_pane_are_shown_not_sent() -> None:
    notified: list[Notify] = []
    app = MysqltopApp(OneFrameFeed(hostile_frame()), ViewMode.LIVE, address="db1:3306")  # type: ignore[arg-type]
    async with app.run_test(size=(160, 48), message_hook=lambda m: notified.append(m) if isinstance(m, Notify)
                            else None) as pilot:
        await wait_for(pilot, lambda: app.frame is not None and "PWNED" in app.panes[2].text)
        for n, pane in app.panes.items():
            text = pane.text
            assert "\x1b" not in text and "\x07" not in text, (n, text)
        assert "\\x1b]0;PWNED-TITLE\\x07\\x1b[2J\\x1b[31mPWNED" in app.panes[1].text
        assert "[/oops]" in app.panes[1].text and "[bold]" in app.panes[2].text
        assert "[@click=app.quit]" in app.panes[6].text and "[/x]" in app.panes[6].text
        status = app.status_bar.text
        assert "\x1b" not in status and "\\x1b" in status
        await pilot.click("#pane-6")                  # the advice line's [@click=…] is text, not a link
        await pilot.pause()
        assert app.is_running


@pilot
async def test_bookmark_notes_and_goto_text_are_never_markup() -> None:
    notified: list[Notify] = []
    marks = [(T0 + 3, "[@click=app.quit]"), (T0 + 6, f"[/oops] {ESC_CLEAR}")]
    app = replay_app(samples(10), bookmarks=marks)
    async with app.run_test(message_hook=lambda m: notified.append(m) if isinstance(m, Notify) else None) as pilot:
        await wait_for(pilot, lambda: app.position.index == 0 and app.replay is not None)
        texts = lambda: [m.notification.message for m in notified]  # noqa: E731
        await pilot.press("b")
        await wait_for(pilot, lambda: any("[@click=app.quit]" in t for t in texts()))
        await pilot.press("b")
        await wait_for(pilot, lambda: any("[/oops] \\x1b[2J" in t for t in texts()))
        await pilot.press("g", *"[/x]", "enter")
        await wait_for(pilot, lambda: any("[/x]" in t for t in texts()))
        assert all(not m.notification.markup for m in notified)
        assert not any("\x1b" in t for t in texts())
        await pilot.pause()
        assert app.is_running
        # a toast is clickable (click dismisses it): the note's [@click=app.quit] must not act
        for toast in app.query("Toast"):
            await pilot.click(toast)
        await pilot.pause()
        assert app.is_running


@pytest.mark.live
def test_a_hostile_statement_on_a_real_server_does_not_reach_the_terminal(mariadb) -> None:
    """A blocked UPDATE whose text carries a title-setting and a screen-clearing sequence: the
    bytes the real `mysqltop` writes to its terminal never hold them raw."""
    conn = mariadb.root_conn()
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE IF NOT EXISTS mysqltop_test.hostile (id INT PRIMARY KEY, v INT)")
        cur.execute("REPLACE INTO mysqltop_test.hostile VALUES (1, 0)")
        cur.execute("BEGIN")
        cur.execute("UPDATE mysqltop_test.hostile SET v = v + 1 WHERE id = 1")
    waiter = mariadb.root_conn()
    thread = start_row_waiter(waiter, f"UPDATE mysqltop_test.hostile /* {HOSTILE} */ SET v = v + 2 WHERE id = 1")
    exe = os.path.join(os.path.dirname(sys.executable), "mysqltop")
    app = PtyApp([exe, *mariadb.cli_args(), "--interval", "0.5"], (160, 48))
    try:
        assert app.wait_for(re.compile(rb"running \d"), timeout=30) is not None
        app.drain(4)
        for key in (b"7", b"7", b"6", b"1"):          # zoomed views draw more; 7: locks
            os.write(app.fd, key)
            app.drain(1.5)
    finally:
        app.quit()
        with conn.cursor() as cur:
            cur.execute("ROLLBACK")
        thread.join(10)
        conn.close()
        waiter.close()
    raw = app.raw
    assert b"PWNED-TITLE" not in raw.split(b"\x1b]0;")[-1][:40] if b"\x1b]0;" in raw else True
    assert b"\x1b]0;PWNED" not in raw and b"\x1b[31mPWNED" not in raw and b"\x1b[2J\x1b[31m" not in raw
    assert b"\\x1b]0;PWNED-TITLE" in raw          # the statement is on screen, its escapes visible
