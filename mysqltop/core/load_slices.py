"""The load by dimension over a window: a fold over the frames' active sessions
(Frame.load.sessions, core/active_sessions.py), like the findings are a fold over frames.

Each frame's sessions count for the seconds since the previous sample (its `elapsed`), so the
result is the time-weighted average active sessions of each value of a dimension over the window
— statement shape, user, client host, schema, wait object or wait class — with its wait-class mix.
A stale frame, and one whose sample holds no active session rows (an older recording), adds no
time: the average is over the seconds that were sampled; a sample with none active adds its time. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from mysqltop.core.frame import WAIT_CLASSES, Frame, LoadSession, LoadSlice

# (dimension, LoadSession field, label): the keys of JSON `load.slices`, the TUI's cycle order
DIMENSIONS: tuple[tuple[str, str, str], ...] = (
    ("sql", "sql", "SQL"), ("user", "user", "user"), ("host", "host", "host"), ("schema", "schema", "schema"),
    ("object", "object", "object"), ("wait_class", "wait_class", "wait class"))
DIMENSION_NAMES: tuple[str, ...] = tuple(d for d, _, _ in DIMENSIONS)
FRAME_TOP = 5             # values per dimension in one frame's JSON
WINDOW_TOP = 25           # values per dimension a window's fold keeps (Performance Insights' top 25)
_FIELD = {d: f for d, f, _ in DIMENSIONS}
LABELS = {d: label for d, _, label in DIMENSIONS}


def value_of(s: LoadSession, dimension: str) -> str:
    return str(getattr(s, _FIELD[dimension]))


def of_sessions(sessions: Iterable[LoadSession], top: int = FRAME_TOP,
                dimensions: Iterable[str] = DIMENSION_NAMES[:-1]) -> dict[str, list[LoadSlice]]:
    """One sample's slices: each dimension's top values by sessions, with their wait classes."""
    rows = list(sessions)
    out: dict[str, list[LoadSlice]] = {}
    for dim in dimensions:
        acc: dict[str, dict[str, float]] = {}
        for s in rows:
            mix = acc.setdefault(value_of(s, dim), {})
            mix[s.wait_class] = mix.get(s.wait_class, 0.0) + s.sessions
        out[dim] = _ranked(acc, top, 1.0)
    return out


def _ranked(acc: Mapping[str, Mapping[str, float]], top: int, seconds: float) -> list[LoadSlice]:
    ranked = sorted(acc.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))[:top]
    return [LoadSlice(v, sum(mix.values()) / seconds,
                      {c: mix[c] / seconds for c in WAIT_CLASSES if mix.get(c)}) for v, mix in ranked]


def matches(s: LoadSession, dimension: str, value: str) -> bool:
    return value_of(s, dimension) == value


def classes_of(frame: Frame, dimension: str | None = None, value: str | None = None) -> dict[str, float]:
    """One frame's sessions by wait class, of one dimension's value only (None: all of them)."""
    out = dict.fromkeys(WAIT_CLASSES, 0.0)
    for s in frame.load.sessions:
        if dimension is None or matches(s, dimension, value or ""):
            out[s.wait_class] = out.get(s.wait_class, 0.0) + s.sessions
    return out


@dataclass
class LoadFold:
    """The window's load by every dimension: fed each frame in order (`add`), read with `slices`."""

    seconds: float = 0.0
    sums: dict[str, dict[str, dict[str, float]]] = field(
        default_factory=lambda: {d: {} for d in DIMENSION_NAMES})     # dim → value → class → session-seconds

    def add(self, frame: Frame) -> None:
        if not frame.stale and frame.load.sessions_known:
            self.add_sessions(frame.elapsed, frame.load.sessions)

    def add_sessions(self, dt: float | None, sessions: list[LoadSession]) -> None:
        """One fresh sample's sessions (none active: an empty list), weighted by the seconds
        since the previous sample."""
        if not dt or dt <= 0:
            return
        self.seconds += dt
        for s in sessions:
            w = s.sessions * dt
            for dim in DIMENSION_NAMES:
                mix = self.sums[dim].setdefault(value_of(s, dim), {})
                mix[s.wait_class] = mix.get(s.wait_class, 0.0) + w

    def slices(self, top: int = WINDOW_TOP) -> dict[str, list[LoadSlice]]:
        """Each dimension's top values by average active sessions over the sampled seconds;
        empty when nothing was sampled (older recordings)."""
        if not self.seconds:
            return {}
        return {dim: _ranked(self.sums[dim], top, self.seconds) for dim in DIMENSION_NAMES}


def fold(frames: Iterable[Frame]) -> LoadFold:
    f = LoadFold()
    for fr in frames:
        f.add(fr)
    return f



CLASS_WORDS = {"cpu": "CPU", "row_lock": "row-lock", "metadata_lock": "metadata-lock", "latch": "latch",
               "io": "IO", "commit": "commit", "other": "other"}
WHO_CHARS = 120


def who_carries(frames: Iterable[Frame], wait_class: str) -> str | None:
    """Who carries a wait class's load over the frames, in words a finding adds to its evidence:
    "74 % of the row-lock load is `UPDATE t SET …` from app@10.0.3.4 in schema shop"; None where
    the frames hold no active session of that class."""
    acc: dict[tuple[str, str, str, str], float] = {}
    total = 0.0
    for f in frames:
        dt = f.elapsed
        if f.stale or not dt or dt <= 0 or not f.load.sessions_known:
            continue
        for s in f.load.sessions:
            if s.wait_class == wait_class:
                key = (s.sql, s.user, s.host, s.schema)
                acc[key] = acc.get(key, 0.0) + s.sessions * dt
                total += s.sessions * dt
    if total <= 0 or not acc:
        return None
    (sql, user, host, schema), top = max(acc.items(), key=lambda kv: (kv[1], kv[0]))
    sql = " ".join(sql.split())
    sql = sql if len(sql) <= WHO_CHARS else sql[:WHO_CHARS - 1] + "…"
    where = f" in schema {schema}" if schema else ""
    return (f"{100.0 * top / total:.0f} % of the {CLASS_WORDS.get(wait_class, wait_class)} load is `{sql}` "
            f"from {user or '?'}@{host or '?'}{where}")
