"""The live source: the host counters read right before one MySQL poll, per RawSample."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from mysqltop.config import LiveOptions
from mysqltop.core.sample import HostSample, RawSample
from mysqltop.sources.capabilities import Capabilities
from mysqltop.sources.host import read_host
from mysqltop.sources.mysql import MySQLSource, PollStats
from mysqltop.sources.mysql import enable_instruments as _enable


class LiveSource:
    """SampleSource: read_host() (only when the server runs on this host), then MySQLSource.read()."""

    replay = False

    def __init__(self, mysql: MySQLSource,
                 host_reader: Callable[[int | None], HostSample] = read_host) -> None:
        self.mysql = mysql
        self.host_reader = host_reader

    @property
    def capabilities(self) -> Capabilities | None:
        return self.mysql.capabilities      # refreshed on every reconnect (the pid may change)

    @property
    def stats(self) -> PollStats:
        return self.mysql.stats

    def set_interval(self, interval: float) -> None:
        self.mysql.set_interval(interval)

    def read(self) -> RawSample:
        # Host counters first: their rates divide by Δ sample.mono (the poll's start), so reading
        # them after a poll whose duration varies (slow under contention) would skew every rate.
        caps = self.mysql.capabilities
        host = self._host(caps)
        sample = self.mysql.read()
        if self.mysql.capabilities is not caps:   # reconnected in this read: maybe a new mysqld
            caps = self.mysql.capabilities
            host = self._host(caps)
        if caps is None or not caps.local:
            return sample                  # DESIGN §4: host is null when the server is elsewhere
        return replace(sample, host=host)

    def _host(self, caps: Capabilities | None) -> HostSample | None:
        if caps is None or not caps.local:
            return None
        try:
            return self.host_reader(caps.mysqld_pid)
        except Exception:  # noqa: BLE001 - host counters are best effort, the DB sample still counts
            return None

    def close(self) -> None:
        self.mysql.close()


def open_live_source(options: LiveOptions) -> tuple[LiveSource, Capabilities]:
    """Connect and detect capabilities; UserError (exit 2) for connection/privilege problems.

    The returned Capabilities carry `notes` (P_S off, instruments disabled …) for the view to show;
    with `enable_instruments` the instruments are turned on first and the notes say what changed.
    """
    changed = _enable(options.connection) if options.enable_instruments else []
    mysql = MySQLSource(options.connection, interval=options.interval)
    caps = mysql.open()
    if changed:
        caps = replace(caps, notes=(*changed, *caps.notes))
        mysql.capabilities = caps
    return LiveSource(mysql), caps
