"""`serve --web.config.file FILE`: TLS and basic auth in the Prometheus exporter-toolkit's format.

    tls_server_config:
      cert_file: /etc/mysqltop/tls.crt
      key_file: /etc/mysqltop/tls.key
      client_auth_type: RequireAndVerifyClientCert     # optional, with client_ca_file
      client_ca_file: /etc/mysqltop/ca.crt
      min_version: TLS12                               # optional: TLS10 … TLS13
    basic_auth_users:
      prometheus: $2y$10$…                             # bcrypt hash: htpasswd -nBC 10 prometheus
    http_server_config:
      headers: {X-Frame-Options: deny}                 # optional response headers

The same file works for node_exporter and mysqld_exporter. A key mysqltop does not support is
refused with one line (never silently ignored: a DBA must not believe a setting is in force when it
is not). Passwords are checked with bcrypt; a pair once verified is remembered (by a SHA-256 of the
password, never the password) so a scrape costs one bcrypt check per process, not one per scrape —
as the exporter-toolkit does.
"""

from __future__ import annotations

import hashlib
import hmac
import ssl
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mysqltop.errors import UserError

_TLS_VERSIONS = {"TLS10": ssl.TLSVersion.TLSv1, "TLS11": ssl.TLSVersion.TLSv1_1,
                 "TLS12": ssl.TLSVersion.TLSv1_2, "TLS13": ssl.TLSVersion.TLSv1_3}
_CLIENT_AUTH = {"NoClientCert": ssl.CERT_NONE, "VerifyClientCertIfGiven": ssl.CERT_OPTIONAL,
                "RequireAndVerifyClientCert": ssl.CERT_REQUIRED}
_TLS_KEYS = {"cert_file", "key_file", "client_auth_type", "client_ca_file", "min_version", "max_version"}
_TOP_KEYS = {"tls_server_config", "basic_auth_users", "http_server_config"}
# A bcrypt hash of nothing anyone can type, checked for unknown users so a wrong user name takes
# as long as a wrong password.
_DUMMY_HASH = b"$2b$10$/xHYsPF9ZSLmbXDN.8beResevmMApm9PMUMJgVQBCx6a/jycBOSam"
MAX_REMEMBERED = 1024
MAX_REFUSED = 4096            # wrong pairs remembered: the same wrong password again costs no check


@dataclass
class WebConfig:
    tls: ssl.SSLContext | None = None
    users: dict[str, bytes] = field(default_factory=dict)      # user → bcrypt hash
    headers: dict[str, str] = field(default_factory=dict)
    _verified: set[bytes] = field(default_factory=set)
    _refused: dict[bytes, None] = field(default_factory=dict)   # wrong pairs, oldest first
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def auth(self) -> bool:
        return bool(self.users)

    def known(self, user: str, password: str) -> bool | None:
        """True/False for a pair verified or refused before (no bcrypt); None: it needs a check."""
        key = _digest(user, password)
        with self._lock:
            if any(hmac.compare_digest(key, k) for k in self._verified):
                return True
            if key in self._refused:
                return False
        return None

    def verify(self, user: str, password: str) -> bool:
        """The bcrypt check (~80 ms of CPU at cost 10); the outcome is remembered by digest."""
        import bcrypt

        hashed = self.users.get(user)
        try:
            ok = bcrypt.checkpw(password.encode("utf-8", "surrogateescape"), hashed or _DUMMY_HASH)
        except ValueError:             # an invalid hash in the file: refused at load, so not here
            ok = False
        ok = ok and hashed is not None
        key = _digest(user, password)
        with self._lock:
            if ok and len(self._verified) < MAX_REMEMBERED:
                self._verified.add(key)
            elif not ok:
                self._refused[key] = None
                if len(self._refused) > MAX_REFUSED:
                    del self._refused[next(iter(self._refused))]
        return ok

    def check(self, user: str, password: str) -> bool:
        """True when `password` is `user`'s: remembered, else checked with bcrypt."""
        known = self.known(user, password)
        return known if known is not None else self.verify(user, password)


def _digest(user: str, password: str) -> bytes:
    return hashlib.sha256(f"{user}\0{password}".encode("utf-8", "surrogateescape")).digest()


