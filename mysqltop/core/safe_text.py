"""The one rule for untrusted text: control characters are shown, never sent to a terminal.

Everything mysqltop prints about other sessions (SQL text, identifiers, user and host names,
deadlock dumps), every recording field and every typed prompt may come from someone hostile. Views
pass such text through `visible()` (one line) or `visible_block()` (keeps newlines and tabs) before
it reaches a terminal, a text file or a Rich/Textual `Text`; C0 and C1 control characters, DEL and
ESC become `\\xNN` escapes, so a title-setting or screen-clearing sequence cannot act.
Markup is a separate concern: views build `Text`/`Content` objects instead of markup strings.
"""

from __future__ import annotations

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
