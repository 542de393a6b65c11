"""One overview row per server, from the poller's ServerState: what the fleet screen shows.

No Textual here: the row is plain values and strings (untrusted text already made visible), the
TUI only styles them. State switches on `Frame.failure` (the source's typed reason), never on
error-message words:

- live          the newest frame is fresh and came on time;
- late Ns       fresh so far, but no frame for more than 1.5 intervals: a poll is hanging;
- NOT ANSWERING timeout, unreachable, connection lost (or no frame at all yet);
- ACCESS DENIED the server answers but refuses the monitoring user.

Rows sort most troubled first: not answering, then the severity of the worst finding, then the
hottest latch's wait time (core/fleet_rank.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mysqltop.core import units
from mysqltop.core.fleet_rank import hottest_latch, trouble_key, worst_finding
from mysqltop.core.frame import Frame
from mysqltop.core.safe_text import visible
from mysqltop.core.sample import Failure
from mysqltop.fleet import LATE_AFTER, ServerState
from mysqltop.views.locks_text import stall_brief

LIVE, LATE, NOT_ANSWERING, DENIED, CONNECTING = "live", "late", "NOT ANSWERING", "ACCESS DENIED", "connecting"
# Most telling first: at 80 columns the row shows through the hottest latch's wait time.
COLUMNS = ("server", "state", "tps", "qps", "run", "hottest latch", "ms/s", "worst finding",
           "history", "ckpt", "version")


@dataclass(frozen=True)
class FleetRow:
    server: str             # the poller's name for the server (a key, not for display)
    name: str               # the same, made visible
    version: str
    state: str              # LIVE | LATE | NOT_ANSWERING | DENIED | CONNECTING
    state_text: str         # "late" says for how long; NOT ANSWERING says it in `finding`
    tps: str
    qps: str
    threads_running: str
    latch: str
    wait_ms: str
    history: str
    checkpoint: str
    finding: str            # worst finding id, or why the server gives no data
    severity: str | None    # of the worst finding (critical | warning | info), None when none
    key: tuple[int, float]  # trouble rank, sorted descending
    # A server without fresh data: how long since it last gave some, and why ("for 5m12s:
    # unreachable: …"); the view puts it where the numbers go, so no width drops it. "" when live.
    outage: str = ""

    @property
    def cells(self) -> tuple[str, ...]:
        return (self.name, self.state_text, self.tps, self.qps, self.threads_running, self.latch,
                self.wait_ms, self.finding, self.history, self.checkpoint, self.version)


def _failure_state(frame: Frame) -> str:
    return DENIED if frame.failure == Failure.DENIED.value else NOT_ANSWERING


def _why(frame: Frame | None, open_error: str | None) -> str:
    if frame is None:
        return open_error or ""
    reason = frame.errors.get("poll") or next(iter(frame.errors.values()), "") or open_error or ""
    kind = frame.failure or ""
    return f"{kind}: {reason}" if kind and reason else kind or reason


def fleet_row(st: ServerState, now: float, interval: float) -> FleetRow:
    frame = st.frame
    silent = st.silent_for(now)
    if frame is None:
        state = NOT_ANSWERING if st.open_error or silent > max(LATE_AFTER * interval, 10.0) else CONNECTING
        since: float | None = silent
    elif frame.stale:
        state = _failure_state(frame)
        since = st.down_for(now)           # the outage's length, not the last attempt's
    elif silent > LATE_AFTER * interval:
        state, since = LATE, silent
    else:
        state, since = LIVE, None
    state_text = f"{LATE} {units.duration(since)}" if state == LATE else state
    trouble = state in (NOT_ANSWERING, DENIED)
    why = _why(frame, st.open_error)
    if trouble and since is not None:
        why = f"for {units.duration(since)}: {why}" if why else f"for {units.duration(since)}"
    shown = st.good if frame is not None and frame.stale else frame      # last numbers, dimmed
    server = (st.good or frame).server if (st.good or frame) is not None else None   # type: ignore[union-attr]
    version = " ".join(x for x in ((server.flavor or "") if server else "",
                                   (server.version or "").split("-")[0] if server else "") if x)
    cached = shown is not None and shown is st.summary_of
    latch = st.hottest if cached else hottest_latch(shown)
    finding = (st.worst if cached else worst_finding(shown)) if state in (LIVE, LATE) else None
    t = shown.throughput if shown is not None else None
    f = shown.flush if shown is not None else None
    return FleetRow(
        server=st.name, name=visible(st.name), version=visible(version) or units.NA, state=state, state_text=state_text,
        tps=units.num(t.tps if t else None), qps=units.num(t.qps if t else None),
        threads_running=units.num(t.threads_running if t else None),
        latch=visible(latch.name) if latch else units.NA,
        wait_ms=units.num(latch.wait_ms_per_s) if latch else units.NA,
        history=units.num(f.history_list_length if f else None),
        checkpoint=units.pct(f.checkpoint_age_pct if f else None),
        finding=visible(why) if trouble or (frame is None and st.open_error)
        else visible(_finding_text(finding.id, shown)) if finding else "",
        severity=finding.severity if finding else None,
        key=_coarse(trouble_key(finding, latch, trouble)),
        outage=visible(why) if trouble or (frame is None and st.open_error) else "")


def _finding_text(finding_id: str, frame: Frame | None) -> str:
    """The finding's id; a stall's also says whom to KILL, or that its holder is only inferred."""
    brief = stall_brief(frame) if finding_id.startswith("stall_") else ""
    return f"{finding_id}: {brief}" if brief else finding_id


def _coarse(key: tuple[int, float]) -> tuple[int, float]:
    """Wait times in quarter-decade steps (×1.8): rows keep their place while a latch's wait
    jitters between one poll and the next, and move when it really grows."""
    rank, wait_ms = key
    return rank, math.floor(math.log10(wait_ms) * 4) if wait_ms > 0.01 else -9


def fleet_rows(states: list[ServerState], now: float, interval: float) -> list[FleetRow]:
    """Rows, most troubled first (a stable sort: equal servers keep the order they were named in)."""
    rows = [fleet_row(st, now, interval) for st in states]
    return sorted(rows, key=lambda r: r.key, reverse=True)
