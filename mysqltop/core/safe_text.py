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

# Characters that draw nothing or as another: every Unicode format character (category Cf: soft
# hyphen, zero-width space/joiners, word joiner, BOM, bidi marks and overrides, tags …), every
# Default_Ignorable_Code_Point (variation selectors U+FE00–FE0F and U+E0100–E01EF, Hangul fillers,
# the whole U+E0000–E0FFF block, reserved ones included), the braille blank U+2800 and every space
# but U+0020 (no-break, en, em, ideographic …: they draw as a plain space). In an identifier they
# make `app\ufe0f` or `t\u200b` look like `app` or `t`.
_INVISIBLE = ("\u00a0\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u1680"
              "\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u202a-\u202f\u205f-\u206f\u2800\u3000\u3164"
              "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
              "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
# C0 controls, DEL, C1 controls, the Unicode line/paragraph separators, and the invisible ones
# (bidi overrides among them) that can hide, reorder or break what a terminal shows.
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_INVISIBLE}]")
_CONTROL_KEEP_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029{_INVISIBLE}]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" if c < 0x10000 else f"\\U{c:08x}"


def visible(text: object) -> str:
    """One line of untrusted text with every control character (newlines too) made visible."""
    s = text if isinstance(text, str) else str(text)
    return _CONTROL.sub(_escape, s)


def visible_block(text: object) -> str:
    """Untrusted text that may span lines: newlines and tabs kept, other controls made visible."""
    s = text if isinstance(text, str) else str(text)
    return _CONTROL_KEEP_LINES.sub(_escape, s)


# What json.dumps(ensure_ascii=False) leaves raw although a terminal may act on it.
_JSON_RAW = re.compile(f"[\x7f-\x9f\u2028\u2029{_INVISIBLE}]")


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
    return _JSON_RAW.sub(_json_escape, s)


def _json_escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    if c < 0x10000:
        return f"\\u{c:04x}"
    c -= 0x10000                  # JSON spells a character beyond the BMP as a surrogate pair
    return f"\\u{0xd800 + (c >> 10):04x}\\u{0xdc00 + (c & 0x3ff):04x}"
