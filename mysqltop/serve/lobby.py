"""Where serve's connections wait before they get a thread and a slot: accepted, then watched by
one selector until they show they are clients — the TLS handshake completed (or, without TLS,
the first bytes of a request in).

A scraper leaves the lobby within milliseconds of its connect. A socket that never speaks, or a
client that never completes TLS, waits here instead of holding one of serve's MAX_CONNECTIONS
slots and a thread: it costs a file descriptor, and is closed HEADER_TIMEOUT_S after accept.
Closing it early would only bring it back: a client that reconnects as soon as it is closed would
then keep serve accepting and closing as fast as it can, and take the slots a scraper needs. So
nothing is closed before its deadline while the lobby has room; when it is full, the guest that
goes is the one that showed least (nothing received before a handshake begun), of the client
holding the most guests, the oldest first: a scraper, mid-handshake and a few milliseconds old,
is the last to go.
"""

from __future__ import annotations

import collections
import selectors
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

MAX_GUESTS = 1024             # connections waiting at once (file descriptors, no thread)
SWEEP_S = 0.25


@dataclass
class _Guest:
    sock: socket.socket           # an SSLSocket once wrapped for its handshake
    address: Any
    client: str
    since: float
    progress: int = 0             # 0: nothing received yet; 1: its bytes are coming in


class Lobby:
    """Accepted sockets (`add`, from any thread) wait here; `admit(sock, address)` is called, in
    the lobby's thread, for each that has shown it is a client; the rest are closed at
    `deadline_s` after accept or when the lobby is full (the module docstring says which)."""

    def __init__(self, tls: ssl.SSLContext | None, admit: Callable[[socket.socket, Any], None], deadline_s: float,
                 capacity: int = MAX_GUESTS, clock: Callable[[], float] = time.monotonic) -> None:
        self.tls = tls
        self.admit = admit
        self.deadline_s = deadline_s
        self.capacity = capacity
        self.clock = clock
        self.evicted = 0              # guests closed to make room
        self.expired = 0              # guests closed at their deadline
        self._guests: dict[int, _Guest] = {}        # by fd, in arrival order
        self._incoming: collections.deque[tuple[socket.socket, Any]] = collections.deque()
        self._sel = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._sel.register(self._wake_r, selectors.EVENT_READ, None)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="mysqltop-http-lobby")
        self._thread.start()

    def __len__(self) -> int:
        return len(self._guests) + len(self._incoming)

    def add(self, sock: socket.socket, address: Any) -> None:
        self._incoming.append((sock, address))
        try:
            self._wake_w.send(b"\0")
        except OSError:               # full: the lobby is woken already
            pass

    def _run(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._sel.select(SWEEP_S):
                if key.data is None:
                    self._take_incoming()
                else:
                    self._step(key.data)
            self._sweep()
        for g in list(self._guests.values()):
            self._close(g)
        while self._incoming:
            _close(self._incoming.popleft()[0])

    def _take_incoming(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except OSError:
            pass
        while self._incoming:
            sock, address = self._incoming.popleft()
            self._enter(sock, address)

    def _enter(self, sock: socket.socket, address: Any) -> None:
        while len(self._guests) >= self.capacity:
            self._evict()
        try:
            sock.setblocking(False)
            if self.tls is not None:
                sock = self.tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        except (OSError, ValueError):
            _close(sock)
            return
        g = _Guest(sock, address, str(address[0]) if isinstance(address, tuple) else "", self.clock())
        self._guests[sock.fileno()] = g
        self._sel.register(sock, selectors.EVENT_READ, g)

    def _evict(self) -> None:
        held: dict[str, int] = collections.Counter(g.client for g in self._guests.values())
        g = min(self._guests.values(), key=lambda g: (g.progress, -held[g.client], g.since))
        self._close(g)
        self.evicted += 1

    def _step(self, g: _Guest) -> None:
        """Bytes (or room to write) for a guest: its handshake goes on; done, it leaves."""
        g.progress = 1
        if isinstance(g.sock, ssl.SSLSocket):
            try:
                g.sock.do_handshake()
            except ssl.SSLWantReadError:
                self._sel.modify(g.sock, selectors.EVENT_READ, g)
                return
            except ssl.SSLWantWriteError:
                self._sel.modify(g.sock, selectors.EVENT_WRITE, g)
                return
            except (OSError, ValueError):          # not TLS, a certificate refused, gone
                self._close(g)
                return
        self._leave(g)
        try:
            g.sock.setblocking(True)
            self.admit(g.sock, g.address)
        except (OSError, RuntimeError):           # gone, or no thread to be had: this one only
            _close(g.sock)

    def _sweep(self) -> None:
        late = self.clock() - self.deadline_s
        for g in list(self._guests.values()):      # arrival order: the oldest first
            if g.since > late:
                break
            self._close(g)
            self.expired += 1

    def _leave(self, g: _Guest) -> None:
        self._guests.pop(g.sock.fileno(), None)
        try:
            self._sel.unregister(g.sock)
        except (KeyError, ValueError):
            pass

    def _close(self, g: _Guest) -> None:
        self._leave(g)
        _close(g.sock)

    def stop(self) -> None:
        self._stop.set()
        try:
            self._wake_w.send(b"\0")
        except OSError:
            pass
        self._thread.join(10)
        self._sel.close()
        self._wake_r.close()
        self._wake_w.close()


def _close(sock: socket.socket) -> None:
    try:
        sock.close()
    except OSError:
        pass
