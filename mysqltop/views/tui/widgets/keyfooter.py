"""The key bar: Textual's Footer, recomposed only when the keys it shows change.

Footer rebuilds all its key widgets whenever the screen's bindings are updated — on every return
from the help or go-to screen, on focus changes — although the keys are the same. On a busy box
that rebuild was about half the CPU a `?` / esc took, so a key waited for it.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple[tuple[Any, ...], ...] | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        keys = tuple((b.key, b.description, b.action, enabled, tooltip)
                     for _, b, enabled, tooltip in screen.active_bindings.values() if b.show)
        if keys == self._shown and self._bindings_ready:
            return
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._shown = keys           # what the recompose below will show
        super().bindings_changed(screen)
