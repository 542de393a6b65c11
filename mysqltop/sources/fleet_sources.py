"""Several servers at once: one live source per member of a FleetOptions (config.py resolves it).

Opening never lets one server stop the others: every server is connected concurrently, a server
that cannot be reached is kept (its source reconnects in the background with back-off and its
polls say why meanwhile); only when *no* server answers is the first error raised (the TUI), or
not even then (`serve`: an exporter keeps answering, with mysqltop_up 0).

One concept over its layers: sources/fleet_sources.py opens the members, fleet.py polls them,
core/fleet_rank.py ranks a frame, views/fleet_rows.py makes the rows, views/tui/fleet_app.py shows them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from mysqltop.config import ConnectionOptions
from mysqltop.errors import UserError
from mysqltop.sources.capabilities import Capabilities
from mysqltop.sources.live_source import LiveSource
from mysqltop.sources.mysql import MySQLSource
from mysqltop.sources.mysql import enable_instruments as _enable


@dataclass
class Member:
    """One server of the fleet: its label (`host:port` or socket), its source, and how it opened."""

    name: str
    source: LiveSource
    capabilities: Capabilities | None = None
    error: str | None = None          # why the first connect failed (the source keeps retrying)
    notes: tuple[str, ...] = ()       # --enable-instruments: what changed, or why it could not


def open_fleet(options: list[ConnectionOptions], interval: float, *, require_one: bool = True,
               enable_instruments: bool = False) -> list[Member]:
    """Connect to every server at once. With `require_one`, raises the first UserError when none
    answered; without (an exporter), every member is kept and retried in the background.

    `enable_instruments` (--enable-instruments): each server that answers now first gets its
    wait/synch instruments turned on; what changed, or why it could not be (a missing GRANT, P_S
    off), is that member's note — a server that refuses is still watched, as it is."""
    members = [Member(o.address, LiveSource(MySQLSource(o, interval=interval))) for o in options]
    errors: dict[int, UserError] = {}

    def open_one(i: int) -> None:
        if enable_instruments:
            try:
                members[i].notes = tuple(_enable(options[i]))
            except UserError as exc:
                members[i].notes = (f"instruments not enabled: {exc.message}",)
            except Exception:  # noqa: BLE001 - unreachable: the connect below says why
                pass
        try:
            members[i].capabilities = members[i].source.mysql.open()
        except UserError as exc:
            errors[i] = exc
            members[i].error = exc.message
        except Exception as exc:  # noqa: BLE001 - any connect trouble is this member's, not the fleet's
            errors[i] = UserError(f"{members[i].name}: {exc}")
            members[i].error = str(exc)

    threads = [threading.Thread(target=open_one, args=(i,), daemon=True) for i in range(len(members))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if require_one and errors and len(errors) == len(members):
        for m in members:
            m.source.close()
        first = errors[min(errors)]
        prefix = "" if members[min(errors)].name in first.message else f"{members[min(errors)].name}: "
        more = f" (and {len(errors) - 1} more servers failed)" if len(errors) > 1 else ""
        raise UserError(prefix + first.message + more, first.code)
    return members


def recording_file_name(name: str) -> str:
    """A file name for a member's recording in `--record DIR`: `db1_3306.mtrec`."""
    safe = "".join(c if c.isalnum() or c in "-." else "_" for c in name).strip("._") or "server"
    return f"{safe[:100]}.mtrec"
