"""Connection options from flags, MYSQL_PWD and my.cnf, following the mysql client.

The flags arrive typed (ConnectionFlags, LiveFlags, FleetFlags: what the user gave, read once off
the command line by mysqltop.arguments) and leave resolved (ConnectionOptions, LiveOptions,
FleetOptions: what the sources connect with); no argparse below the commands.

Precedence: flags > MYSQL_PWD (password only) > the option files > defaults. The option files, as
the mysql client reads them, later ones winning: `--defaults-file FILE` alone, else
`--defaults-extra-file FILE` then ~/.my.cnf (neither with `--no-defaults`), and always the login
file ~/.mylogin.cnf (`mysql_config_editor`; MYSQL_TEST_LOGIN_FILE names another) last. In each,
the groups [client] [client-server] [client-mariadb] [mysqltop], then the `--login-path NAME`
group, then each of those with the `--defaults-group-suffix` (or MYSQL_GROUP_SUFFIX) appended,
later groups winning; `!include`/`!includedir` followed. Unlike the mysql client, which wants
them first on its command line, mysqltop takes these flags anywhere.
`-p` without a value (or `password` without a value in the file) prompts without echo.
Host localhost (the default) means the unix socket, as in the mysql client: the named socket or
the first of COMMON_SOCKETS that exists, else TCP 127.0.0.1 — except that a port given on the
command line (-P) without a socket (-S) means TCP, as in MariaDB's client since 10.6 (MySQL's
client would still take the socket, and reach whatever server listens there: on a host with
several instances, not the one the port names). `--protocol=TCP|SOCKET` (or `protocol=` in an
option file) decides outright.
"""

from __future__ import annotations

import configparser
import getpass
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from mysqltop.core.mylogin import LoginFileError, decode_login_file
from mysqltop.core.pacing import DEFAULT_INTERVAL
from mysqltop.errors import UserError

# ---- resolution: flags > MYSQL_PWD > option file ([mysqltop] over [client]) > defaults ----------
# Where the mysql client looks when host is localhost and no socket is named.
COMMON_SOCKETS = ("/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock")
DEFAULT_PORT = 3306
DEFAULT_CONNECT_TIMEOUT = 5.0
_KEYS = ("host", "port", "user", "password", "socket", "protocol", "ssl-ca", "ssl-cert", "ssl-key",
         "enable-cleartext-plugin", "get-server-public-key", "ssl-mode", "ssl-verify-server-cert",
         "ssl", "skip-ssl")
# --ssl-mode as the mysql client spells it: no TLS; TLS when offered; TLS or fail; TLS with the
# certificate verified against a CA; and also naming the host connected to.
SSL_MODES = ("DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY")
# The option groups read, in order (later wins): the mysql client's and MariaDB's shared ones, then ours.
GROUPS = ("client", "client-server", "client-mariadb", "mysqltop")


@dataclass(frozen=True)
class ConnectionFlags:
    """The connection flags as the user gave them, None where not given (mysqltop.arguments reads
    them off the command line); resolve_connection completes them into ConnectionOptions."""

    host: str | None = None
    port: int | None = None
    user: str | None = None
    password: str | None = field(default=None, repr=False)   # never printed, never recorded
    ask_password: bool = False          # -p without a value: prompt without echo
    socket: str | None = None
    protocol: str | None = None         # --protocol: "TCP" or "SOCKET" (any case), None: by host and port
    defaults_file: str | None = None
    defaults_extra_file: str | None = None
    no_defaults: bool = False
    defaults_group_suffix: str | None = None
    login_path: str | None = None
    ssl_ca: str | None = None
    ssl_cert: str | None = None
    ssl_key: str | None = None
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    enable_cleartext_plugin: bool = False
    get_server_public_key: bool = False
    ssl_mode: str | None = None
    ssl_verify_server_cert: bool = False
    ssl: bool | None = None             # --ssl (True), --skip-ssl (False): MariaDB's and MySQL 5.7's spelling


