"""Round trip: a window of a recording mysqltop made live, written out as the pt-stalk collection
of the same moments (tests/support/ptstalk_export.py), imported back: the frames agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from mysqltop.cli import main
from mysqltop.core.frame import Frame
from mysqltop.timeline.polled import PolledTimeline
from mysqltop.recording.reader import RecordingReader
from tests.support.ptstalk_export import write_collection

GALLERY = Path(__file__).resolve().parents[1] / "recordings"
CASES = [n for n in ("row-lock-idle-trx", "small-redo-log") if (GALLERY / f"{n}.mtrec").is_file()]
WINDOW = 40


def _frames(path: Path, lo: int, hi: int) -> list[Frame]:
    pipe = PolledTimeline()
    with RecordingReader(path) as r:
        return [pipe.push(r.sample(i)) for i in range(lo, min(hi, len(r)))]


def _counted(f: Frame, rate: float | None) -> float | None:
    return None if rate is None or f.elapsed is None else rate * f.elapsed


@pytest.mark.parametrize("name", CASES)
def test_recorded_window_exported_as_pt_stalk_and_imported_agrees(name: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = GALLERY / f"{name}.mtrec"
    with RecordingReader(path) as r:
        onset = r.bookmarks[0].index
        lo = max(0, onset - WINDOW // 2)
        samples = [r.sample(i) for i in range(lo, min(len(r), lo + WINDOW))]
    prefix = write_collection(samples, tmp_path / "c", utc_offset_s=3600)
    out = tmp_path / "back.mtrec"
    assert main(["import", str(tmp_path / "c"), "-o", str(out)]) == 0, capsys.readouterr().err
    orig = _frames(path, lo, lo + WINDOW)
    back = _frames(out, 0, 10**6)
    # one counter sample per recorded sample, in order (mysqladmin tables carry no time: the
    # import places them on the -i grid checked against Uptime, so a jittery poll lands ±1 s off)
    assert len(back) >= len(orig)
    same_locks = 0
    for f, g in zip(orig[1:], back[1:]):
        for attr in ("tps", "commits_per_s", "rows_changed_per_s", "write_trx_per_s"):
            a = _counted(f, getattr(f.throughput, attr))
            b = _counted(g, getattr(g.throughput, attr))
            assert a == pytest.approx(b, rel=1e-6, abs=1e-6), (attr, f.time)
        # live mode takes its own poll statements out of Questions; a collection cannot tell them
        a, b = _counted(f, f.throughput.qps), _counted(g, g.throughput.qps)
        assert a is not None and b is not None and 0 <= b - a <= 12
        assert g.throughput.threads_running == f.throughput.threads_running
        assert g.locks.row_lock_current_waits == f.locks.row_lock_current_waits
        # loop pages (TS-timed) join the counter sample nearest their time
        if ([(b.thread_id, b.blocked) for b in g.blocking] == [(b.thread_id, b.blocked) for b in f.blocking]
                and {s.thread_id for s in g.sessions} >= {s.thread_id for s in f.sessions}):
            same_locks += 1
    assert same_locks >= 0.75 * (len(orig) - 1), f"{same_locks} of {len(orig) - 1} frames with the same lock tree"
    assert prefix and any(f.flush.history_list_length is not None for f in back)

    def avg_user(frames: list[Frame]) -> float:
        vals = [f.host.cpu_user_pct for f in frames if f.host is not None and f.host.cpu_user_pct is not None]
        return sum(vals) / len(vals)
    assert avg_user(back) == pytest.approx(avg_user(orig[1:]), abs=5.0)
    statuses = [f for f in back if f.flush.history_list_length is not None]
    assert statuses and prefix
