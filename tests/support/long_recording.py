"""An hour at 1 s from a gallery recording: its samples played again and again, every counter
advanced by its rise over the recording at each repeat, so rates stay continuous (no restart, no
counter going back) and each repeat brings its incident again — stalls, findings, bookmarks.

    path = write_long(tmp_path / "hour.mtrec", seconds=3600)

A counter is a number in a line of the sample's recorded text (recording/format.sample_text) that
never falls over the source and rises in at least 5 % of its steps (status counters, P_S wait
counts and timers, LSNs, host CPU times, Uptime); gauges repeat as they were.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from mysqltop.recording.format import parse_sample_text, sample_text
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter

GALLERY = Path(__file__).resolve().parents[2] / "recordings"
NUM = re.compile(r"(?<![0-9.])(0|[1-9][0-9]{0,17})(?![0-9.])")
RISING = 0.05

Key = tuple[str, int]           # (the line with its numbers taken out, which number)


def _skeleton(line: str) -> tuple[str, list[int]]:
    nums = [int(m) for m in NUM.findall(line)]
    return NUM.sub("\x01", line), nums


def counters(texts: list[str]) -> dict[Key, int]:
    """Counter positions and their increase per repeat (the rise over the texts plus one step)."""
    seen: dict[str, list[list[int] | None]] = {}
    repeated: set[str] = set()
    for i, text in enumerate(texts):
        here: set[str] = set()
        for line in text.split("\n"):
            skel, nums = _skeleton(line)
            if not nums or line.startswith("@"):
                continue
            if skel in here:
                repeated.add(skel)            # transactions, lock rows: not one counter per line
            here.add(skel)
            seen.setdefault(skel, [None] * len(texts))[i] = nums
    out: dict[Key, int] = {}
    n = len(texts)
    for skel, series in seen.items():
        if skel in repeated or any(s is None for s in series) or len({len(s or []) for s in series}) != 1:
            continue
        for j in range(len(series[0] or [])):
            vals = [s[j] for s in series if s is not None]
            steps = [b - a for a, b in zip(vals, vals[1:])]
            if steps and min(steps) >= 0 and sum(1 for d in steps if d > 0) >= RISING * len(steps):
                out[(skel, j)] = round((vals[-1] - vals[0]) * n / (n - 1))
    return out


def advance(text: str, inc: dict[Key, int], times: int) -> str:
    if not times:
        return text
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if line.startswith("@"):
            continue
        skel, nums = _skeleton(line)
        if not nums or not any((skel, j) in inc for j in range(len(nums))):
            continue
        moved = iter([v + inc.get((skel, j), 0) * times for j, v in enumerate(nums)])
        lines[k] = NUM.sub(lambda _m: str(next(moved)), line)
    return "\n".join(lines)


def write_long(path: Path, seconds: int = 3600, source: str = "row-lock-idle-trx") -> Path:
    with RecordingReader(GALLERY / f"{source}.mtrec") as r:
        samples = [r.sample(i) for i in range(len(r))]
        marks = {b.index: b for b in r.bookmarks}
        interval = r.meta.interval or 1.0
    texts = [sample_text(s) for s in samples]
    inc = counters(texts)
    period = len(samples)
    t0, m0 = samples[0].wall, samples[0].mono
    with RecordingWriter(path, interval=interval) as w:
        for i in range(int(seconds / interval)):
            k, rep = i % period, i // period
            s = samples[k]
            raw = parse_sample_text(advance(texts[k], inc, rep), t0 + i * interval, m0 + i * interval,
                                    s.server, s.variables)
            w.append(dataclasses.replace(raw, wall=t0 + i * interval, mono=m0 + i * interval))
            if k in marks:
                w.bookmark(raw.wall, marks[k].trigger, marks[k].value, marks[k].note)
    return path


def cached_long(seconds: int = 3600, source: str = "row-lock-idle-trx", rebuild: bool = False) -> Path:
    """write_long's recording, kept in the temporary directory by the hash of what makes it (the
    benches' hour: built once, ~30 s)."""
    import hashlib
    import os
    import tempfile

    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha1((GALLERY / f"{source}.mtrec").read_bytes())
    for name in ("tests/support/long_recording.py", "mysqltop/recording/codec.py", "mysqltop/recording/format.py"):
        h.update((root / name).read_bytes())
    h.update(f"{seconds}".encode())
    path = Path(tempfile.gettempdir()) / f"mysqltop-bench-{source}-{seconds}s-{h.hexdigest()[:12]}.mtrec"
    if rebuild or not path.exists():
        tmp = path.with_name(path.name + ".tmp")
        tmp.unlink(missing_ok=True)
        write_long(tmp, seconds=seconds, source=source)
        os.replace(tmp, path)
    return path
