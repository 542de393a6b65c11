"""The flags several commands share, and reading them once into the typed flags of mysqltop.config.

Commands declare these flags with `add_*` and hand `connection_flags` / `live_flags` /
`fleet_flags` of their parsed arguments down; no argparse.Namespace goes below the commands.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mysqltop.config import DEFAULT_CONNECT_TIMEOUT, SSL_MODES, ConnectionFlags, FleetFlags, LiveFlags
from mysqltop.core.pacing import DEFAULT_INTERVAL

if TYPE_CHECKING:
    from mysqltop.sources.capabilities import Capabilities
    from mysqltop.sources.live_source import LiveSource

_PROMPT = object()  # sentinel: -p given without a value → prompt without echo
# The flags that name a server (dest names), in the order a refusal names the first one given.
_SERVER_DESTS = ("host", "port", "user", "password", "socket", "protocol", "defaults_file", "defaults_extra_file",
                 "login_path", "defaults_group_suffix", "ssl_ca", "ssl_cert", "ssl_key", "ssl_mode", "ssl")


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("connection (as the mysql client; also ~/.my.cnf and ~/.mylogin.cnf: "
                                  "[client] [client-server] [client-mariadb] [mysqltop])")
    g.add_argument("-h", "--host", help="server host (default: localhost)")
    g.add_argument("-P", "--port", type=int, help="TCP port (default: 3306)")
    g.add_argument("-u", "--user", help="user name (default: your login name)")
    g.add_argument("-p", "--password", nargs="?", const=_PROMPT, default=None,
                   help="password; prompts when given without a value (also MYSQL_PWD)")
    g.add_argument("-S", "--socket", help="unix socket path")
    g.add_argument("--protocol", type=str.upper, choices=("TCP", "SOCKET"),
                   help="TCP or SOCKET (also protocol= in the option file); by default localhost is the "
                        "socket unless -P is given on the command line (as MariaDB's client 10.6+)")
    g.add_argument("--defaults-file", help="read only this option file (and ~/.mylogin.cnf)")
    g.add_argument("--defaults-extra-file", metavar="FILE", help="read this option file before ~/.my.cnf")
    g.add_argument("--no-defaults", action="store_true",
                   help="read no option file but ~/.mylogin.cnf (accepted anywhere, unlike the mysql client)")
    g.add_argument("--defaults-group-suffix", metavar="SUFFIX",
                   help="also read the groups [client SUFFIX] [mysqltop SUFFIX] … (also MYSQL_GROUP_SUFFIX)")
    g.add_argument("--login-path", metavar="NAME",
                   help="read the [NAME] group of ~/.mylogin.cnf (mysql_config_editor) and the option files")
    g.add_argument("--ssl-mode", metavar="MODE", type=str.upper, choices=SSL_MODES,
                   help="DISABLED, PREFERRED (TCP default: TLS when offered, nothing verified), REQUIRED, "
                        "VERIFY_CA (the certificate against --ssl-ca), VERIFY_IDENTITY (and the host name; "
                        "the default with --ssl-ca); only the VERIFY modes stop a server in the middle")
    g.add_argument("--ssl-ca", help="CA certificate file (implies --ssl-mode=VERIFY_IDENTITY)")
    g.add_argument("--ssl-cert", help="client certificate file")
    g.add_argument("--ssl-key", help="client key file")
    g.add_argument("--ssl", action="store_const", const=True, default=None,
                   help="TLS or no connection (--ssl-mode=REQUIRED, or VERIFY_IDENTITY with --ssl-ca)")
    g.add_argument("--skip-ssl", dest="ssl", action="store_const", const=False,
                   help="no TLS (--ssl-mode=DISABLED)")
    g.add_argument("--ssl-verify-server-cert", action="store_true",
                   help="verify the server's certificate and host name (MariaDB's spelling of "
                        "--ssl-mode=VERIFY_IDENTITY)")
    g.add_argument("--enable-cleartext-plugin", action="store_true",
                   help="answer a server that asks for the password in clear text (mysql_clear_password, "
                        "dialog: e.g. PAM or LDAP), TLS or not; refused by default")
    g.add_argument("--get-server-public-key", action="store_true",
                   help="to a server not verified (no TLS, or TLS without a VERIFY mode), encrypt the "
                        "password with the RSA key it sends (sha256_password, caching_sha2_password); "
                        "refused by default")
    g.add_argument("--connect-timeout", type=float, default=DEFAULT_CONNECT_TIMEOUT,
                   help=f"seconds (default {DEFAULT_CONNECT_TIMEOUT:g})")
    g.add_argument("--enable-instruments", action="store_true",
                   help="first turn on the performance_schema wait/synch instruments and what lists lock "
                        "holders (MariaDB: INSTALL SONAME 'metadata_lock_info'; MySQL: the metadata-lock "
                        "instrument); changes server settings; says what it changed")


def add_fleet_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hosts-file", metavar="FILE",
                        help="servers to watch, one host[:port] per line (also -h db1,db2:3307 "
                             "or hosts= in the [mysqltop] option-file section)")


def add_answer_timeout(p: argparse.ArgumentParser) -> None:
    p.add_argument("--answer-timeout", type=float, metavar="S",
                   help="seconds a poll is waited for before the server counts as not answering "
                        "(default max(5, 3 × interval); a slow poll is never cut, so the server's log "
                        "gets no 'Aborted connection' while it is merely busy)")


def server_flag_given(args: argparse.Namespace) -> str | None:
    """The first flag given that names a server (`--host`, `--ssl-ca`…), or None."""
    given = next((d for d in _SERVER_DESTS if getattr(args, d) is not None), None)
    return "--" + given.replace("_", "-") if given else None


def connection_flags(args: argparse.Namespace) -> ConnectionFlags:
    """The connection flags of `add_connection_arguments`, as given."""
    ask = args.password is _PROMPT
    return ConnectionFlags(
        host=args.host, port=args.port, user=args.user, password=None if ask else args.password,
        ask_password=ask, socket=args.socket, protocol=getattr(args, "protocol", None), defaults_file=args.defaults_file,
        defaults_extra_file=args.defaults_extra_file, no_defaults=bool(args.no_defaults),
        defaults_group_suffix=args.defaults_group_suffix, login_path=args.login_path,
        ssl_ca=args.ssl_ca, ssl_cert=args.ssl_cert, ssl_key=args.ssl_key,
        connect_timeout=float(args.connect_timeout or DEFAULT_CONNECT_TIMEOUT),
        enable_cleartext_plugin=bool(getattr(args, "enable_cleartext_plugin", False)),
        get_server_public_key=bool(getattr(args, "get_server_public_key", False)),
        ssl_mode=getattr(args, "ssl_mode", None),
        ssl_verify_server_cert=bool(getattr(args, "ssl_verify_server_cert", False)),
        ssl=getattr(args, "ssl", None))


def live_flags(args: argparse.Namespace) -> LiveFlags:
    """One server: the connection flags with --interval, --enable-instruments, --answer-timeout."""
    return LiveFlags(connection_flags(args), float(args.interval or DEFAULT_INTERVAL),
                     bool(args.enable_instruments), args.answer_timeout)


def open_live(args: argparse.Namespace, *, host_clock: bool = False) -> tuple[LiveSource, Capabilities]:
    """Connect to the one server the command line names, its flags resolved with my.cnf:
    what every live command does first (sources.live.open_live_source says what it raises)."""
    from mysqltop.config import live_options
    from mysqltop.sources.live_source import open_live_source
    return open_live_source(live_options(live_flags(args)), host_clock=host_clock)


def fleet_flags(args: argparse.Namespace) -> FleetFlags:
    """Several servers: the connection flags with --hosts-file, --interval, --enable-instruments."""
    return FleetFlags(connection_flags(args), args.hosts_file, float(args.interval or DEFAULT_INTERVAL),
                      bool(args.enable_instruments))
