"""One TCP address in front of several servers, for failover tests: it forwards each connection to
the backend port of the moment; `swap(port)` points it at another server and cuts the connections
open now (as a failover's VIP move does), so a client reconnects to whatever answers.

    with SwapProxy(db_a.port) as proxy:      # proxy.port on 127.0.0.1
        ...connect to proxy.port...
        proxy.swap(db_b.port)
"""

from __future__ import annotations

import socket
import threading


class SwapProxy:
    def __init__(self, backend: int) -> None:
        self.backend = backend
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def swap(self, backend: int) -> None:
        with self._lock:
            self.backend = backend
            open_now, self._open = self._open, []
        for s in open_now:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            with self._lock:
                port = self.backend
            try:
                server = socket.create_connection(("127.0.0.1", port), timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self._open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()
        self.swap(self.backend)

    def __enter__(self) -> "SwapProxy":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
