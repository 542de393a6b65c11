"""The server's clock: recorded with the sample, read back (null in older recordings), shown
through derive only when it is a plausible time."""

from __future__ import annotations

import dataclasses
import json

import pytest

from mysqltop.commands.demo import find_incident
from mysqltop.core.derive import derive
from mysqltop.core.frame import iso_utc
from mysqltop.core.parsed import parse_sample
from mysqltop.core.sample import RawSample, ServerIdentity
from mysqltop.recording.format import parse_sample_text, sample_text
from mysqltop.recording.reader import RecordingReader
from mysqltop.recording.writer import RecordingWriter

T = 1_795_313_665.25


def test_server_time_round_trips_through_a_recording(tmp_path) -> None:
    path = tmp_path / "clock.mtrec"
    with RecordingWriter(path, interval=1.0) as w:
        for i in range(25):
            w.append(RawSample(wall=T + i, mono=100.0 + i, server=ServerIdentity("10.11.19-MariaDB", "mariadb"),
                               global_status={"Uptime": str(100 + i)}, server_time=T + i - 3600.123456))
    with RecordingReader(path) as r:
        assert [r.sample(i).server_time for i in (0, 1, 24)] == [T - 3600.123456, T + 1 - 3600.123456,
                                                                  T + 24 - 3600.123456]


def test_older_recordings_and_writers_without_it_read_null() -> None:
    path = find_incident()
    if path is None:
        pytest.skip("the demo recording is not in this checkout")
    with RecordingReader(path) as r:
        raw = r.sample(1)
    assert raw.server_time is None
    text = sample_text(raw)
    assert "@server_time none 0" in text
    # a text from before the field (no section at all) parses, and an unknown section is skipped
    old = "\n".join(line for line in text.split("\n") if not line.startswith("@server_time"))
    assert parse_sample_text(old, raw.wall, raw.mono, raw.server, raw.variables).server_time is None
    newer = old + "\n@from_the_future json 1\n[1,2]"
    assert parse_sample_text(newer, raw.wall, raw.mono, raw.server, raw.variables) == dataclasses.replace(
        raw, server_time=None)


@pytest.mark.parametrize("value, shown", [
    (T, T), (int(T), float(int(T))), (None, None), (1e308, None), (-5.0, None), ("12:00", None),
    (True, None), ([T], None), (float("nan"), None)])
def test_derive_shows_only_a_plausible_server_clock(value: object, shown: float | None) -> None:
    raw = RawSample(wall=T, mono=1.0, server_time=value)  # type: ignore[arg-type]
    frame = derive(None, parse_sample(raw))
    assert frame.server.time == shown
    d = json.loads(json.dumps(frame.to_dict()))
    assert d["server"]["time"] == (None if shown is None else iso_utc(shown))
    if shown == T:
        assert d["server"]["time"] == "2026-11-22T02:14:25.250Z"
