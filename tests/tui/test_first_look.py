"""The first poll's values as text before the full-screen view is up (views.first_look)."""

from __future__ import annotations

from dataclasses import replace

import dataclasses
import os
import re
import sys

import pytest

from mysqltop.core.frame import Frame
from mysqltop.core.sample import Failure, RawSample
from mysqltop.timeline.polled import PolledTimeline, live_timeline
from mysqltop.engine import Engine
from mysqltop.views.first_look import ENTER, LEAVE, FirstLook, first_look_lines
from mysqltop.views.tui.feeds import LiveFeed

from .pty_app import PtyApp
from .samples import sample
from .test_live_pilot import StallingSource

HOSTILE = "\x1b]0;PWNED\x07\x1b[2J"


def first_frame() -> Frame:
    # as a live poll gives it: sessions read, lock waits known to be none
    return PolledTimeline().push(replace(sample(0), lock_waits=[], sessions=[]))


def read_all(fd: int) -> bytes:
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 1 << 20)
    except BlockingIOError:
        return b""


def test_the_first_frame_fits_the_terminal_and_says_rates_are_coming() -> None:
    lines = first_look_lines(first_frame(), 0.3, 80, 23)
    assert lines[0] == "mysqltop: first poll; rates in 300ms, the full view is loading"
    assert len(lines) == 23 and all(len(line) <= 80 for line in lines)
    text = "\n".join(lines)
    assert "threads running 5" in text and "HOTSPOTS (totals since the counters started" in text
    assert lines[4].split() == ["LOCK_table_cache", "P_S", "253k", "3.2k", "69%"]      # 5 of them, then on
    assert lines[9].startswith("THROUGHPUT") and "history list 85" in text
    assert first_look_lines(first_frame(), 1.0, 20, 3) == ["mysqltop: first poll", "== 2026-09-21T14:13:",
                                                           "HOTSPOTS (totals sin"]


def test_server_text_in_the_first_frame_is_made_visible() -> None:
    frame = first_frame()
    frame = dataclasses.replace(frame, server=dataclasses.replace(frame.server, version=f"10.11{HOSTILE}"))
    text = "\n".join(first_look_lines(frame, 0.3, 160, 48))
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b]0;PWNED" in text


def test_drawn_once_and_never_after_the_tui_takes_the_terminal() -> None:
    r, w = os.pipe()
    try:
        look = FirstLook(0.3, fd=w)
        look.show(first_frame())
        drawn = read_all(r).decode()
        assert drawn.startswith(ENTER) and "threads running 5" in drawn and "\x1b" not in drawn[len(ENTER):]
        look.show(first_frame())
        look.hand_over()
        look.show(first_frame())
        assert read_all(r) == b""
        look.abandon()                             # the TUI leaves the alternate screen itself
        assert read_all(r) == LEAVE.encode()
        late = FirstLook(0.3, fd=w)
        late.hand_over()
        late.show(first_frame())
        late.abandon()                             # never drawn: nothing to undo
        assert read_all(r) == b""
    finally:
        os.close(r)
        os.close(w)


class LateFirstPoll(StallingSource):
    """The first poll runs past the interval (a host-only "waiting" sample), then answers."""

    def read(self) -> RawSample:
        raw = super().read()
        if self.reads == 1:
            return dataclasses.replace(raw, error="still running", failure=Failure.WAITING)
        return raw


def test_the_live_feed_draws_its_first_frame_before_any_app_is_there() -> None:
    r, w = os.pipe()
    source = LateFirstPoll(healthy=100)
    look = FirstLook(0.3, fd=w)
    feed = LiveFeed(Engine(source, live_timeline(0.2)), 0.2, first_look=look.show)
    feed.begin()
    try:
        got = b""
        os.set_blocking(r, True)
        while b"threads running" not in got:
            got += os.read(r, 65536)
        assert got.startswith(ENTER.encode()) and b"rates in 300ms" in got
        assert source.reads >= 2 and b"STALE" not in got         # the answer, not the late sample
    finally:
        look.hand_over()
        feed.stop(5)
        os.close(r)
        os.close(w)


@pytest.mark.live
def test_the_real_command_never_draws_the_first_look_over_the_tui(mariadb) -> None:
    """Whichever comes first on this machine, the first look or the full view, the first look is
    never drawn once the TUI has painted, and quitting leaves the normal screen."""
    exe = os.path.join(os.path.dirname(sys.executable), "mysqltop")
    app = PtyApp([exe, *mariadb.cli_args(), "--interval", "0.5"], (80, 24))
    try:
        assert app.wait_for(re.compile(rb"TPS / QPS"), timeout=60) is not None
        app.drain(1.5)
    finally:
        app.quit()
    raw = app.raw
    tui = raw.index(b"TPS / QPS")
    assert b"first poll; rates in" not in raw[tui:]
    if b"first poll; rates in" in raw:
        assert raw.index(ENTER.encode()) < raw.index(b"first poll; rates in") < tui
    assert raw.rindex(b"\x1b[?1049l") > raw.rindex(b"\x1b[?1049h")      # back on the normal screen
