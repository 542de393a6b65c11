"""A server with default instruments (performance_schema OFF, as MariaDB ships): the setup notes
take one line each, and the key `i` opens the rest, so a finding about sessions — a read view
holding purge back, with its KILL — stays in sight at 160×48."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mysqltop.recording.reader import RecordingReader
from mysqltop.core.sample import RawSample

from .conftest import pilot, replay_app, screen_text, wait_for

RECORDING = Path(__file__).resolve().parents[2] / "recordings" / "purge-read-view.mtrec"


def default_instruments() -> list[RawSample]:
    """The bundled purge incident as a server with performance_schema OFF would have given it."""
    reader = RecordingReader(str(RECORDING))
    try:
        out = []
        for i in range(len(reader)):
            s = reader.sample(i)
            out.append(dataclasses.replace(s, ps_waits=None, variables={**(s.variables or {}),
                                                                       "performance_schema": "OFF"}))
        return out
    finally:
        reader.close()


@pilot
async def test_the_purge_kill_shows_at_160x48_with_default_instruments() -> None:
    samples = default_instruments()
    app = replay_app(samples, start=len(samples) - 1)
    async with app.run_test(size=(160, 48)) as p:
        await wait_for(p, lambda: app.frame is not None and any(a.id == "purge_lag" for a in app.frame.advice))
        assert any(a.id == "synch_instruments_off" for a in app.frame.advice)
        await p.pause(0.2)
        screen = screen_text(app)
        assert "Purge is held back by an old transaction" in screen, screen
        assert "KILL " in screen, screen
        # the setup note is there, on one line, with the key for the rest
        assert "instruments are off" in screen.lower() or "performance_schema is OFF" in screen, screen
        await p.press("i")
        await wait_for(p, lambda: app.screen.id == "setup-notes")
        notes = screen_text(app)
        assert "performance_schema" in notes and "[mysqld]" in notes, notes
        await p.press("escape")
        await wait_for(p, lambda: app.screen is app.main_screen)


def test_a_session_finding_comes_before_a_more_severe_setup_finding() -> None:
    """An early purge hint (info) with its KILL, beside instruments off (warning): the hint first,
    whole; the setup finding after it, on one line."""
    from mysqltop.core.frame import Advice, Frame
    from mysqltop.views.tui.widgets.advice_pane import AdvicePane

    setup = Advice("synch_instruments_off", "warning", "Latch wait instruments are off — " + "x; " * 200, "e" * 300)
    hint = Advice("purge_early", "info", "Early hint — purge is starting to fall behind: thread 9 — KILL 9 or "
                  "commit it", "history list 200 → 5,000")
    lines = AdvicePane(6).body(Frame(time=1.0, advice=[setup, hint]), [], 160).plain.split("\n")
    assert "KILL 9" in lines[0] and lines[1].strip().startswith("history list")
    assert lines[2].startswith("!  Latch wait instruments are off") and len(lines) == 3
    assert len(lines[2]) <= 160 and lines[2].endswith("… i: the rest")
