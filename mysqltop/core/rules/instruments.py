"""Latch instruments off: the hotspot pane is blind or partial; say how to enable and what it costs."""

from __future__ import annotations

import re
from typing import Iterator

from mysqltop.core.frame import Advice, Frame
from mysqltop.core.instrumentation import HINT_COST, MUTEX_MONITOR_SQL, enable_sql, hint_config
from mysqltop.core.rules.rule_kit import RECENT_S, SUSTAINED, Vars, Window, advice, pct, span
from mysqltop.core.server_version import predates_performance_schema

def _mysql_mutex_note(flavor: str | None, version: str | None) -> str:
    if flavor == "mariadb" or not version:
        return ""
    return (f"; or, with no restart, {MUTEX_MONITOR_SQL} (cheap, runtime) makes SHOW ENGINE INNODB MUTEX count "
            "mutex waits beside the rw-lock waits it lists already, and mysqltop ranks those")


# derive's notes when P_S wait/synch data is missing ("performance_schema wait/synch instruments
# are off: …", "… data not read …", "… instruments no InnoDB latches: …").
_NOTE = re.compile(r"performance_schema.*(instrument|not read)", re.IGNORECASE)


def _note(f: Frame) -> str | None:
    return next((n for n in f.notes if _NOTE.search(n)), None)


@span(RECENT_S)
def synch_instruments_off(w: Window, v: Vars) -> Iterator[Advice]:
    if predates_performance_schema(w.last.server.version):
        return                 # nothing to enable on 5.0/5.1: SEMAPHORES and MUTEX are the sources
    if all("ps_waits" in f.unrecorded for f in w.frames):
        return                 # an import: the collection never read performance_schema, nothing was off
    ps_off = v.on("performance_schema") is False
    held = 1.0 if ps_off else w.held(lambda f: 1.0 if _note(f) else None, lambda _: True)
    if held < SUSTAINED:
        return
    note = _note(w.last)
    ps_off = ps_off or (note is not None and "not read" in note)
    sources = {s for f in w.frames for s in f.sources}
    seen = sorted(sources - {"performance_schema"})
    blind = not seen          # no InnoDB latch source at all: the hotspot pane cannot show InnoDB
    if "performance_schema" in sources:
        what = "InnoDB latches are not instrumented, so only SQL-layer latches show" + (
            f" (InnoDB only through {', '.join(seen)})" if seen else "")
    elif seen:
        what = "latch hotspots come only from " + ", ".join(seen)
    else:
        what = "no latch hotspots can be shown"
    server = w.last.server
    lines = hint_config(server.flavor)
    if ps_off:
        how = f"put these lines in the server config's [mysqld] section and restart: {lines}"
    else:
        also = " (on MariaDB also for latches created at startup)" if server.flavor not in ("mysql", "percona") else ""
        how = (f"{enable_sql(server.flavor)} (or mysqltop --enable-instruments), and to keep them over a restart{also} "
               f"these [mysqld] lines: {lines}")
    how += _mysql_mutex_note(server.flavor, server.version)
    msg = (f"Latch wait instruments are off — {what}: {how}. These instruments — only the latches mysqltop "
           f"ranks, and only the summary consumer — cost throughput: {HINT_COST}")
    evidence = "; ".join(
        ([f"performance_schema = {v.text('performance_schema')}"] if v.has("performance_schema") else [])
        + [f"latch sources seen: {', '.join(sorted(sources)) or 'none'}",
           f"P_S wait/synch data missing in {pct(held)} of samples {w.label}"]
        + ([note.split(":")[0]] if note else []))
    yield advice("synch_instruments_off", "warning" if blind else "info", msg, evidence)


RULES = (synch_instruments_off,)

# Findings about how the server is set up for watching, not about what its sessions do: the views
# give them one line after the others and the rest on demand, so they never push a finding about
# sessions (a KILL) out of sight.
SETUP_FINDINGS: frozenset[str] = frozenset({"synch_instruments_off"})
