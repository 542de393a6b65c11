"""How far a recording that another process is writing has got."""

from __future__ import annotations

from pathlib import Path

from mysqltop.recording.reader import RecordingReader


def samples_in(path: Path) -> int:
    """Samples readable now; 0 while the file is not there or not yet a recording."""
    try:
        with RecordingReader(path) as r:
            return len(r)
    except Exception:  # noqa: BLE001 - not created yet
        return 0
