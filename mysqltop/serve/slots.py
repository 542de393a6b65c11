"""Who may hold serve's connections: a slot is not something an unauthenticated client can keep.

Every connection holds a slot from the end of its TLS handshake (lobby.py: before it, no slot)
until it ends; until its request headers are in (the request line included) it is *waiting*, and
a waiting connection is cut off at its deadline. When every slot is taken, a new connection takes the slot of the connection
waiting longest (of the client holding the most waiting ones), once that has waited MIN_IDLE_S;
only when none has is the newcomer refused. No client keeps more than MAX_IDLE_PER_CLIENT
connections waiting past MIN_IDLE_S: its oldest go first. A scraper sends its request at once, so
it is never the one that goes; a slowloris holding hundreds of sockets holds them for about a
second. A connection refused at accept (a password flood, slots.hold) is held open unread for
HOLD_S, costing neither a thread nor CPU, instead of closed at once: a client that reconnects as
soon as it is closed would otherwise make serve accept and close thousands a second.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from typing import Callable

MIN_IDLE_S = 1.0              # a connection waiting this long may lose its slot to a newcomer
HOLD_S = 5.0                  # a refused connection is held this long before it is closed …
MAX_HELD = 512                # … up to this many (then the oldest is closed)
MAX_IDLE_PER_CLIENT = 16      # connections one client may keep waiting past MIN_IDLE_S
SWEEP_S = 0.25


@dataclass
class _Conn:
    fd: int
    family: int
    client: str
    since: float
    deadline: float
    waiting: bool = True


class Slots:
    """At most `capacity` connections at once, by file descriptor (a TLS wrap keeps the fd).

    A connection's thread releases its slot before it closes the socket, and a connection is cut
    off under the lock, so the fd cut is never one the kernel has handed to a newer connection."""

    def __init__(self, capacity: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = capacity
        self.clock = clock
        self.evicted = 0                    # connections that lost their slot to a newcomer
        self.cut = 0                        # connections cut off at their deadline or per-client cap
        self._conns: dict[int, _Conn] = {}
        self._held: list[tuple[float, socket.socket]] = []      # (until, socket), oldest first
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="mysqltop-http-slots")
        self._thread.start()

    def __len__(self) -> int:
        with self._lock:
            return len(self._conns)

    def admit(self, sock: socket.socket, client: str, deadline_s: float) -> bool:
        """Take a slot for a new connection (maybe an idle one's); False: every slot is busy."""
        now = self.clock()
        with self._lock:
            if len(self._conns) >= self.capacity:
                victim = self._idlest(now)
                if victim is None:
                    return False
                del self._conns[victim.fd]
                _cut(victim)
                self.evicted += 1
            self._conns[sock.fileno()] = _Conn(sock.fileno(), sock.family, client, now, now + deadline_s)
        return True

    def _idlest(self, now: float) -> _Conn | None:
        idle = [c for c in self._conns.values() if c.waiting and now - c.since >= MIN_IDLE_S]
        if not idle:
            return None
        held: dict[str, int] = {}
        for c in idle:
            held[c.client] = held.get(c.client, 0) + 1
        return min(idle, key=lambda c: (-held[c.client], c.since))

    def headers_in(self, fd: int) -> None:
        """The request is in: no deadline, no eviction (the IO time-out takes over)."""
        with self._lock:
            c = self._conns.get(fd)
            if c is not None:
                c.waiting = False

    def release(self, fd: int) -> None:
        with self._lock:
            self._conns.pop(fd, None)

    def hold(self, sock: socket.socket) -> None:
        """Keep a refused connection open, unread, for HOLD_S; then close it."""
        with self._lock:
            self._held.append((self.clock() + HOLD_S, sock))
            over = self._held[:max(0, len(self._held) - MAX_HELD)]
            del self._held[:len(over)]
        for _, s in over:
            s.close()

    def sweep(self) -> None:
        now = self.clock()
        late: list[_Conn] = []
        with self._lock:
            due = [s for until, s in self._held if until <= now]
            self._held = [(until, s) for until, s in self._held if until > now]
            by_client: dict[str, list[_Conn]] = {}
            for c in self._conns.values():
                if not c.waiting:
                    continue
                if c.deadline <= now:
                    late.append(c)
                elif now - c.since >= MIN_IDLE_S:
                    by_client.setdefault(c.client, []).append(c)
            for conns in by_client.values():
                if len(conns) > MAX_IDLE_PER_CLIENT:
                    conns.sort(key=lambda c: c.since)
                    late += conns[:len(conns) - MAX_IDLE_PER_CLIENT]
            for c in late:
                del self._conns[c.fd]
                _cut(c)
            self.cut += len(late)
        for s in due:
            s.close()

    def _run(self) -> None:
        while not self._stop.wait(SWEEP_S):
            self.sweep()

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            held, self._held = self._held, []
        for _, s in held:
            s.close()


def _cut(c: _Conn) -> None:
    """Shut the connection down by its fd (its socket object is its thread's): its thread wakes
    with an error and closes it. Closing it from here could hand the fd
    to the next connection while that thread still reads it."""
    try:
        dup = socket.fromfd(c.fd, c.family, socket.SOCK_STREAM)
    except OSError:
        return
    try:
        dup.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        dup.close()
