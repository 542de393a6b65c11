"""Number formatting shared by the TUI and the headless formats.

Compact and bounded: a formatted number is at most 5 characters before its unit ("1.2k",
"123M", "0.33", "-45"), so a view never has to cut one; `fit` refuses (shows '#') instead of
truncating when a column is still too narrow. None is shown as NA ("-").
Bytes use 1024 steps with the KB/MB/GB labels MySQL tools print.
"""

from __future__ import annotations

import math

NA = "-"
_SI = ("", "k", "M", "G", "T", "P", "E")
_BYTES = ("B", "KB", "MB", "GB", "TB", "PB", "EB")


def _scaled(x: float, step: float, labels: tuple[str, ...], sep: str) -> str:
    """|x| ≥ step: one decimal below 10 of a unit, none above; re-scaled when rounding hits step."""
    sign = "-" if x < 0 else ""
    v = abs(x)
    i = 0
    while v >= step and i < len(labels) - 1:
        v /= step
        i += 1
    text = f"{v:.1f}" if v < 9.95 else f"{v:.0f}"
    if float(text) >= step and i < len(labels) - 1:     # 999.7k rounds to "1000" → "1.0M"
        v /= step
        i += 1
        text = f"{v:.1f}"
    return f"{sign}{text}{sep}{labels[i]}"


def num(x: float | None) -> str:
    """12 → '12', 0.333 → '0.33', 3.14 → '3.1', 33.6 → '34', 1234 → '1.2k', 45678 → '46k'."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return NA
    if isinstance(x, int) and not -1e300 < x < 1e300:    # no counter is this big: not a value
        return NA
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    v = abs(x)
    if v >= 999.5:
        return _scaled(x, 1000.0, _SI, "")
    if x == int(x) and v >= 1 or x == 0:
        return str(int(x))
    if v < 0.005:
        return "<0.01" if x > 0 else ">-0.01"
    if v < 0.995:                       # 0.9996 → '1.0', not '1.00'
        return f"{x:.2f}"
    if v < 9.95:
        return f"{x:.1f}"
    return f"{x:.0f}"


def rate(x: float | None, unit: str = "/s") -> str:
    """A per-second rate: '1.2k/s'."""
    return NA if x is None else num(x) + unit


def bytes_(n: float | None) -> str:
    """512 → '512 B', 3_565_158 → '3.4 MB'."""
    if n is None:
        return NA
    if abs(n) < 1023.5:
        return f"{n:.0f} B"
    return _scaled(n, 1024.0, _BYTES, " ")


def bytes_rate(n: float | None) -> str:
    """'3.4 MB/s'."""
    return NA if n is None else bytes_(n) + "/s"


def pct(x: float | None) -> str:
    """A percentage already in 0..100: 0.04 → '0.04%', 4.56 → '4.6%', 45.6 → '46%'."""
    if x is None:
        return NA
    v = abs(x)
    if x == 0:
        return "0%"
    if v < 0.005:
        return "<0.01%"
    if v < 0.995:
        return f"{x:.2f}%"
    if v < 9.95:
        return f"{x:.1f}%"
    return f"{x:.0f}%"


def share(x: float | None) -> str:
    """A 0..1 fraction as a percentage: 0.634 → '63%'."""
    return NA if x is None else pct(x * 100.0)


def ms(x: float | None) -> str:
    """Milliseconds: '160ms', '1.6kms' is avoided by switching to seconds: 1600 → '1.6s'."""
    if x is None:
        return NA
    if abs(x) >= 999.5:
        return num(x / 1000.0) + "s"
    return num(x) + "ms"


def duration(seconds: float | None) -> str:
    """0.25 → '250ms', 7.5 → '7.5s', 45 → '45s', 303 → '5m03s', 7500 → '2h05m', 273600 → '3d04h'."""
    if seconds is None:
        return NA
    if seconds < 0:
        return "-" + duration(-seconds)
    if seconds < 0.9995:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 59.5:
        return f"{seconds:.1f}s" if seconds < 9.95 else f"{seconds:.0f}s"
    s = int(round(seconds))
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def fit(text: str, width: int) -> str:
    """Right-align in `width`; a value that still does not fit becomes '#'·width, never a cut number."""
    return text.rjust(width) if len(text) <= width else "#" * width
