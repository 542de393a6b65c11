"""The servers `/probe?target=` may address, and with which credentials.

A target is `host[:port]` or a unix socket path (`/run/mysqld/mysqld.sock`), named as the fleet
names its members (`ConnectionOptions.address`). A listed server answers; one not listed answers
only with `--probe-any`, which starts watching it on its first probe and drops it after
PROBE_IDLE_S without one. Whoever can reach serve chooses such a target, so it never receives the
configured password unless `--probe-any-password` allows it, and that needs `--ssl-ca`: the
password then goes only to a server whose certificate that CA signed. Otherwise a probed server
gets the user name alone (an account without a password, or access denied: mysqltop_up 0).
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any, Callable

from mysqltop.config import MAX_HOSTS, ConnectionOptions, FleetOptions, parse_host
from mysqltop.errors import UserError

PROBE_IDLE_S = 600            # a server added by a probe is dropped after this long without one
Render = Callable[[bool], bytes]          # openmetrics? → the exposition


class ProbeError(Exception):
    """A /probe request that cannot be answered: `status` and a one-line reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def check_probe_flags(shared: ConnectionOptions, probe_any: bool, probe_password: bool) -> None:
    if probe_password and not probe_any:
        raise UserError("--probe-any-password goes with --probe-any")
    if probe_password and not (shared.ssl_ca and shared.tls_mode in ("VERIFY_CA", "VERIFY_IDENTITY")):
        raise UserError("--probe-any-password needs --ssl-ca (and no --ssl-mode below VERIFY_CA): the password "
                        "goes to a probed server only over TLS with a certificate that CA signed")


class ProbeTargets:
    """Resolves /probe targets to watched servers; `open_member(options)` connects one (bounded
    by --connect-timeout), `watch(name, member)` starts polling it, `unwatch(name)` stops,
    `render(name, openmetrics)` is its exposition."""

    def __init__(self, fleet: FleetOptions, listed: set[str], *, probe_any: bool, probe_password: bool,
                 open_member: Callable[[ConnectionOptions], Any], watch: Callable[[str, Any], None],
                 unwatch: Callable[[str], None], render: Callable[[str, bool], bytes],
                 clock: Callable[[], float] = time.monotonic) -> None:
        check_probe_flags(fleet.shared, probe_any, probe_password)
        self.fleet = fleet
        self.listed = set(listed)
        self.probe_any = probe_any
        self.probe_password = probe_password
        self.open_member = open_member
        self.watch = watch
        self.unwatch = unwatch
        self.render = render
        self.clock = clock
        self.probed: dict[str, float] = {}          # servers a probe added → when last probed
        self._lock = threading.Lock()

    def options(self, target: str) -> ConnectionOptions:
        """The connection options `target` names (ProbeError 400 when it names none)."""
        if target.startswith("/"):
            if any(c.isspace() or not c.isprintable() for c in target) or len(target) > 255:
                raise ProbeError(400, "target: not a socket path")
            return replace(self.fleet.shared, host=None, socket=target)
        try:
            host, port = parse_host(target, "target")
        except UserError as exc:
            raise ProbeError(400, exc.message) from None
        return self.fleet.member(host, port)

    def credentials(self, options: ConnectionOptions) -> ConnectionOptions:
        """What a server not listed receives: no password unless --probe-any-password (with
        TLS verified against --ssl-ca)."""
        if self.probe_password:
            return options
        return replace(options, password=None)

    def target(self, target: str) -> Render:
        options = self.options(target)
        name = options.address
        adding = False
        with self._lock:
            if name not in self.listed and name not in self.probed:
                if not self.probe_any:
                    raise ProbeError(404, f"{name} is not watched: list it (-h, -S, --hosts-file) or start "
                                          "serve with --probe-any")
                if len(self.probed) >= MAX_HOSTS:
                    raise ProbeError(503, f"{MAX_HOSTS} probed servers already: list them instead (--hosts-file)")
                adding = True
            if name not in self.listed:
                self.probed[name] = self.clock()
        if adding:        # connects (bounded by --connect-timeout) outside the lock: other probes go on
            self.watch(name, self.open_member(self.credentials(options)))
        return lambda openmetrics: self.render(name, openmetrics)

    def forget_idle(self) -> list[str]:
        """Stop watching the probed servers no probe asked for in PROBE_IDLE_S; their names."""
        now = self.clock()
        with self._lock:
            idle = [n for n, t in self.probed.items() if now - t > PROBE_IDLE_S]
            for n in idle:
                del self.probed[n]
        for n in idle:
            self.unwatch(n)
        return idle
