"""Connection options from flags, MYSQL_PWD and my.cnf, following the mysql client.

Only the flag wiring lives here for now; resolving them into a ConnectionOptions dataclass
(defaults files, prompting, precedence) belongs to the live engine.
"""

from __future__ import annotations

import argparse

PROMPT = object()  # sentinel: -p given without a value → prompt without echo


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("connection (as the mysql client; also ~/.my.cnf [client] and [mysqltop])")
    g.add_argument("-h", "--host", help="server host (default: localhost)")
    g.add_argument("-P", "--port", type=int, help="TCP port (default: 3306)")
    g.add_argument("-u", "--user", help="user name (default: your login name)")
    g.add_argument("-p", "--password", nargs="?", const=PROMPT, default=None,
                   help="password; prompts when given without a value (also MYSQL_PWD)")
    g.add_argument("-S", "--socket", help="unix socket path")
    g.add_argument("--defaults-file", help="read only this option file")
    g.add_argument("--ssl-ca", help="CA certificate file")
    g.add_argument("--ssl-cert", help="client certificate file")
    g.add_argument("--ssl-key", help="client key file")
    g.add_argument("--connect-timeout", type=float, default=5.0, help="seconds (default 5)")
