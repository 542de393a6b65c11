"""An imported pt-stalk collection replays in the TUI like any recording: the blocking tree
its -transactions and -processlist loop pages hold."""

from __future__ import annotations

from pathlib import Path

from mysqltop.cli import main
from mysqltop.recording.reader import RecordingReader

from .conftest import pilot, replay_app, screen_text, wait_for

COLLECTION = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "pt-stalk" / "mariadb-10.11-pt-stalk-3.2.1"


@pilot
async def test_imported_collection_replays_with_its_lock_tree(tmp_path: Path) -> None:
    out = tmp_path / "stalk.mtrec"
    assert main(["import", str(COLLECTION), "-o", str(out)]) == 0
    with RecordingReader(out) as r:
        raws = [r.sample(i) for i in range(len(r))]
        marks = [(b.time, b.note or "") for b in r.bookmarks]
    app = replay_app(raws, start=3, bookmarks=marks)
    async with app.run_test(size=(140, 44)) as pilot:
        await wait_for(pilot, lambda: app.position.index == 3 and app.frame is not None)
        text = screen_text(app)
        # the collection's moment: a transaction 0 s old with waits of 0 s, which may be one of a
        # queue passing a row along: the blocker is shown, a KILL not offered yet
        assert "hottest blocker: thread 11, no KILL yet" in text and "idle in transaction" in text
        assert "REPLAY" in text
