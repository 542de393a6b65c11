"""The longest blocking chains and transactions of a window, accumulated frame by frame. Pure.

Memory is bounded by the distinct blockers/transactions seen (each folded into one summary), and
trimmed to the longest when it grows past a bound, so a day-long recording is fine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mysqltop.core.frame import COMMITTED_LABEL, Frame
from mysqltop.core.blocking import Blocker, hot_row
from mysqltop.core.rules.stall_rules import judged
from mysqltop.core.stalls import NOT_RECORDED, STALL_GAP_S, STALL_MIN_WAIT_S, Certainty, Stall

TOP = 5
_KEEP = 500                 # summaries kept while accumulating before trimming to the longest
# A holder seen blocking a row for less than this many seconds, on a row other holders held too
# in the window, is one of a queue passing the row along (a hot row), not a session to release.
PASSING_S = 5.0


@dataclass
class ChainSummary:
    thread_id: int | None
    trx_id: str
    user: str | None
    host: str | None
    command: str | None
    statement: str | None
    first: float                       # epoch of the first frame it blocked in
    last: float
    max_blocked: int                   # most sessions behind it at once
    max_depth: int
    longest_wait_s: float | None       # longest wait behind it
    frames: int
    kill: str | None
    hot_row: str | None = None         # the row most waited on that it held (core/blocking.py hot_row)
    holders: int = 1                   # > 1: a hot row held in turn by this many sessions (no KILL)


@dataclass
class TransactionSummary:
    thread_id: int | None
    trx_id: str
    user: str | None
    host: str | None
    max_age_s: float
    at: float                          # epoch when it was that old
    state: str | None
    read_view: bool | None
    rows_locked: float | None          # most seen
    rows_modified: float | None
    statement: str | None


@dataclass
class StallEpisode:
    """One pile of sessions on a lock, from its first waiter's start (the server's own wait time,
    so a window that starts inside the stall still dates it) to the last frame it was seen in."""

    kind: str
    on: str
    start: float                       # epoch the first waiter started waiting (may precede the window)
    end: float                         # epoch of the last frame it was seen in
    open: bool                         # still stalled at the window's last frame
    max_waiting: int
    longest_wait_s: float | None
    root_thread_id: int | None
    root_user: str | None
    root_host: str | None
    root_command: str | None
    root_statement: str | None
    kill: str | None
    source: str
    action: str
    frames: int
    tps_before: float | None = None    # engine commits/s (else tps) in the 30 s before, while, after
    tps_during: float | None = None
    tps_after: float | None = None
    tps_label: str = COMMITTED_LABEL   # what those figures are (tps where the server has no Handler_commit)
    certainty: str = Certainty.CONFIRMED.value   # "inferred": no root, candidate_ids instead, no kill
    candidate_ids: list[int] = field(default_factory=list)    # inferred: who could hold it, oldest first
    tree: Blocker | None = None        # its blocking tree when most sessions waited (None: no root named)


CANDIDATES_KEPT = 20


def tree_of(st: Stall, f: Frame) -> Blocker | None:
    """A pile's blocking tree in the frame that shows it: its root's row-lock tree, else its
    root's server-level tree (Frame.metadata_blocking); None while no root is named."""
    if st.root is None:
        return None
    trees = f.blocking if st.kind == "row_lock" else f.metadata_blocking
    return next((b for b in trees if b.thread_id == st.root.thread_id), None)



