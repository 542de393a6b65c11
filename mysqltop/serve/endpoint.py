"""serve's HTTP side: `/metrics` (every server), `/probe?target=HOST[:PORT]` or a socket path (one
server, the mysqld_exporter / blackbox_exporter multi-target pattern), TLS and basic auth
(web_config.py).

Built to be left running on a network: a listen backlog of 1024 (the kernel caps it at
net.core.somaxconn); a connection waits in the lobby (lobby.py: no thread, no slot) until its TLS
handshake is done or, without TLS, its first bytes are in, at most HEADER_TIMEOUT_S from accept;
then at most MAX_CONNECTIONS are handled at once, each with HEADER_TIMEOUT_S for its request
line and headers, a connection still waiting for its headers giving its slot up to a newcomer and
no client keeping many waiting (slots.py); a per-socket time-out for everything after; password checks
rate-limited per client and in all (auth_gate.py: 429 without hashing when over); GET and HEAD
only. Scrapes never wait on a poll (they read the pollers' copies), and the exposition of one
path is rendered at most once per CACHE_S, so many concurrent scrapes cost about one: polling keeps
its pace whatever the HTTP side sees.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

from mysqltop.core.safe_text import visible
from mysqltop.serve.auth_gate import AuthGate
from mysqltop.serve.lobby import Lobby
from mysqltop.serve.slots import Slots
from mysqltop.serve.targets import ProbeError, Render
from mysqltop.serve.web_config import WebConfig

BACKLOG = 1024
HEADER_TIMEOUT_S = 5.0        # accept → TLS handshake done (the lobby); then → request headers in
IO_TIMEOUT_S = 30.0
MAX_CONNECTIONS = 256
CACHE_S = 0.5

TEXT = "text/plain; version=0.0.4; charset=utf-8"
OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"


class _Cache:
    """Rendered expositions by (path, format) for CACHE_S; one render at a time per key, so a herd
    of concurrent scrapes waits for one render instead of doing one each."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._entries: dict[tuple[str, str], tuple[float, bytes]] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str], render: Callable[[], bytes]) -> bytes:
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
            if len(self._locks) > 4096:           # probes of many targets: forget the oldest
                self._locks.pop(next(iter(self._locks)))
                self._entries.clear()
        with lock:
            hit = self._entries.get(key)
            now = self.clock()
            if hit is not None and now - hit[0] < CACHE_S:
                return hit[1]
            body = render()
            self._entries[key] = (self.clock(), body)
            return body