def _mapping(value: object, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise UserError(f"{where}: expected a mapping of names to values")
    return value


def _file(path: object, key: str, where: str, base: Path) -> str:
    if not isinstance(path, str) or not path:
        raise UserError(f"{where}: {key} must be a file name")
    p = Path(path).expanduser()
    p = p if p.is_absolute() else base / p           # relative to the config file, as the toolkit does
    if not p.is_file():
        raise UserError(f"{where}: {key} {path}: no such file")
    return str(p)


def load_web_config(path: str) -> WebConfig:
    """Read and check the file: one UserError line for anything wrong or unsupported."""
    import bcrypt
    import yaml

    where = f"--web.config.file {path}"
    try:
        text = Path(path).expanduser().read_text()
    except OSError as exc:
        raise UserError(f"{where}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UserError(f"{where}: not a text file") from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark is not None else ""
        raise UserError(f"{where}: not valid YAML{at}") from None
    top = _mapping(doc, where)
    unknown = sorted(set(top) - _TOP_KEYS)
    if unknown:
        raise UserError(f"{where}: {unknown[0]} is not supported by mysqltop (it knows {', '.join(sorted(_TOP_KEYS))})")
    cfg = WebConfig()
    base = Path(path).expanduser().resolve().parent

    tls = _mapping(top.get("tls_server_config"), f"{where}: tls_server_config")
    if tls:
        bad = sorted(set(tls) - _TLS_KEYS)
        if bad:
            raise UserError(f"{where}: tls_server_config.{bad[0]} is not supported by mysqltop; remove it")
        if "cert_file" not in tls or "key_file" not in tls:
            raise UserError(f"{where}: tls_server_config needs both cert_file and key_file")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        for key, attr in (("min_version", "minimum_version"), ("max_version", "maximum_version")):
            if key in tls:
                version = _TLS_VERSIONS.get(str(tls[key]))
                if version is None:
                    raise UserError(f"{where}: tls_server_config.{key} {tls[key]!r}: give one of "
                                    f"{', '.join(_TLS_VERSIONS)}")
                setattr(ctx, attr, version)
        try:
            ctx.load_cert_chain(_file(tls["cert_file"], "cert_file", where, base),
                                _file(tls["key_file"], "key_file", where, base))
        except ssl.SSLError as exc:
            raise UserError(f"{where}: cannot use cert_file/key_file: {exc.reason or exc}") from None
        auth_type = str(tls.get("client_auth_type", "NoClientCert"))
        if auth_type not in _CLIENT_AUTH:
            raise UserError(f"{where}: client_auth_type {auth_type}: mysqltop supports "
                            f"{', '.join(_CLIENT_AUTH)}")
        ctx.verify_mode = _CLIENT_AUTH[auth_type]
        if "client_ca_file" in tls:
            try:
                ctx.load_verify_locations(_file(tls["client_ca_file"], "client_ca_file", where, base))
            except ssl.SSLError as exc:
                raise UserError(f"{where}: cannot use client_ca_file: {exc.reason or exc}") from None
        elif ctx.verify_mode != ssl.CERT_NONE:
            raise UserError(f"{where}: client_auth_type {auth_type} needs client_ca_file")
        cfg.tls = ctx

    for user, hashed in _mapping(top.get("basic_auth_users"), f"{where}: basic_auth_users").items():
        if not isinstance(hashed, str):
            raise UserError(f"{where}: basic_auth_users.{user} must be a bcrypt hash")
        try:
            bcrypt.checkpw(b"", hashed.encode())          # a well-formed hash, or ValueError
        except ValueError:
            raise UserError(f"{where}: basic_auth_users.{user} is not a bcrypt hash "
                            "(make one with htpasswd -nBC 10 USER, from apache2-utils)") from None
        cfg.users[user] = hashed.encode()

    http = _mapping(top.get("http_server_config"), f"{where}: http_server_config")
    bad = sorted(set(http) - {"headers"})
    if bad:
        raise UserError(f"{where}: http_server_config.{bad[0]} is not supported by mysqltop; remove it")
    for name, value in _mapping(http.get("headers"), f"{where}: http_server_config.headers").items():
        if not isinstance(value, str) or any(c in name + value for c in "\r\n"):
            raise UserError(f"{where}: header {name!r} must be one line of text")
        cfg.headers[name] = value
    return cfg
