"""A recording that claims 10^12 samples (a row numbered far past the rest): one line, exit 1,
nothing half-written — `report` does not stride over the real samples, `snapshot --replay` does
not step through a trillion missing ones."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mysqltop.errors import UserError
from mysqltop.recording.reader import RecordingReader

ROOT = Path(__file__).resolve().parents[2]
INCIDENT = ROOT / "mysqltop" / "data" / "incident.mtrec"


def _forged(tmp_path: Path, seq: int) -> Path:
    path = tmp_path / "claims.mtrec"
    shutil.copyfile(INCIDENT, path)
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO samples (seq, t, mono, ref, crc, data) "
                 "SELECT ?, t + 1, mono + 1, NULL, crc, data FROM samples WHERE seq = 0", (seq,))
    conn.commit()
    conn.close()
    return path


def test_a_trillion_claimed_samples_is_one_line_and_nothing_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = _forged(tmp_path, 10**12 - 1)
    with pytest.raises(UserError) as exc:
        RecordingReader(path)
    assert exc.value.code == 1 and "\n" not in exc.value.message
    assert "claims 1,000,000,000,000 samples but holds 244" in exc.value.message
    for argv in (["report", str(path)], ["snapshot", "--replay", str(path), "--format", "json"]):
        out = subprocess.run([sys.executable, "-m", "mysqltop", *argv], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 1 and out.stdout == "", (argv, out.stdout[:200])
        assert len(out.stderr.splitlines()) == 1 and "not what it claims" in out.stderr, out.stderr


def test_a_few_missing_numbers_are_damage_not_a_false_claim(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = _forged(tmp_path, 300)               # 243 real ones, then a gap of 57: damage, read around
    with RecordingReader(path) as r:
        assert len(r) == 301
        r.sample(242)
