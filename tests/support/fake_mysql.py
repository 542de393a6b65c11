"""A hostile MySQL server for tests: it greets like a MySQL 5.7, then switches the client to the
`mysql_clear_password` plugin (AuthSwitchRequest; or `dialog`, or an RSA plugin whose key it sends
itself) and keeps every byte the client sends.

    with CleartextServer() as srv:        # srv.port on 127.0.0.1
        ...connect as any client...
        assert b"secret" not in srv.received()
"""

from __future__ import annotations

import socket
import struct
import threading

# capabilities: LONG_PASSWORD, PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH (no SSL: plain TCP)
_CAPS = 0x1 | 0x200 | 0x8000 | 0x80000


_DENIED = b"\xff" + struct.pack("<H", 1045) + b"#28000" + b"Access denied"
# the public key a server sends for sha256_password / caching_sha2_password (its form is enough:
# a client that takes it has already accepted to encrypt the password for whoever answered)
_PEM = b"-----BEGIN PUBLIC KEY-----\nMFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf\n-----END PUBLIC KEY-----\n"


def _packet(seq: int, payload: bytes) -> bytes:
    return struct.pack("<I", len(payload))[:3] + bytes([seq]) + payload


def _greeting() -> bytes:
    salt = CleartextServer.SALT
    return (b"\x0a" + b"5.7.99-fake\x00" + struct.pack("<I", 7) + salt[:8] + b"\x00"
            + struct.pack("<H", _CAPS & 0xFFFF) + b"\x21" + struct.pack("<H", 2)
            + struct.pack("<H", _CAPS >> 16) + bytes([21]) + b"\x00" * 10 + salt[8:] + b"\x00"
            + b"mysql_native_password\x00")


class CleartextServer:
    """Accepts connections on a free port until closed; each gets the greeting, an auth switch to
    mysql_clear_password and, if the client answers, an access-denied error."""

    SALT = b"abcdefghijklmnopqrst"

    def __init__(self, plugin: bytes | None = b"mysql_clear_password") -> None:
        self.plugin = plugin            # None: no switch, access denied after the handshake response
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._data: list[bytes] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def received(self) -> bytes:
        with self._lock:
            return b"".join(self._data)

    def answers(self) -> list[bytes]:
        """Each packet the client sent after the handshake response, headers stripped."""
        with self._lock:
            return [d[4:] for d in self._data[1:] if d]

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            conn.sendall(_packet(0, _greeting()))
            self._keep(conn.recv(65536))                          # the handshake response
            if self.plugin is None:
                conn.sendall(_packet(2, _DENIED))
                return
            conn.sendall(_packet(2, b"\xfe" + self.plugin + b"\x00" + self.SALT + b"\x00"))
            seq = 4
            # what the server says to each answer: RSA plugins first ask for (then send) their key
            script = {b"sha256_password": [b"\x01" + _PEM],
                      b"caching_sha2_password": [b"\x01\x04", b"\x01" + _PEM]}.get(self.plugin, [])
            while True:
                answer = conn.recv(65536)                          # the password, if the client sends it
                self._keep(answer)
                if not answer:
                    return
                conn.sendall(_packet(seq, script.pop(0) if script else _DENIED))
                seq += 2
        except OSError:
            pass
        finally:
            conn.close()

    def _keep(self, data: bytes) -> None:
        with self._lock:
            self._data.append(data)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> "CleartextServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
