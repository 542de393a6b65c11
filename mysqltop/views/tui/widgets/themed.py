"""Widgets that draw with a Palette read from their stylesheet component classes."""

from __future__ import annotations

from typing import Callable

from textual.widget import Widget

from mysqltop.views.tui.widgets.render import Palette


def component_classes(prefix: str) -> set[str]:
    """The component classes (`<prefix>--hot` …) a widget declares to be given a Palette."""
    return {f"{prefix}--{name}" for name in Palette.NAMES}


def follow_theme(widget: Widget, prefix: str, apply: Callable[[Palette], None]) -> None:
    """Give `apply` the widget's palette now and again after every theme change (call on mount)."""
    def load() -> None:
        apply(Palette(**{name: widget.get_component_rich_style(f"{prefix}--{name}", partial=True)
                         for name in Palette.NAMES}))

    def theme_changed() -> None:
        # after the refresh: the new theme's styles are applied to the component classes by then
        widget.call_after_refresh(load)

    load()
    widget.watch(widget.app, "theme", theme_changed, init=False)
