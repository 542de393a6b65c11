"""One line when a server stops giving data and one when it gives data again: stderr for the
commands that keep running through an outage (`record`, `serve`), a toast in the live TUI."""

from __future__ import annotations

import time
from typing import Callable

from mysqltop.core.frame import Frame, ServerInfo, restarted_between
from mysqltop.core.safe_text import visible
from mysqltop.core.units import duration


class OutageNotes:
    """Says when the server stops giving data and when it gives data again: a recorder or an
    exporter left running through an incident must not be silent while it has no server data.

    One line when the outage starts (why, as the source typed it) and one when data comes back
    (how long, how many samples, and whether the server restarted meanwhile: core.frame's
    restarted_between). A late poll (failure "waiting") is not an outage: its answer still comes."""

    def __init__(self, say: Callable[[str], None], doing: str = "still recording (host counters only)") -> None:
        self.say = say
        self.doing = doing          # what the command keeps doing meanwhile
        self.down_since: float | None = None
        self.down_samples = 0
        self.last_up: Frame | None = None          # the last fresh frame with an Uptime
        self.last_fresh: float | None = None
        self.server: ServerInfo | None = None      # who answered the last fresh frame

    def down_from(self, when: float) -> None:
        """The server was down before any frame (the caller said why): the next fresh frame is
        told as its return."""
        self.down_since, self.down_samples = when, 0

    def frame(self, frame: Frame) -> None:
        if frame.outage:
            if self.down_since is None:
                self.down_since, self.down_samples = frame.time, 0
                then = ("still waiting for its answer" if frame.failure == "timeout" else "reconnecting")
                self.say(f"{_clock(frame.time)} no data from the server: {visible(frame.why_stale())}"
                         f" — {self.doing}, {then}")
            self.down_samples += 1
            return
        if frame.stale:
            return
        if self.server is not None and not self.server.same_server(frame.server):
            self.say(replaced_line(frame))
            self.last_up = None                    # its Uptime is another server's: no restart to tell
        self.server = frame.server
        uptime = frame.server.uptime_s
        if self.down_since is not None:
            since = self.last_fresh if self.last_fresh is not None else self.down_since
            restarted = self.last_up is not None and restarted_between(self.last_up, frame)
            what = ("" if not restarted or uptime is None
                    else f"; it restarted (up {duration(uptime) if uptime >= 1 else '<1s'})")
            self.say(f"{_clock(frame.time)} the server answers again after {duration(frame.time - since)} "
                     f"({_samples(self.down_samples)} without its data){what}")
            self.down_since = None
        if uptime is not None:
            self.last_up = frame
        self.last_fresh = frame.time


def replaced_line(frame: Frame) -> str:
    """A different server answers at the frame's address (frame.server.replaced_at)."""
    since = frame.server.replaced_at if frame.server.replaced_at is not None else frame.time
    version = f" ({visible(frame.server.version)})" if frame.server.version else ""
    return (f"{_clock(frame.time)} a different server answers at this address since {_clock(since)}{version}: "
            "its numbers start afresh")


def _clock(epoch: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(epoch))


def _samples(n: int) -> str:
    return f"{n} sample" if n == 1 else f"{n} samples"
