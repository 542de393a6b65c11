"""Several servers at once: the host list and one live source per server.

The list comes, first found wins, from `-h db1,db2:3307` (a comma makes it a list), `--hosts-file
FILE` (one `host[:port]` per line, `#` comments, commas also accepted), or `hosts=` in the
`[mysqltop]` section of the option file. Every other connection option (user, password, TLS, -P as
the default port) is resolved once, as for one server, and shared by all members.

Opening never lets one server stop the others: every server is connected concurrently, a server
that cannot be reached is kept (its source reconnects in the background with back-off and its
polls say why meanwhile); only when *no* server answers is the first error raised (the TUI), or
not even then (`serve`: an exporter keeps answering, with mysqltop_up 0).
"""

from __future__ import annotations

import argparse
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from mysqltop.config import ConnectionOptions, option_file_values, resolve_connection
from mysqltop.errors import UserError
from mysqltop.sources.capabilities import Capabilities
from mysqltop.sources.live import LiveSource
from mysqltop.sources.mysql import MySQLSource
from mysqltop.sources.mysql import enable_instruments as _enable

MAX_HOSTS = 500


Host = tuple[str, "int | None"]      # (host, port or None for the shared default port)


def parse_host_list(text: str, where: str = "-h") -> list[Host]:
    """`db1, db2:3307, [::1]:3308` → [(host, port or None)…], duplicates dropped, order kept."""
    out: list[Host] = []
    for item in text.replace("\n", ",").split(","):
        item = item.split("#", 1)[0].strip()
        if not item:
            continue
        host, port = _split_port(item, where)
        if (host, port) not in out:
            out.append((host, port))
    if len(out) > MAX_HOSTS:
        raise UserError(f"{where}: {len(out)} servers; at most {MAX_HOSTS} in one view")
    return out


def _split_port(item: str, where: str) -> Host:
    host, port_text = item, ""
    if item.startswith("["):                      # [IPv6]:port
        end = item.find("]")
        if end < 0:
            raise UserError(f"{where}: {item!r} has no closing ']'")
        host, rest = item[1:end], item[end + 1:]
        port_text = rest[1:] if rest.startswith(":") else rest
    elif item.count(":") == 1:
        host, port_text = item.split(":")
    if not host or any(c.isspace() for c in host):
        raise UserError(f"{where}: {item!r} is not host[:port]")
    if not port_text:
        return host, None
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise UserError(f"{where}: port {port_text!r} in {item!r} is not a TCP port (1-65535)")
    return host, int(port_text)


def host_list(args: argparse.Namespace, *, listing: bool = False) -> list[Host] | None:
    """The servers named for a fleet view, or None when a single server was meant.

    `listing` (serve): -h is always a list, so `-h db1:3307` names one server on port 3307.
    """
    host = getattr(args, "host", None)
    if host and ("," in host or listing):
        return parse_host_list(host, "-h")
    hosts_file = getattr(args, "hosts_file", None)
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
        listed = option_file_values(args).get("hosts")
        if listed:
            return parse_host_list(listed, "hosts= in the option file")
    return None


def member_options(args: argparse.Namespace, hosts: list[Host] | None) -> list[ConnectionOptions]:
    """One ConnectionOptions per server: the shared options resolved once (one password prompt);
    a host without a port takes the shared one (-P, the option file, 3306). No list: one server."""
    if not hosts:
        return [resolve_connection(args)]
    if getattr(args, "host", None):
        # resolve the shared options without the list as a host
        args = argparse.Namespace(**{**vars(args), "host": None})
    base = resolve_connection(args)
    out = []
    for host, given_port in hosts:
        port = given_port or base.port
        if host == "localhost" and base.socket and given_port is None:
            out.append(replace(base, host=None, port=port))
        else:
            out.append(replace(base, host="127.0.0.1" if host == "localhost" else host, port=port, socket=None))
    return out


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