@dataclass(frozen=True)
class ConnectionOptions:
    host: str | None                  # None when connecting through `socket`
    port: int
    user: str
    password: str | None = field(default=None, repr=False)   # never printed, never recorded
    socket: str | None = None
    ssl_ca: str | None = None
    ssl_cert: str | None = None
    ssl_key: str | None = None
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    # answer a server's mysql_clear_password/dialog request without TLS (sends the password as is)
    enable_cleartext_plugin: bool = False
    # to a server not verified, encrypt the password with the RSA key it sends (sha256/caching_sha2)
    get_server_public_key: bool = False
    ssl_mode: str | None = None       # one of SSL_MODES as given or implied (resolve_connection); None: by transport

    @property
    def tls_mode(self) -> str:
        """The --ssl-mode in effect: as given; else VERIFY_IDENTITY with --ssl-ca (a CA given is meant
        to be checked, host name included), REQUIRED with a client certificate, DISABLED over a
        local socket (as the mysql client), PREFERRED over TCP."""
        if self.ssl_mode:
            return self.ssl_mode
        if self.ssl_ca:
            return "VERIFY_IDENTITY"
        if self.ssl_cert:
            return "REQUIRED"
        return "DISABLED" if self.socket else "PREFERRED"

    @property
    def address(self) -> str:
        """What the user would recognise: the socket path or host:port."""
        return self.socket if self.socket else f"{self.host}:{self.port}"

    @property
    def via_socket(self) -> bool:
        return self.socket is not None

    def pymysql_kwargs(self) -> dict:
        kw: dict = {"user": self.user, "password": self.password or "",
                    "connect_timeout": self.connect_timeout}
        if self.socket:
            kw["unix_socket"] = self.socket
        else:
            kw["host"], kw["port"] = self.host, self.port
        if self.tls_mode == "DISABLED":
            kw["ssl_disabled"] = True
        elif self.tls_mode != "PREFERRED":
            # a mode that requires TLS: sources/wire.py builds its context from these
            kw["ssl"] = {"mode": self.tls_mode, **{k: v for k, v in (("ca", self.ssl_ca), ("cert", self.ssl_cert),
                                                                      ("key", self.ssl_key)) if v}}
        return kw


def _read_option_lines(path: Path, depth: int = 0) -> list[str]:
    """Lines of an option file with `!include FILE` / `!includedir DIR` expanded in place."""
    if depth > 8:
        return []
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return []
    out: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("!include "):
            out += _read_option_lines(Path(s.split(None, 1)[1]), depth + 1)
        elif s.startswith("!includedir "):
            d = Path(s.split(None, 1)[1])
            for f in sorted(d.glob("*.cnf")) if d.is_dir() else []:
                out += _read_option_lines(f, depth + 1)
        elif not s.startswith("!"):
            out.append(line)
    return out


def _parse_options(text: str, source: str) -> configparser.ConfigParser:
    # Inline comments are cut by _option_value, which knows quotes: `password="a # b"`.
    cp = configparser.ConfigParser(allow_no_value=True, strict=False, interpolation=None,
                                   comment_prefixes=("#", ";"))
    try:
        cp.read_string(text, source=source)
    except configparser.Error as e:
        raise UserError(f"cannot read option file {source}: {str(e).splitlines()[0]}") from None
    return cp


def _group_values(cp: configparser.ConfigParser, groups: tuple[str, ...]) -> dict[str, str | None]:
    """The keys of `groups` in order (later groups win); keys use dashes; quotes removed."""
    opts: dict[str, str | None] = {}
    for section in groups:
        if cp.has_section(section):
            for key, value in cp.items(section):
                opts[key.replace("_", "-")] = None if value is None else _option_value(value)
    return opts


