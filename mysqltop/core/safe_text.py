"""The one rule for untrusted text: control characters are shown, never sent to a terminal.

Everything mysqltop prints about other sessions (SQL text, identifiers, user and host names,
deadlock dumps), every recording field and every typed prompt may come from someone hostile. Views
pass such text through `visible()` (one line) or `visible_block()` (keeps newlines and tabs) before
it reaches a terminal, a text file or a Rich/Textual `Text`; C0 and C1 control characters, DEL and
ESC become `\\xNN` escapes, so a title-setting or screen-clearing sequence cannot act.
Markup is a separate concern: views build `Text`/`Content` objects instead of markup strings.
"""

from __future__ import annotations

import json
import math
import re

# C0 controls, DEL, C1 controls, and the Unicode line/paragraph separators and bidi overrides
# that can reorder or break what a terminal shows.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_CONTROL_KEEP_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def visible(text: object) -> str:
    """One line of untrusted text with every control character (newlines too) made visible."""
    s = text if isinstance(text, str) else str(text)
    return _CONTROL.sub(_escape, s)


def visible_block(text: object) -> str:
    """Untrusted text that may span lines: newlines and tabs kept, other controls made visible."""
    s = text if isinstance(text, str) else str(text)
    return _CONTROL_KEEP_LINES.sub(_escape, s)


# What json.dumps(ensure_ascii=False) leaves raw although a terminal may act on it.
_JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _finite(o: object) -> object:
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    return o


def json_text(obj: object, **kw: object) -> str:
    """Strict JSON safe on a terminal: NaN/Infinity become null (never emitted: allow_nan=False),
    every control character is a \\u escape, other text stays readable UTF-8."""
    s = json.dumps(_finite(obj), ensure_ascii=False, allow_nan=False, **kw)  # type: ignore[arg-type]
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", s)
