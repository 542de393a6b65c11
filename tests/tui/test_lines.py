"""The Lines body widget: a list whose length wanders keeps one height (no layout pass of the
whole screen every time it grows by a row), and gives the room back once it has stayed short."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import ScrollableContainer

from mysqltop.views.tui.widgets.lines import HOLD, Lines

from .conftest import pilot

VIEWPORT = 10


class OneList(App[None]):
    CSS = "ScrollableContainer { height: %d; }" % VIEWPORT

    def __init__(self) -> None:
        super().__init__()
        self.body = Lines()

    def compose(self) -> ComposeResult:
        with ScrollableContainer():
            yield self.body


def rows(n: int) -> list[Text]:
    return [Text(f"row {i}") for i in range(n)]


@pilot
async def test_a_wandering_list_is_laid_out_once_and_shrinks_when_it_stays_short() -> None:
    app = OneList()
    async with app.run_test(size=(40, 20)) as pilot:
        heights = []
        for n in (3, 12, 14, 13, 15, 12, 14, 11):
            app.body.set_lines(rows(n), viewport=VIEWPORT)
            await pilot.pause()
            heights.append(app.body.size.height)
            assert app.body.plain.count("\n") == n - 1
        # the viewport while it fits; then room for a quarter more than the longest so far
        assert heights == [10, 16, 16, 16, 16, 16, 16, 16]
        for _ in range(HOLD):
            app.body.set_lines(rows(4), viewport=VIEWPORT)
        await pilot.pause()
        assert app.body.size.height == VIEWPORT
        app.body.set_lines(rows(40), viewport=VIEWPORT)
        await pilot.pause()
        assert app.body.size.height == 51
