"""Findings are judged over spans of time: one incident sampled every 0.25 s, 1 s and 10 s gives
the same findings (ids and severities) at the same moments, through the timeline cursor; and a
gallery incident recorded at 1 s, read at every tenth sample, gives the same while it holds.

The samples are generated: the MariaDB lab capture's performance_schema waits and global status
(tests/core/test_advice.py) accumulating at the capture's per-second rates while the incident
runs and a thousand times slower around it, with the history list climbing through it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mysqltop.core.advice import HORIZON_S
from mysqltop.core.rules import RULES
from mysqltop.core.rules.rule_kit import RECENT_S, TREND_S, span_of
from mysqltop.core.sample import RawSample
from mysqltop.recording.reader import RecordingReader
from mysqltop.timeline.cursor import Cursor
from mysqltop.timeline.ring import SampleRing
from tests.core.test_advice import LAB_AS_MYSQL, LAB_PS, LAB_STATUS, LAB_UPTIME, MARIADB_VARS, T0, _scaled

GALLERY = Path(__file__).resolve().parents[2] / "recordings"
ONSET, END, LENGTH = 100.0, 300.0, 400.0
MOMENTS = (50.0, 160.0, 250.0, 300.0, 330.0, 400.0)     # seconds after T0 where findings are compared


def progress(t: float) -> float:
    """Seconds of the capture's load accumulated by time t (slow outside the incident)."""
    calm = 1 / 1000
    if t <= ONSET:
        return t * calm
    if t <= END:
        return ONSET * calm + (t - ONSET)
    return ONSET * calm + (END - ONSET) + (t - END) * calm


def history_length(t: float) -> int:
    """Undo logs not yet purged: flat, then climbing 8,000/s through the incident, then held."""
    return 2_000 + int(8_000 * (min(max(t, ONSET), END) - ONSET))


def sample(t: float) -> RawSample:
    done = progress(t)
    num, den = int(done * 1000), LAB_UPTIME * 1000
    rows = [[r[0], _scaled(r[1], num, den), _scaled(r[2], num, den), *r[3:]] for r in LAB_PS]
    status = {n: _scaled(v, num, den) for n, v in LAB_STATUS.items()}
    status["Uptime"] = str(int(1000 + t))
    status["Innodb_history_list_length"] = str(history_length(t))
    return RawSample(wall=T0 + t, mono=t, server=LAB_AS_MYSQL, ps_waits=rows, global_status=status,
                     variables=MARIADB_VARS)


def findings_by_moment(stride: float) -> dict[float, list[tuple[str, str]]]:
    ring = SampleRing(capacity=int(LENGTH / stride) + 100)
    n = int(round(LENGTH / stride))
    for k in range(n + 1):
        ring.append(sample(k * stride))
    cursor = Cursor(ring)
    out = {}
    for moment in MOMENTS:
        i = cursor.seek(T0 + moment)
        assert cursor.time_at(i) == pytest.approx(T0 + moment)
        out[moment] = sorted((a.id, a.severity) for a in cursor.frame_at(i).advice)
    return out


def test_every_rule_states_its_span_in_seconds() -> None:
    assert all(hasattr(rule, "span_s") and span_of(rule) > 0 for rule in RULES)
    assert span_of(next(r for r in RULES if r.__name__ == "purge_lag")) == TREND_S
    assert HORIZON_S == max(span_of(rule) for rule in RULES) >= max(TREND_S, RECENT_S)


def test_the_same_incident_at_three_intervals_gives_the_same_findings() -> None:
    by_stride = {stride: findings_by_moment(stride) for stride in (0.25, 1.0, 10.0)}
    one_s = by_stride[1.0]
    assert one_s[50.0] == [] and one_s[400.0] == []                    # calm before, cleared after
    assert "table_cache" in {i for i, _ in one_s[160.0]}                 # the latch incident …
    assert "purge_lag" in {i for i, _ in one_s[250.0]}                   # … and the history climbing
    assert ("purge_lag", "critical") in one_s[330.0] and "table_cache" not in {i for i, _ in one_s[330.0]}
    assert by_stride[0.25] == one_s
    assert by_stride[10.0] == one_s



def recorded_findings(path: Path, every: int, moments: range) -> dict[int, list[tuple[str, str]]]:
    """Findings at `moments` (seconds after the first sample) of a 1 s gallery recording, read
    whole or every `every`-th sample (as if recorded at that interval)."""
    with RecordingReader(path) as r:
        ring = SampleRing(capacity=len(r) + 100)
        for i in range(0, len(r), every):
            ring.append(r.sample(i))
        t0 = r.sample(0).wall
    cursor = Cursor(ring)
    return {m: sorted((a.id, a.severity) for a in cursor.frame_at(cursor.seek(t0 + m)).advice) for m in moments}


@pytest.mark.parametrize("name", ["purge-read-view", "ahi-latch", "small-redo-log"])
def test_a_recorded_incident_read_at_10_s_gives_the_findings_of_1_s(name: str) -> None:
    """Real incidents: while the incident holds (a minute after its onset on), the same findings
    whether the recording is read at its 1 s or at every tenth sample (an onset is seen up to a
    coarser sample later or earlier, so the moments compared are past it)."""
    path = GALLERY / f"{name}.mtrec"
    held = range(110, 150, 10)
    at_1s = recorded_findings(path, 1, held)
    assert all(at_1s.values())
    assert recorded_findings(path, 10, held) == at_1s