def _option_value(raw: str) -> str:
    """A value as the mysql client reads it: quoted up to its closing quote (a `#` inside is
    text), else up to an inline ` #` comment."""
    raw = raw.strip()
    if raw[:1] in ("'", '"'):
        end = raw.find(raw[0], 1)
        if end > 0:
            return raw[1:end]
    for i, ch in enumerate(raw):
        if ch == "#" and i and raw[i - 1] in " \t":
            return raw[:i].rstrip()
    return raw


def read_option_file(path: Path, groups: tuple[str, ...] = GROUPS) -> dict[str, str | None]:
    """The values of one my.cnf's groups (see GROUPS): later groups win."""
    return _group_values(_parse_options("\n".join(_read_option_lines(path)), str(path)), groups)


def option_groups(flags: ConnectionFlags, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The groups read, in order: GROUPS, the login path, then all of them with the suffix."""
    env = os.environ if env is None else env
    base = (*GROUPS, *([flags.login_path] if flags.login_path else []))
    suffix = flags.defaults_group_suffix if flags.defaults_group_suffix is not None else env.get("MYSQL_GROUP_SUFFIX")
    return (*base, *(g + suffix for g in base)) if suffix else base


def _home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def login_file_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    return Path(env["MYSQL_TEST_LOGIN_FILE"]) if env.get("MYSQL_TEST_LOGIN_FILE") else _home() / ".mylogin.cnf"


def _login_file(flags: ConnectionFlags) -> configparser.ConfigParser | None:
    """The login file's groups, None when there is none. A file that does not decode is an
    error only when --login-path asks for it (the mysql client passes over it otherwise)."""
    path = login_file_path()
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        text = decode_login_file(data)
    except LoginFileError as exc:
        if flags.login_path:
            raise UserError(f"--login-path {flags.login_path}: {path} is not a login file written by "
                            f"mysql_config_editor ({exc})", 2) from None
        return None
    return _parse_options(text, str(path))


def _required(flag: str, name: str) -> Path:
    p = Path(name).expanduser()
    if not p.is_file():
        raise UserError(f"{flag} {name}: no such file")
    return p


def option_file_values(flags: ConnectionFlags) -> dict[str, str | None]:
    """Every key of the option groups (e.g. `hosts` for a fleet) of the option files the flags
    name, in the order of the module docstring: later files and later groups win."""
    groups = option_groups(flags)
    files: list[Path] = []
    if flags.defaults_file:
        files = [_required("--defaults-file", flags.defaults_file)]
    elif not flags.no_defaults:
        if flags.defaults_extra_file:
            files.append(_required("--defaults-extra-file", flags.defaults_extra_file))
        home = _home() / ".my.cnf"
        if home.is_file():
            files.append(home)
    parsed = [_parse_options("\n".join(_read_option_lines(f)), str(f)) for f in files]
    login = _login_file(flags)
    if login is not None:
        parsed.append(login)
    if flags.login_path and not any(cp.has_section(flags.login_path) for cp in parsed):
        raise UserError(f"--login-path {flags.login_path}: no [{flags.login_path}] group in "
                        f"{login_file_path()} or the option files (`mysql_config_editor set "
                        f"--login-path={flags.login_path} …` makes one)", 2)
    opts: dict[str, str | None] = {}
    for cp in parsed:
        opts.update(_group_values(cp, groups))
    return opts


def _prompt_password(user: str) -> str:
    if not sys.stdin.isatty():
        raise UserError("-p without a value prompts for the password, but stdin is not a terminal: "
                        "use --password=…, MYSQL_PWD or ~/.my.cnf [client] password=…")
    try:
        return getpass.getpass(f"Enter password for {user}: ")
    except EOFError:
        print(file=sys.stderr)          # the prompt left the cursor on its line
        raise UserError("no password entered; type it at the prompt, or use MYSQL_PWD or ~/.my.cnf "
                        "[client] password=…") from None
    except KeyboardInterrupt:
        print(file=sys.stderr)
        raise UserError("interrupted at the password prompt", 130) from None


@dataclass(frozen=True)
class LiveFlags:
    """The flags of a command that watches one server, as given."""

    connection: ConnectionFlags
    interval: float = DEFAULT_INTERVAL
    enable_instruments: bool = False
    answer_timeout: float | None = None


@dataclass(frozen=True)
class LiveOptions:
    """What a live source needs from the command line, resolved once (so -p prompts once)."""

    connection: ConnectionOptions
    interval: float = DEFAULT_INTERVAL
    enable_instruments: bool = False     # --enable-instruments: turn wait/synch on before polling
    answer_timeout: float | None = None  # --answer-timeout: seconds before a poll is "not answering"


def live_options(flags: LiveFlags) -> LiveOptions:
    return LiveOptions(resolve_connection(flags.connection), flags.interval, flags.enable_instruments,
                       flags.answer_timeout)


def resolve_connection(flags: ConnectionFlags, env: Mapping[str, str] | None = None) -> ConnectionOptions:
    """Connection options as the mysql client would resolve them (see the module docstring)."""
    env = os.environ if env is None else env
    cnf = {k: v for k, v in option_file_values(flags).items() if k in _KEYS}

    def pick(name: str, flag: str | None) -> str | None:
        return flag if flag is not None else cnf.get(name)

    host = pick("host", flags.host)
    if host and "," in host:
        # else "cannot connect to db1,db2:3306 (Name or service not known)"
        raise UserError(f"-h {host} names several servers; this command takes one — the live "
                        "fleet view (`mysqltop -h db1,db2`) and `mysqltop serve` take several", 2)
    user = pick("user", flags.user) or _login_name()
    port_raw = flags.port if flags.port is not None else cnf.get("port")
    try:
        port = int(port_raw) if port_raw not in (None, "") else DEFAULT_PORT
    except ValueError:
        raise UserError(f"port {port_raw!r} in the option file is not a number") from None
    if not 0 < port < 65536:
        # Else "connection refused" on port 99999 sends the user looking for a server that is down.
        raise UserError(f"port {port} is not a TCP port: give -P/--port (or port= in the option file) "
                        "between 1 and 65535")

    if flags.ask_password:
        password: str | None = _prompt_password(user)
    elif flags.password is not None:
        password = flags.password
    elif "MYSQL_PWD" in env:
        password = env["MYSQL_PWD"]
    elif "password" in cnf:
        # `password` without a value in an option file means "ask", as in the mysql client.
        password = cnf["password"] if cnf["password"] is not None else _prompt_password(user)
    else:
        password = None

    host, socket_path = _endpoint(host, pick("socket", flags.socket), _protocol(pick("protocol", flags.protocol)),
                                  tcp_port_given=flags.port is not None and flags.socket is None)

    ssl = {"ssl-ca": pick("ssl-ca", flags.ssl_ca), "ssl-cert": pick("ssl-cert", flags.ssl_cert),
           "ssl-key": pick("ssl-key", flags.ssl_key)}
    for k, v in ssl.items():
        if v and not os.access(os.path.expanduser(v), os.R_OK):
            raise UserError(f"--{k} {v}: file not readable")
    return ConnectionOptions(
        host=host, port=port, user=user, password=password, socket=socket_path,
        ssl_ca=ssl["ssl-ca"], ssl_cert=ssl["ssl-cert"], ssl_key=ssl["ssl-key"],
        ssl_mode=ssl_mode(pick("ssl-mode", flags.ssl_mode),
                          flags.ssl_verify_server_cert or _option_on(cnf, "ssl-verify-server-cert"),
                          flags.ssl if flags.ssl is not None else _ssl_option(cnf), ssl["ssl-ca"]),
        connect_timeout=flags.connect_timeout,
        enable_cleartext_plugin=flags.enable_cleartext_plugin or _option_on(cnf, "enable-cleartext-plugin"),
        get_server_public_key=flags.get_server_public_key or _option_on(cnf, "get-server-public-key"))


PROTOCOLS = ("TCP", "SOCKET")


def _protocol(raw: str | None) -> str | None:
    if raw in (None, ""):
        return None
    value = raw.strip().upper()
    if value not in PROTOCOLS:
        # PIPE and MEMORY are Windows transports; anything else is a typo to name, not to guess.
        raise UserError(f"--protocol {raw}: mysqltop connects by TCP or SOCKET (a unix socket)", 2)
    return value


def _endpoint(host: str | None, socket_path: str | None, protocol: str | None,
              tcp_port_given: bool) -> tuple[str | None, str | None]:
    """(host, socket): which of the two the connection takes (the other None)."""
    local = host in (None, "", "localhost")
    if protocol == "TCP" or (protocol is None and local and tcp_port_given):
        return ("127.0.0.1" if local else host), None
    if protocol == "SOCKET" or local:
        found = socket_path or next((s for s in COMMON_SOCKETS if os.path.exists(s)), None)
        if found is None and protocol == "SOCKET":
            raise UserError("--protocol=SOCKET: no socket given (-S/--socket) and none of "
                            f"{', '.join(COMMON_SOCKETS)} exists", 2)
        return (None, found) if found else ("127.0.0.1", None)
    return host, None


def ssl_mode(given: str | None, verify_server_cert: bool, ssl_on: bool | None = None,
             ca: str | None = None) -> str | None:
    """--ssl-mode as given, raised to VERIFY_IDENTITY by --ssl-verify-server-cert (MariaDB's
    spelling). Else --skip-ssl is DISABLED, --ssl-verify-server-cert VERIFY_IDENTITY, --ssl without
    a CA REQUIRED; None: implied by the other options (ConnectionOptions.tls_mode)."""
    if given is not None:
        mode = given.strip().upper()
        if mode not in SSL_MODES:
            raise UserError(f"--ssl-mode {given}: give one of {', '.join(SSL_MODES)}")
        if verify_server_cert and mode not in ("DISABLED", "VERIFY_CA"):
            return "VERIFY_IDENTITY"
        return mode
    if ssl_on is False:
        return "DISABLED"
    if verify_server_cert:
        return "VERIFY_IDENTITY"
    return "REQUIRED" if ssl_on and not ca else None


def _ssl_option(cnf: Mapping[str, str | None]) -> bool | None:
    """`ssl` / `skip-ssl` in an option file: on, off, or not said."""
    if _option_on(cnf, "skip-ssl"):
        return False
    return _option_on(cnf, "ssl") if "ssl" in cnf else None


def _option_on(cnf: Mapping[str, str | None], key: str) -> bool:
    """A boolean option-file key: present without a value, or 1/ON/TRUE (as the mysql client)."""
    if key not in cnf:
        return False
    value = cnf[key]
    return value is None or value.strip().lower() in ("", "1", "on", "true", "yes")


def _login_name() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "root"


# ---- several servers: the host list, and every member's options resolved once -------------------
# The list comes, first found wins, from `-h db1,db2:3307` (a comma makes it a list), `--hosts-file
# FILE` (one `host[:port]` per line, `#` comments, commas also accepted), or `hosts=` in the
# `[mysqltop]` section of the option file. Every other connection option (user, password, TLS, -P
# as the default port) is resolved once, as for one server, and shared by all members.
MAX_HOSTS = 500
Host = tuple[str, "int | None"]      # (host, port or None for the shared default port)


def parse_host_list(text: str, where: str = "-h") -> list[Host]:
    """`db1, db2:3307, [::1]:3308` → [(host, port or None)…], duplicates dropped, order kept."""
    out: list[Host] = []
    for item in text.replace("\n", ",").split(","):
        item = item.split("#", 1)[0].strip()
        if not item:
            continue
        host, port = parse_host(item, where)
        if (host, port) not in out:
            out.append((host, port))
    if len(out) > MAX_HOSTS:
        raise UserError(f"{where}: {len(out)} servers; at most {MAX_HOSTS} in one view")
    return out


def parse_host(item: str, where: str) -> Host:
    """`db1`, `db1:3307`, `[::1]:3308` → (host, port or None); one line when it is none of those."""
    host, port_text = item, ""
    if item.startswith("["):                      # [IPv6]:port
        end = item.find("]")
        if end < 0:
            raise UserError(f"{where}: {item!r} has no closing ']'")
        host, rest = item[1:end], item[end + 1:]
        port_text = rest[1:] if rest.startswith(":") else rest
    elif item.count(":") == 1:
        host, port_text = item.split(":")
    if not host or any(c.isspace() or not c.isprintable() for c in host):
        raise UserError(f"{where}: {item!r} is not host[:port]")
    if not port_text:
        return host, None
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise UserError(f"{where}: port {port_text!r} in {item!r} is not a TCP port (1-65535)")
    return host, int(port_text)


@dataclass(frozen=True)
class FleetFlags:
    """The flags of a command that watches several servers, as given: the host list comes from
    `connection.host` (with a comma), `hosts_file`, or hosts= in the option file."""

    connection: ConnectionFlags
    hosts_file: str | None = None
    interval: float = DEFAULT_INTERVAL
    enable_instruments: bool = False


def host_list(flags: FleetFlags, *, listing: bool = False) -> list[Host] | None:
    """The servers named for a fleet view, or None when a single server was meant.

    `listing` (serve): -h is always a list, so `-h db1:3307` names one server on port 3307.
    """
    host = flags.connection.host
    if host and ("," in host or listing):
        return parse_host_list(host, "-h")
    hosts_file = flags.hosts_file
    if hosts_file:
        try:
            text = Path(hosts_file).expanduser().read_text(errors="replace")
        except OSError as exc:
            raise UserError(f"--hosts-file {hosts_file}: {exc.strerror or exc}") from None
        hosts = parse_host_list(text, f"--hosts-file {hosts_file}")
        if not hosts:
            raise UserError(f"--hosts-file {hosts_file}: no host[:port] in it")
        return hosts
    if not host:
        listed = option_file_values(flags.connection).get("hosts")
        if listed:
            return parse_host_list(listed, "hosts= in the option file")
    return None


@dataclass(frozen=True)
class FleetOptions:
    """Several servers, resolved once (one password prompt): the options all members share (user,
    password, TLS, the default port) and each member's own. A one-server `serve` is a fleet of one."""

    shared: ConnectionOptions
    members: tuple[ConnectionOptions, ...]
    interval: float = DEFAULT_INTERVAL
    enable_instruments: bool = False

    def member(self, host: str, port: int | None) -> ConnectionOptions:
        """The options for `host[:port]`: a host without a port takes the shared one (-P, the
        option file, 3306); localhost is the socket when one is known, as in the mysql client."""
        base = self.shared
        if host == "localhost" and base.socket and port is None:
            return replace(base, host=None)
        return replace(base, host="127.0.0.1" if host == "localhost" else host, port=port or base.port, socket=None)


def fleet_options(flags: FleetFlags, hosts: list[Host] | None) -> FleetOptions:
    """Every member's options from the flags; no list: the one server the connection flags name."""
    connection = flags.connection
    if not hosts:
        one = resolve_connection(connection)
        return FleetOptions(one, (one,), flags.interval, flags.enable_instruments)
    if connection.host:
        connection = replace(connection, host=None)     # the list given as -h is no host of its own
    fleet = FleetOptions(resolve_connection(connection), (), flags.interval, flags.enable_instruments)
    return replace(fleet, members=tuple(fleet.member(h, p) for h, p in hosts))
