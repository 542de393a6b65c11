"""The live source: MySQL polls with the host counters of each sample's moment."""

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
    """SampleSource: MySQLSource with host counters (when the server runs on this host) read at
    each sample's time — also for samples of a server that does not answer, so the host view
    keeps its own clock whatever the server does."""

    replay = False

    def __init__(self, mysql: MySQLSource,
                 host_reader: Callable[[int | None], HostSample] = read_host, *,
                 host_clock: bool = False) -> None:
        self.mysql = mysql
        self.host_reader = host_reader
        mysql.host_probe = self._host
        # A sample every interval while a poll hangs (failure=waiting, then timeout), each with
        # the host counters of its moment: for views and recordings that follow time (the TUI,
        # `record`); a one-shot `snapshot` or a fleet row waits for the server's answer instead.
        mysql.host_clock = host_clock

    @property
    def capabilities(self) -> Capabilities | None:
        return self.mysql.capabilities      # refreshed on every reconnect (the pid may change)

    @property
    def stats(self) -> PollStats:
        return self.mysql.stats

    def set_interval(self, interval: float) -> None:
        self.mysql.set_interval(interval)

    def read(self) -> RawSample:
        return self.mysql.read()

    def enable_lock_holders(self) -> list[str]:
        return self.mysql.enable_lock_holders()

    def _host(self) -> HostSample | None:
        caps = self.mysql.capabilities
        if caps is None or not caps.local:
            return None                    # host is null when the server is elsewhere
        return self.host_reader(caps.mysqld_pid)

    def close(self) -> None:
        self.mysql.close()


def open_live_source(options: LiveOptions, *, host_clock: bool = False) -> tuple[LiveSource, Capabilities]:
    """Connect and detect capabilities; UserError (exit 2) for connection/privilege problems.

    The returned Capabilities carry `notes` (P_S off, instruments disabled …) for the view to show;
    with `enable_instruments` the instruments are turned on first and the notes say what changed.
    """
    changed = _enable(options.connection) if options.enable_instruments else []
    mysql = MySQLSource(options.connection, interval=options.interval, answer_timeout=options.answer_timeout)
    caps = mysql.open()
    if changed:
        caps = replace(caps, notes=(*changed, *caps.notes))
        mysql.capabilities = caps
    return LiveSource(mysql, host_clock=host_clock), caps
