"""Every counter rate over generated histories: polls at irregular intervals, counters that jump
(a long wait ending in one poll), FLUSH STATUS resets, server restarts (Uptime backwards). No rate
is negative or undefined; a reset or restart gives None, never a guess; over the intervals that
have a rate, Σ rate × Δt is exactly what the counter moved (a report's total is the sum of its
parts); the row-lock wait rate never exceeds 1000 ms/s per session that could wait."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mysqltop.core.derive import derive
from mysqltop.core.pressure_signals import PRESSURE_RATES
from mysqltop.core.parsed import ParsedSample, parse_sample
from mysqltop.core.report_builder import build_report
from mysqltop.core.sample import RawSample

COUNTERS = (*(name for name, _ in PRESSURE_RATES), "Innodb_row_lock_waits", "Innodb_row_lock_time",
            "Innodb_deadlocks", "Com_commit", "Questions")
FIELD = {**{name: ("pressure", attr) for name, attr in PRESSURE_RATES},
         "Innodb_row_lock_waits": ("locks", "row_lock_waits_per_s"), "Innodb_deadlocks": ("locks", "deadlocks_per_s")}


@st.composite
def histories(draw: st.DrawFn) -> list[tuple[float, dict[str, str]]]:
    n = draw(st.integers(3, 40))
    mono, uptime = 0.0, 1000.0
    values = dict.fromkeys(COUNTERS, 0)
    out = []
    for _ in range(n):
        dt = draw(st.sampled_from((0.25, 1.0, 1.0, 2.5, 10.0)))
        mono += dt
        uptime += dt
        event = draw(st.sampled_from(("steady",) * 6 + ("jump", "reset", "restart")))
        if event == "restart":
            uptime = dt
            values = dict.fromkeys(COUNTERS, 0)
        elif event == "reset":
            values = {k: 0 for k in values}
        for k in COUNTERS:
            step = draw(st.integers(0, 50))
            values[k] += step * 1000 if event == "jump" else step
        sessions = draw(st.integers(1, 30))
        waiting = draw(st.integers(0, sessions - 1))
        status = {k: str(v) for k, v in values.items()}
        status.update(Uptime=str(int(uptime)), Threads_connected=str(sessions),
                      Innodb_row_lock_current_waits=str(waiting))
        out.append((mono, status))
    return out


def samples(history: list[tuple[float, dict[str, str]]]) -> list[ParsedSample]:
    return [parse_sample(RawSample(wall=1_790_000_000.0 + mono, mono=mono, global_status=status))
            for mono, status in history]


@settings(max_examples=200, deadline=None)
@given(histories())
def test_rates_are_bounded_and_add_up_to_what_the_counters_moved(history: list[tuple[float, dict[str, str]]]) -> None:
    parsed = samples(history)
    frames = [derive(None, parsed[0])] + [derive(a, b) for a, b in zip(parsed, parsed[1:])]
    moved: dict[str, float] = dict.fromkeys(FIELD, 0.0)
    summed: dict[str, float] = dict.fromkeys(FIELD, 0.0)
    for prev, cur, frame in zip(parsed, parsed[1:], frames[1:]):
        for counter, (group, attr) in FIELD.items():
            r: Any = getattr(getattr(frame, group), attr)
            before, after = prev.stat(counter), cur.stat(counter)
            restarted = (cur.stat("Uptime") or 0) < (prev.stat("Uptime") or 0)
            if restarted or after is None or before is None or after < before:
                assert r is None, (counter, r)                     # a reset is no rate, never a guess
                continue
            assert r is not None and math.isfinite(r) and r >= 0
            moved[counter] += after - before
            summed[counter] += r * (frame.elapsed or 0.0)
        ms = frame.locks.row_lock_wait_ms_per_s
        could = max(int(prev.stat("Threads_connected") or 0), int(cur.stat("Threads_connected") or 0)) - 1
        assert ms is None or 0.0 <= ms <= 1000.0 * max(could, 0) + 1e-6
    for counter in FIELD:
        assert math.isclose(summed[counter], moved[counter], rel_tol=1e-9, abs_tol=1e-6), counter
    # the report's time-weighted averages are the same account: avg × seconds = the sum of the parts
    report = build_report(frames)
    parts = [(f.locks.row_lock_wait_ms_per_s, f.elapsed) for f in frames
             if f.locks.row_lock_wait_ms_per_s is not None and f.elapsed]
    stat = report.locks["row_lock_wait_ms_per_s"]
    if parts:
        seconds = sum(dt for _, dt in parts)
        assert stat.avg is not None
        assert math.isclose(stat.avg * seconds, sum(v * dt for v, dt in parts), rel_tol=1e-9, abs_tol=1e-6)
