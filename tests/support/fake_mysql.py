"""A hostile MySQL server for tests: it greets like a MySQL 5.7 (offering TLS with any certificate
when given one, as a server in the middle would), then switches the client to the
`mysql_clear_password` plugin (AuthSwitchRequest; or `dialog`, or an RSA plugin whose key it sends
itself) and keeps every byte the client sends (inside TLS: what such a server reads).

    with CleartextServer() as srv:        # srv.port on 127.0.0.1
        ...connect as any client...
        assert b"secret" not in srv.received()
"""

from __future__ import annotations

import socket
import ssl
import struct
import threading
from pathlib import Path

# capabilities: LONG_PASSWORD, PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH (no SSL: plain TCP)
_CAPS = 0x1 | 0x200 | 0x8000 | 0x80000


_DENIED = b"\xff" + struct.pack("<H", 1045) + b"#28000" + b"Access denied"
# the public key a server sends for sha256_password / caching_sha2_password (its form is enough:
# a client that takes it has already accepted to encrypt the password for whoever answered)
_PEM = b"-----BEGIN PUBLIC KEY-----\nMFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf\n-----END PUBLIC KEY-----\n"


def _packet(seq: int, payload: bytes) -> bytes:
    return struct.pack("<I", len(payload))[:3] + bytes([seq]) + payload


_SSL = 0x800


def _greeting(caps: int = _CAPS, plugin: bytes = b"mysql_native_password") -> bytes:
    salt = CleartextServer.SALT
    return (b"\x0a" + b"5.7.99-fake\x00" + struct.pack("<I", 7) + salt[:8] + b"\x00"
            + struct.pack("<H", caps & 0xFFFF) + b"\x21" + struct.pack("<H", 2)
            + struct.pack("<H", caps >> 16) + bytes([21]) + b"\x00" * 10 + salt[8:] + b"\x00"
            + plugin + b"\x00")


