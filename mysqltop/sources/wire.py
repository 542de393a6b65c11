"""The PyMySQL connection mysqltop connects with: wire bytes counted per poll (bench/poll reports
them), the TLS context --ssl-mode asks for, and no password to a server that has not proven
itself.

Some authentication plugins send the password itself (mysql_clear_password, MariaDB's dialog for
PAM), others send it over TLS as is or encrypt it with an RSA key the server sends
(sha256_password, caching_sha2_password's full authentication). Whoever answers as the server gets
it or can decrypt it unless the server proved who it is: a certificate verified against a CA
(--ssl-mode=VERIFY_CA / VERIFY_IDENTITY), or a local socket. TLS that verifies nothing (PREFERRED,
REQUIRED) hides the password from a listener, not from a server in the middle, which presents any
certificate. So, as the mysql client does, mysqltop sends a password in clear text only with
--enable-cleartext-plugin (TLS or not), and the RSA or TLS-plain forms only to a verified server or
with --get-server-public-key; the refusals are typed so connect can say what to do.
"""

from __future__ import annotations

import codecs
import functools
import ssl
import struct
from typing import Any

@functools.cache
def preferred_tls() -> ssl.SSLContext:
    """TLS when the server offers it, nothing verified (the mysql client's ssl-mode=PREFERRED):
    one context per process. PyMySQL builds a verifying default context per connection for it,
    loading the system's CA certificates (~50 ms of CPU) only to switch verification off."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


# --ssl-mode, as the mysql client spells it: the modes that verify the server's certificate.
VERIFYING_MODES = ("VERIFY_CA", "VERIFY_IDENTITY")


def tls_context(sslp: dict[str, Any]) -> ssl.SSLContext:
    """The context of one connection for a mode that requires TLS (ConnectionOptions.pymysql_kwargs'
    `ssl`): REQUIRED verifies nothing; VERIFY_CA the chain against --ssl-ca (the system's CAs
    without one); VERIFY_IDENTITY that and the host name. Built per connection, so a renewed
    certificate or CA file is read at the next reconnect."""
    mode, ca = sslp.get("mode", "REQUIRED"), sslp.get("ca")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if mode in VERIFYING_MODES:
        if ca:
            ctx.load_verify_locations(cafile=ca)
        else:
            ctx.load_default_certs()
        # certificates the server made for itself (mysql_ssl_rsa_setup) fail X509_STRICT
        ctx.verify_flags &= ~ssl.VERIFY_X509_STRICT
        ctx.check_hostname = mode == "VERIFY_IDENTITY"
        ctx.verify_mode = ssl.CERT_REQUIRED
    else:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if sslp.get("cert"):
        ctx.load_cert_chain(sslp["cert"], keyfile=sslp.get("key"))
    return ctx


# Authentication plugins that send the password itself: to a server that has not proven itself
# (no TLS), only with --enable-cleartext-plugin, as the mysql client does. The password encrypted
# with an RSA key the server sends (sha256_password, caching_sha2_password's full auth) goes to
# it without TLS only with --get-server-public-key, as in the mysql client.
CLEARTEXT_PLUGINS = (b"mysql_clear_password", b"dialog")
CR_AUTH_PLUGIN_CANNOT_LOAD = 2059


class AuthRefused(Exception):
    """The handshake was stopped before the password left: args are (client error code, plugin)."""


class CleartextRefused(AuthRefused):
    """The server asked for the password in clear text (TLS or not) without --enable-cleartext-plugin."""


CR_AUTH_PLUGIN_ERR = 2061       # "Authentication requires secure connection", as the mysql client


class ServerKeyRefused(AuthRefused):
    """Over a connection to a server not verified (no TLS, or TLS without VERIFY_CA), the server
    asked for the password encrypted with an RSA key it sends, or as is: whoever answers as the
    server can decrypt it."""


# The mysql client's own codes for an answer it will not take whole and for a packet it cannot
# parse: the poller classifies them by code (sources/failure.py), the connection is dropped.
CR_NET_PACKET_TOO_LARGE = 2020
CR_MALFORMED_PACKET = 2027
# Bytes one statement's answer may take on the wire. A real server's largest answer is far below
# (SHOW ENGINE INNODB STATUS stops at 1 MiB; the row reads are LIMITed, their text LEFT()-cut); a
# hostile or broken one sending more is cut here, before the bytes are read into memory.
ANSWER_CAP_BYTES = 4 << 20
# What PyMySQL raises on bytes that do not parse as the protocol (a length-coded string longer than
# its packet: "AssertionError: Result length not requested length", a short handshake, …).
_MALFORMED = (AssertionError, IndexError, struct.error, KeyError, TypeError, UnicodeError)


def _pymysql_error(code: int, message: str) -> Exception:
    import pymysql

    return pymysql.err.OperationalError(code, message)


# Text read back from the server decodes each undecodable byte as U+FFFD: statement text is
# whatever bytes a client sent (a latin1 connection, a binary literal), and one such session must
# cost neither the poll nor the sessions list. Queries still encode as strict UTF-8.
LENIENT_UTF8 = "mysqltop_utf8_replace"


def _lenient_decode(data: Any, errors: str = "strict", /) -> tuple[str, int]:
    return codecs.utf_8_decode(data, "replace", True)


@codecs.register
def _lenient_codec(name: str) -> codecs.CodecInfo | None:
    if name != LENIENT_UTF8:
        return None
    return codecs.CodecInfo(codecs.utf_8_encode, _lenient_decode, name=LENIENT_UTF8)


def connection_class() -> type:
    import pymysql.connections

    class CountingConnection(pymysql.connections.Connection):
        """Counts wire bytes per poll (bench/poll reports them); one shared context for TLS
        when the server offers it and no --ssl-* option asked for more; never answers a
        cleartext-password plugin unless allowed, nor sends the password as is or RSA-encrypted
        to a server that has not proven itself."""

        bytes_in = 0
        bytes_out = 0
        answer_cap = ANSWER_CAP_BYTES     # bytes one statement's answer may take (the handshake's too)
        _answer_at = 0                    # bytes_in when the answer being read began
        refused_bytes: int | None = None  # the answer's bytes at least, when the cap refused it

        def __init__(self, *args: Any, cleartext_ok: bool = False, server_key_ok: bool = False, **kw: Any) -> None:
            self._cleartext_ok = cleartext_ok        # read during the handshake super() runs
            self._server_key_ok = server_key_ok
            super().__init__(*args, **kw)
            if codecs.lookup(self.encoding).name == "utf-8":
                self.encoding = LENIENT_UTF8    # every text column of every result decodes with it

        _transport_up = False             # the socket, or TLS, is up (PyMySQL's own `_secure`)

        def _verified(self) -> bool:
            """The server proved who it is: a local socket, or TLS whose certificate was verified."""
            if self.unix_socket:
                return True
            ctx = getattr(self, "ctx", None)
            return bool(self.ssl) and ctx is not None and ctx.verify_mode == ssl.CERT_REQUIRED

        # PyMySQL's auth plugins send the password as is when `_secure` (sha256_password,
        # caching_sha2_password's full auth): true only when the server is verified, so over TLS
        # that verifies nothing they take the RSA path, which server_public_key refuses unless allowed.
        @property
        def _secure(self) -> bool:
            return self._transport_up and self._verified()

        @_secure.setter
        def _secure(self, up: bool) -> None:
            self._transport_up = up

        def _request_authentication(self) -> None:
            # A greeting naming sha256_password makes PyMySQL put the password as is in the
            # handshake response when TLS is on: to a server not verified, answer as
            # mysql_native_password instead (a scramble), and a real server switches us to its
            # plugin, whose answer goes through the checks here.
            greeting_plugin: Any = getattr(self, "_auth_plugin_name", "")
            if greeting_plugin == "sha256_password" and not self._server_key_ok and not self._verified():
                self._auth_plugin_name = "mysql_native_password"
            super()._request_authentication()  # type: ignore[misc]

        @property
        def server_public_key(self) -> bytes | None:
            return self._server_key

        @server_public_key.setter
        def server_public_key(self, key: bytes | None) -> None:
            # PyMySQL sets it once from the options, then from the server when the password is to
            # be RSA-encrypted (sha256_password, caching_sha2_password's full auth) without TLS
            if key and "_server_key" in self.__dict__ and not self._server_key_ok and not self._secure:
                raise ServerKeyRefused(CR_AUTH_PLUGIN_ERR, "server public key")
            self._server_key = key

        def _process_auth(self, plugin_name: bytes, auth_packet: Any, handler: Any = None) -> Any:
            if plugin_name in CLEARTEXT_PLUGINS and not self._cleartext_ok:
                raise CleartextRefused(CR_AUTH_PLUGIN_CANNOT_LOAD, plugin_name.decode("ascii"))
            return super()._process_auth(plugin_name, auth_packet, handler)  # type: ignore[misc]

        def _create_ssl_ctx(self, sslp: Any) -> ssl.SSLContext:
            if not sslp:
                return preferred_tls()
            return tls_context(sslp)

        def connect(self, sock: Any = None) -> None:
            try:
                super().connect(sock)
            except _MALFORMED:
                self._force_close()  # type: ignore[attr-defined]
                raise _pymysql_error(CR_MALFORMED_PACKET, "malformed packet from the server during the handshake "
                                                          "(not the MySQL protocol, or damaged)") from None

        def query(self, sql: Any, unbuffered: bool = False) -> int:
            self._answer_at = self.bytes_in
            return int(super().query(sql, unbuffered))

        def next_result(self, unbuffered: bool = False) -> int:
            self._answer_at = self.bytes_in
            return int(super().next_result(unbuffered))

        def _read_query_result(self, unbuffered: bool = False) -> int:
            try:
                return int(super()._read_query_result(unbuffered))  # type: ignore[misc]
            except _MALFORMED:
                self._force_close()  # type: ignore[attr-defined]
                raise _pymysql_error(CR_MALFORMED_PACKET, "malformed packet from the server (a field longer "
                                                          "than its packet, or a damaged answer)") from None

        def _read_bytes(self, num_bytes: int) -> bytes:
            if self.bytes_in - self._answer_at + num_bytes > self.answer_cap:
                # Refused before reading: the rest of the answer never reaches memory.
                self.refused_bytes = self.bytes_in - self._answer_at + num_bytes
                self._force_close()  # type: ignore[attr-defined]
                raise _pymysql_error(CR_NET_PACKET_TOO_LARGE, f"an answer over {self.answer_cap >> 20} MiB "
                                                              "(the most a statement may send mysqltop)")
            data = super()._read_bytes(num_bytes)  # type: ignore[misc]  # private, not in the stubs
            self.bytes_in += len(data)
            return data

        def _write_bytes(self, data: bytes) -> None:
            super()._write_bytes(data)  # type: ignore[misc]
            self.bytes_out += len(data)

    return CountingConnection