class Endpoint(ThreadingHTTPServer):
    request_queue_size = BACKLOG
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], render_all: Render,
                 render_target: Callable[[str], Render], web: WebConfig | None = None) -> None:
        self.render_all = render_all
        self.render_target = render_target
        self.web = web or WebConfig()
        self.cache = _Cache()
        self.slots = Slots(MAX_CONNECTIONS)
        self.gate = AuthGate()
        self.lobby = Lobby(self.web.tls, self._admit, HEADER_TIMEOUT_S)
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)

    # -- connections: the lobby until TLS is done, then bounded, each in its own thread -----------
    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.gate.take_connection(str(client_address[0])):
            self.slots.hold(request)             # a password flood: no TLS handshake, no thread
            return
        self.lobby.add(request, client_address)

    def _admit(self, request: Any, client_address: Any) -> None:
        """A client out of the lobby (its TLS handshake done): a slot and a thread, or a 503."""
        if not self.slots.admit(request, str(client_address[0]), HEADER_TIMEOUT_S):
            try:
                request.setblocking(False)
                request.send(b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def finish_request(self, request: Any, client_address: Any) -> None:
        fd = request.fileno()
        try:
            self.RequestHandlerClass(request, client_address, self)  # type: ignore[arg-type]
        finally:
            self.slots.release(fd)               # before the socket is closed (slots.py)

    def handle_error_text(self, client_address: Any, exc: BaseException) -> None:
        print(f"mysqltop serve: a request from {client_address[0]} failed: "
              f"{type(exc).__name__}: {visible(exc)[:200]}", file=sys.stderr, flush=True)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request that failed costs that request only. A client that went away or was too slow
        (reset, broken pipe, time-out, TLS refused) is the network's normal wear: nothing said.
        Anything else is one line on stderr, never socketserver's traceback in an operator's log."""
        exc = sys.exc_info()[1]
        if exc is not None and not isinstance(exc, (OSError, ssl.SSLError)):
            self.handle_error_text(client_address, exc)

    def shutdown_request(self, request: Any) -> None:
        try:
            super().shutdown_request(request)
        except OSError:
            pass

    def server_close(self) -> None:
        self.lobby.stop()
        self.slots.stop()
        super().server_close()


class _Handler(BaseHTTPRequestHandler):
    server: Endpoint
    timeout = IO_TIMEOUT_S
    server_version = "mysqltop"
    sys_version = ""

    def parse_request(self) -> bool:
        ok = super().parse_request()
        self.server.slots.headers_in(self.connection.fileno())   # the IO time-out takes over
        return ok

    def log_message(self, format: str, *args: Any) -> None:
        pass                                             # no line per scrape on stderr

    def _send(self, status: int, body: bytes, content_type: str = "text/plain; charset=utf-8",
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in {**self.server.web.headers, **(extra or {})}.items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _authorised(self) -> bool:
        web = self.server.web
        if not web.auth:
            return True
        header = self.headers.get("Authorization", "")
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "basic":
            try:
                user, sep, password = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
            except (binascii.Error, UnicodeDecodeError):
                sep = ""
            if sep and self._password_ok(user, password):
                self.server.gate.passed(str(self.client_address[0]))
                return True
            if sep and self._over_limit:
                self._send(429, b"Too many password checks: try again later\n", extra={"Retry-After": "2"})
                return False
        self._send(401, b"Unauthorized\n", extra={"WWW-Authenticate": 'Basic realm="mysqltop"'})
        return False

    _over_limit = False

    def _password_ok(self, user: str, password: str) -> bool:
        """Remembered pairs cost nothing; a new one is checked only within the client's budget."""
        web, gate, client = self.server.web, self.server.gate, str(self.client_address[0])
        known = web.known(user, password)
        if known is False:
            gate.refused_again(client)
        if known is not None:
            return known
        reserved = gate.reserve(client)
        if reserved is None:
            self._over_limit = True
            return False
        t0 = time.thread_time()
        try:
            return web.verify(user, password)
        finally:
            gate.settle(client, reserved, time.thread_time() - t0)

    def do_GET(self) -> None:
        if not self._authorised():
            return
        url = urlsplit(self.path)
        if url.path == "/metrics":
            self._metrics("/metrics", self.server.render_all)
        elif url.path == "/probe":
            targets = parse_qs(url.query).get("target", [])
            if len(targets) != 1 or not targets[0].strip():
                self._send(400, b"give one target: /probe?target=HOST[:PORT]\n")
                return
            try:
                render = self.server.render_target(targets[0].strip())
            except ProbeError as exc:
                self._send(exc.status, exc.reason.encode("utf-8", "replace") + b"\n")
                return
            self._metrics("/probe?" + targets[0].strip(), render)
        elif url.path == "/":
            self._send(200, b"<html><head><title>mysqltop</title></head><body><h1>mysqltop</h1>"
                       b"<p><a href=\"/metrics\">/metrics</a> (every server), "
                       b"/probe?target=HOST:PORT (one)</p></body></html>\n", "text/html; charset=utf-8")
        else:
            self._send(404, b"not found: /metrics or /probe?target=HOST[:PORT]\n")

    do_HEAD = do_GET

    def _metrics(self, key: str, render: Render) -> None:
        openmetrics = "application/openmetrics-text" in self.headers.get("Accept", "")
        content_type = OPENMETRICS if openmetrics else TEXT
        try:
            body = self.server.cache.get((key, content_type), lambda: render(openmetrics))
        except Exception as exc:            # a bug in rendering: this scrape fails, serve goes on
            self.server.handle_error_text(self.client_address, exc)
            self._send(500, b"rendering the metrics failed; see serve's stderr\n")
            return
        extra = {}
        if "gzip" in self.headers.get("Accept-Encoding", "") and len(body) > 1024:
            body = gzip.compress(body, compresslevel=1)
            extra["Content-Encoding"] = "gzip"
        self._send(200, body, content_type, extra)

    def _refuse(self) -> None:
        self._send(405, b"only GET and HEAD\n", extra={"Allow": "GET, HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse


def serve_forever_in_thread(endpoint: Endpoint) -> threading.Thread:
    t = threading.Thread(target=endpoint.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True,
                         name="mysqltop-http")
    t.start()
    return t