def tls_server_context(cert: Path, key: Path) -> ssl.SSLContext:
    """What a server in the middle offers: TLS with a certificate of its own making."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    return ctx


class CleartextServer:
    """Accepts connections on a free port until closed; each gets the greeting, an auth switch to
    mysql_clear_password and, if the client answers, an access-denied error."""

    SALT = b"abcdefghijklmnopqrst"

    def __init__(self, plugin: bytes | None = b"mysql_clear_password", tls: ssl.SSLContext | None = None,
                 greeting_plugin: bytes = b"mysql_native_password") -> None:
        self.plugin = plugin            # None: no switch, access denied after the handshake response
        self.tls = tls                  # offered to every client that asks, with any certificate
        self.greeting_plugin = greeting_plugin
        self.tls_sessions = 0           # connections that went over TLS
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
            conn.sendall(_packet(0, _greeting(_CAPS | (_SSL if self.tls else 0), self.greeting_plugin)))
            # one packet exactly: the client sends its TLS hello right behind an SSLRequest
            first, seq = ScriptedServer._recv_packet(conn) or b"", 2
            if self.tls is not None and len(first) == 32 and struct.unpack("<I", first[:4])[0] & _SSL:
                conn = self.tls.wrap_socket(conn, server_side=True)    # the SSLRequest: TLS, then the rest
                with self._lock:
                    self.tls_sessions += 1
                first, seq = ScriptedServer._recv_packet(conn) or b"", 3
            self._keep(first)                                     # the handshake response
            if self.plugin is None:
                conn.sendall(_packet(seq, _DENIED))
                return
            conn.sendall(_packet(seq, b"\xfe" + self.plugin + b"\x00" + self.SALT + b"\x00"))
            seq += 2
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


# ---- a server that answers queries from a script ------------------------------------------------
# capabilities: LONG_PASSWORD, PROTOCOL_41, TRANSACTIONS, SECURE_CONNECTION, MULTI_STATEMENTS,
# MULTI_RESULTS, PLUGIN_AUTH
_SCRIPT_CAPS = 0x1 | 0x200 | 0x2000 | 0x8000 | 0x10000 | 0x20000 | 0x80000
_MORE_RESULTS = 0x0008
_AUTOCOMMIT = 0x0002


def lenenc(data: bytes) -> bytes:
    """A length-coded string of the protocol."""
    n = len(data)
    if n < 251:
        head = bytes([n])
    elif n < 1 << 16:
        head = b"\xfc" + struct.pack("<H", n)
    elif n < 1 << 24:
        head = b"\xfd" + struct.pack("<I", n)[:3]
    else:
        head = b"\xfe" + struct.pack("<Q", n)
    return head + data


def _column(name: bytes) -> bytes:
    return (lenenc(b"def") + lenenc(b"") + lenenc(b"") + lenenc(b"") + lenenc(name) + lenenc(name)
            + b"\x0c" + struct.pack("<HIBHB", 33, 1 << 24, 0xFD, 0, 0) + b"\x00\x00")


Answer = tuple[list[bytes], list[list[bytes | None]]] | bytes | int
"""Columns and rows of a result set; raw bytes sent as one row packet's payload after a one-column
header (a malformed row); or an error code."""


class ScriptedServer:
    """Speaks enough of the protocol for a client to connect (any password) and query: each
    statement of a COM_QUERY (split on ';\\n', as mysqltop sends its polls) is answered by the first
    script entry whose key it starts with: a result set, a raw row payload, or an error code;
    unknown statements get an OK. `version` is what the greeting says."""

    def __init__(self, script: dict[str, Answer], version: bytes = b"5.7.99-fake") -> None:
        self.script = script
        self.version = version
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.statements: list[str] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

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
        conn.settimeout(30)
        try:
            salt = CleartextServer.SALT
            greeting = (b"\x0a" + self.version + b"\x00" + struct.pack("<I", 7) + salt[:8] + b"\x00"
                        + struct.pack("<H", _SCRIPT_CAPS & 0xFFFF) + b"\x21" + struct.pack("<H", _AUTOCOMMIT)
                        + struct.pack("<H", _SCRIPT_CAPS >> 16) + bytes([21]) + b"\x00" * 10 + salt[8:] + b"\x00"
                        + b"mysql_native_password\x00")
            conn.sendall(_packet(0, greeting))
            self._recv_packet(conn)                                   # the handshake response
            conn.sendall(_packet(2, self._ok(0)))
            while True:
                payload = self._recv_packet(conn)
                if payload is None or payload[:1] == b"\x01":         # gone, or COM_QUIT
                    return
                if payload[:1] != b"\x03":
                    conn.sendall(_packet(1, self._ok(0)))
                    continue
                self._query(conn, payload[1:].decode("utf-8", "replace"))
        except OSError:
            pass
        finally:
            conn.close()

    @staticmethod
    def _recv_packet(conn: socket.socket) -> bytes | None:
        head = b""
        while len(head) < 4:
            chunk = conn.recv(4 - len(head))
            if not chunk:
                return None
            head += chunk
        n = struct.unpack("<I", head[:3] + b"\x00")[0]
        body = b""
        while len(body) < n:
            chunk = conn.recv(n - len(body))
            if not chunk:
                return None
            body += chunk
        return body

    @staticmethod
    def _ok(status: int) -> bytes:
        return b"\x00\x00\x00" + struct.pack("<HH", _AUTOCOMMIT | status, 0)

    @staticmethod
    def _eof(status: int) -> bytes:
        return b"\xfe\x00\x00" + struct.pack("<H", _AUTOCOMMIT | status)

    def _query(self, conn: socket.socket, sql: str) -> None:
        parts = sql.split(";\n")
        seq = 1
        for i, stmt in enumerate(parts):
            with self._lock:
                self.statements.append(stmt)
            more = _MORE_RESULTS if i < len(parts) - 1 else 0
            answer: Answer | None = next((a for k, a in self.script.items() if stmt.startswith(k)), None)
            out: list[bytes] = []
            if answer is None:
                out.append(self._ok(more))
            elif isinstance(answer, int):
                out.append(b"\xff" + struct.pack("<H", answer) + b"#HY000" + b"refused by the script")
                more = 0
            elif isinstance(answer, bytes):
                out += [b"\x01", _column(b"x"), self._eof(0), answer, self._eof(more)]
            else:
                cols, rows = answer
                out += [bytes([len(cols)]), *(_column(c) for c in cols), self._eof(0)]
                out += [b"".join(b"\xfb" if v is None else lenenc(v) for v in row) for row in rows]
                out.append(self._eof(more))
            for payload in out:
                for start in range(0, max(len(payload), 1), 0xFFFFFF):
                    piece = payload[start:start + 0xFFFFFF]
                    conn.sendall(_packet(seq % 256, piece))
                    seq += 1
                if len(payload) and len(payload) % 0xFFFFFF == 0:
                    conn.sendall(_packet(seq % 256, b""))
                    seq += 1
            if not more:
                return

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> "ScriptedServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def mysql_script(status_text: bytes = b"=====\nEND OF INNODB MONITOR OUTPUT\n=====\n") -> dict[str, Answer]:
    """What a MySQL 5.7 answers mysqltop's questions at connect and in its polls (no performance_schema),
    with `status_text` as SHOW ENGINE INNODB STATUS."""
    return {
        "SELECT VERSION()": ([b"v", b"c", b"h", b"u", b"p", b"d", b"i"],
                             [[b"5.7.99-fake", b"fake", b"fakehost", b"mysqltop@%", b"/nonexistent/pid",
                               b"/nonexistent/", b"7"]]),
        "SELECT @@performance_schema": ([b"p"], [[b"0"]]),
        "SELECT @@server_uuid": ([b"u"], [[b"3e11fa47-71ca-11e1-9e33-c80aa9429562"]]),
        "SHOW ENGINE INNODB STATUS": ([b"Type", b"Name", b"Status"], [[b"InnoDB", b"", status_text]]),
        "SHOW ENGINE INNODB MUTEX": ([b"Type", b"Name", b"Status"], []),
        "SELECT * FROM information_schema.INNODB_METRICS": 1109,
        "SHOW GLOBAL STATUS": ([b"Variable_name", b"Value"], [[b"Uptime", b"100"], [b"Questions", b"5"]]),
        "SHOW GLOBAL VARIABLES": ([b"Variable_name", b"Value"], [[b"version", b"5.7.99-fake"]]),
        "SHOW PROCESSLIST": ([b"Id", b"User", b"Host", b"db", b"Command", b"Time", b"State", b"Info"], []),
        "SELECT UNIX_TIMESTAMP": ([b"t"], [[b"1700000000.000000"]]),
        "SELECT GRANTEE": ([b"g"], []),
        "SELECT COUNT(ROLE_NAME)": 1109,
    }
