"""Why a poll or a connect failed, decided from the exception where the source catches it.

By exception type and PyMySQL/server error code, never by message words: views switch on the
resulting core.sample.Failure. A UserError raised by `connect` keeps the PyMySQL error it
replaced as its __context__, so a failed reconnect is classified from the original error.
"""

from __future__ import annotations

import socket

from mysqltop.core.sample import Failure

# Client errors (CR_*) and server errors (ER_*) by what they mean for the monitor.
_UNREACHABLE = {2002, 2003, 2005}          # no socket, cannot connect, unknown host
_LOST = {2006, 2013, 2055,                 # gone away, lost during query / at reading packet
         2020, 2027,                       # an answer over its cap, a malformed packet: dropped by us
         1053, 1077, 1152, 1158, 1159, 1160, 1161, 1927}  # shutdown, aborted, net errors, killed
# access, host, privilege, auth plugin, password expired, account locked (MySQL, MariaDB); the
# password withheld without TLS (a cleartext plugin, an RSA key the server sent: sources/wire.py)
_DENIED = {1044, 1045, 1130, 1227, 1251, 1820, 1862, 3118, 4151, 2059, 2061}

# A statement of a poll the server refuses with one of these will be refused again: the poller
# stops sending it and keeps reporting why (privileges, no such table or column, syntax).
ER_UNKNOWN_TABLE = 1109     # also an information_schema table whose plugin was uninstalled
PERMANENT = frozenset({1044, 1142, 1143, 1146, ER_UNKNOWN_TABLE, 1227, 1286, 1064, 1235})
# Server errors that mean the connection is going away (shutdown, killed): the poll failed,
# reconnect.
CONNECTION_GONE = frozenset({1053, 1077, 1152, 1158, 1159, 1160, 1161, 1927})


def _code(e: BaseException) -> int:
    a = getattr(e, "args", ())
    return a[0] if a and isinstance(a[0], int) else 0


def _chain(e: BaseException) -> list[BaseException]:
    """The exception and what it was raised from or during (UserError → PyMySQL → socket)."""
    out: list[BaseException] = []
    cur: BaseException | None = e
    while cur is not None and cur not in out and len(out) < 8:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def classify(e: BaseException) -> Failure:
    chain = _chain(e)
    if any(isinstance(x, (socket.timeout, TimeoutError)) for x in chain):
        return Failure.TIMEOUT             # connected (or connecting) but no answer in time
    for x in chain:
        code = _code(x)
        if code in _DENIED:
            return Failure.DENIED
        if code in _UNREACHABLE:
            return Failure.UNREACHABLE
        if code in _LOST:
            return Failure.LOST
        if isinstance(x, (ConnectionRefusedError, FileNotFoundError, socket.gaierror)):
            return Failure.UNREACHABLE
        if isinstance(x, (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)):
            return Failure.LOST
    return Failure.OTHER