class LockWindow:
    def __init__(self, top: int = TOP) -> None:
        self.top = top
        self.chains: dict[tuple[int | None, str], ChainSummary] = {}
        self.trx: dict[tuple[int | None, str], TransactionSummary] = {}
        self.stalls: list[StallEpisode] = []
        # the same root's first wait, across frames it was seen in within STALL_GAP_S (retries)
        self._chains: dict[tuple[str, int | None, str | None], tuple[float, float]] = {}
        self._open: dict[tuple[str, int | None, str | None], tuple[StallEpisode, float]] = {}
        self._waiters: dict[int, set[int]] = {}      # id(episode) → the waiters seen in it
        self._last_time: float | None = None

    def _stalls(self, f: Frame) -> None:
        """A stall lasts while its root blocks: frames of the same root within STALL_GAP_S seconds
        are one episode, also where the waits timed out and began again (each then under the
        threshold of a new pile)."""
        self._last_time = f.time
        for st in f.stalls:
            key = st.key
            start = st.started if st.started is not None else f.time
            chain = self._chains.get(key) if st.root is not None else None
            if chain is not None and f.time - chain[1] <= STALL_GAP_S:
                start = min(start, chain[0])
            self._chains[key] = (start, f.time)
            if len(self._chains) > _KEEP:          # bounded: forget roots not seen for a while
                self._chains = {k: v for k, v in self._chains.items() if f.time - v[1] <= STALL_GAP_S}
            held = self._open.get(key)
            if held is None or f.time - held[1] > STALL_GAP_S:
                held = self._same_incident(st, f.time) or held
            going = held is not None and f.time - held[1] <= STALL_GAP_S
            if not going and not judged(st, start, f.time):
                continue
            r = st.root
            if held is not None and going:
                ep = held[0]
                ep.start, ep.end, ep.frames = min(ep.start, start), f.time, ep.frames + 1
            else:
                ep = StallEpisode(st.kind, st.on, start, f.time, False, 0, None,
                                  r.thread_id if r else None, r.user if r else None, r.host if r else None,
                                  r.command if r else None, r.statement if r else None, r.kill if r else None,
                                  st.source, st.action, 1, certainty=st.certainty.value,
                                  candidate_ids=[c.thread_id for c in st.candidates[:CANDIDATES_KEPT]
                                                 if c.thread_id is not None])
                if len(self.stalls) < _KEEP:
                    self.stalls.append(ep)
            if st.waiting >= ep.max_waiting:
                ep.tree = tree_of(st, f) or ep.tree
            ep.max_waiting = max(ep.max_waiting, st.waiting)
            ep.longest_wait_s = _max(ep.longest_wait_s, st.longest_wait_s)
            if r is not None:
                ep.root_statement = r.statement or ep.root_statement
                if ep.root_thread_id is None or (r.kill and not ep.kill):
                    # learned along the way: the incident keeps one entry, now with its root
                    ep.root_thread_id, ep.root_user, ep.root_host, ep.root_command = (r.thread_id, r.user, r.host,
                                                                                      r.command)
                    ep.kill, ep.source, ep.action, ep.kind, ep.on = r.kill, st.source, st.action, st.kind, st.on
                    ep.certainty, ep.candidate_ids = st.certainty.value, []
            self._waiters.setdefault(id(ep), set()).update(st.waiter_ids)
            self._open[key] = (ep, f.time)

    def _same_incident(self, st: Stall, now: float) -> tuple[StallEpisode, float] | None:
        """An open entry of the same kind sharing a waiter with `st`: the same incident whose
        root was learned, or missed, in between (its key changed, the sessions did not)."""
        ids = set(st.waiter_ids)
        blind = st.source == NOT_RECORDED or not ids      # a moment whose lock rows were not recorded
        for ep, seen in sorted(self._open.values(), key=lambda x: -x[1]):
            if now - seen <= STALL_GAP_S and _family(ep.kind) == _family(st.kind) and (
                    blind or ids & self._waiters.get(id(ep), set())):
                return ep, seen
        return None

    def stall_episodes(self) -> list[StallEpisode]:
        """Biggest first (most sessions waiting, then longest); a pile whose holder was not
        recorded (an import's moments without lock rows) after those whose holder is known."""
        for ep in self.stalls:
            ep.open = ep.end == self._last_time
        return sorted(self.stalls, key=lambda e: (e.source == NOT_RECORDED, -e.max_waiting, -(e.end - e.start), e.start))

    def add(self, f: Frame) -> None:
        self._stalls(f)
        for b in f.blocking:
            key = (b.thread_id, b.trx_id)
            c = self.chains.get(key)
            if c is None:
                c = self.chains[key] = ChainSummary(b.thread_id, b.trx_id, b.user, b.host, b.command, b.statement,
                                                    f.time, f.time, 0, 0, None, 0, b.kill)
            c.last, c.frames = f.time, c.frames + 1
            c.max_blocked, c.max_depth = max(c.max_blocked, b.blocked), max(c.max_depth, b.depth)
            if b.longest_wait_s is not None and (c.longest_wait_s is None or b.longest_wait_s > c.longest_wait_s):
                c.longest_wait_s = b.longest_wait_s
            c.statement = b.statement or c.statement
            c.command = b.command or c.command
            c.kill = b.kill              # the newest word: a holder found passing the lock on has none
            if b.hot_key is not None:      # a row (its key known), not only a table and index
                c.hot_row = hot_row(b)
        for t in f.transactions:
            if t.age_s is None:
                continue
            key = (t.thread_id, t.trx_id)
            s = self.trx.get(key)
            if s is None:
                s = self.trx[key] = TransactionSummary(t.thread_id, t.trx_id, t.user, t.host, t.age_s, f.time,
                                                       t.state, t.read_view, t.rows_locked, t.rows_modified,
                                                       t.statement)
            if t.age_s >= s.max_age_s:
                s.max_age_s, s.at, s.state = t.age_s, f.time, t.state
                s.read_view = t.read_view if t.read_view is not None else s.read_view
            s.user, s.host = s.user or t.user, s.host or t.host     # a later sample may name the account
            s.rows_locked = _max(s.rows_locked, t.rows_locked)
            s.rows_modified = _max(s.rows_modified, t.rows_modified)
            s.statement = t.statement or s.statement
        if len(self.chains) > _KEEP:
            self.chains = dict(sorted(self.chains.items(), key=lambda kv: _chain_rank(kv[1]))[:_KEEP // 2])
        if len(self.trx) > _KEEP:
            self.trx = dict(sorted(self.trx.items(), key=lambda kv: -kv[1].max_age_s)[:_KEEP // 2])

    def longest_chains(self) -> list[ChainSummary]:
        """The longest chains; the short-lived holders of a row others held in turn are one hot-row
        entry with no KILL (each held it a moment: releasing one only hands it to the next)."""
        by_row: dict[str, list[ChainSummary]] = {}
        for c in self.chains.values():
            if c.hot_row is not None:
                by_row.setdefault(c.hot_row, []).append(c)
        passing: dict[str, list[ChainSummary]] = {}
        for row, cs in by_row.items():
            brief = [c for c in cs if c.last - c.first < PASSING_S]
            if len(cs) > 1 and brief:
                passing[row] = brief
        gone = {id(c) for cs in passing.values() for c in cs}
        out = [c for c in self.chains.values() if id(c) not in gone]
        for c in out:
            # a working holder seen blocking only a moment is one of a queue passing the lock on
            if c.kill and c.last - c.first < PASSING_S and (c.command != "Sleep" or len(by_row.get(c.hot_row or "", [])) > 1):
                c.kill = None
            # nobody waited behind it as long as a pile takes although it was seen that long, or it
            # was working: a queue moving along, nothing to release (a stuck idle holder's waits grow)
            if c.kill and (c.longest_wait_s or 0.0) < STALL_MIN_WAIT_S and (
                    c.command != "Sleep" or c.last - c.first >= PASSING_S):
                c.kill = None
        for row, cs in passing.items():
            cs.sort(key=lambda c: c.first)
            out.append(ChainSummary(
                None, "", None, None, None, next((c.statement for c in cs if c.statement), None),
                cs[0].first, max(c.last for c in cs), max(c.max_blocked for c in cs), max(c.max_depth for c in cs),
                max((c.longest_wait_s for c in cs if c.longest_wait_s is not None), default=None),
                sum(c.frames for c in cs), None, row, len(cs)))
        return sorted(out, key=_chain_rank)[:self.top]

    def longest_transactions(self) -> list[TransactionSummary]:
        return sorted(self.trx.values(), key=lambda s: (-s.max_age_s, s.trx_id))[:self.top]


def _family(kind: str) -> str:
    return "metadata_lock" if kind in ("table_lock", "running_ddl") else kind


def _chain_rank(c: ChainSummary) -> tuple[float, ...]:
    """Most sessions blocked first, then the longest wait behind it, then how long it lasted."""
    return (-c.max_blocked, -(c.longest_wait_s or 0.0), -(c.last - c.first), c.first)


def _max(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)
