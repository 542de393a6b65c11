"""Characters that draw nothing are shown as escapes: `t\\u200b` must not look like `t`."""

from __future__ import annotations

import json
import sys
import unicodedata

from mysqltop.core.safe_text import json_text, visible, visible_block


def test_zero_width_and_format_characters_are_escaped() -> None:
    assert visible("`t\u200b`") == "`t\\u200b`"
    assert visible("a\u00adb\ufeffc\u2060d\u200de") == "a\\xadb\\ufeffc\\u2060d\\u200de"
    assert visible_block("x\u200c\ny") == "x\\u200c\ny"                 # lines kept, the joiner shown
    assert visible("\U000e0041tag") == "\\U000e0041tag"                   # a tag character, beyond the BMP
    assert visible("\u3164") == "\\u3164"                                 # a blank filler letter
    assert visible("ordinary café ✓ 表") == "ordinary café ✓ 表"          # visible text stays as it is


def test_every_format_character_is_escaped() -> None:
    """The list in safe_text covers Unicode's whole Cf category as this Python knows it."""
    missed = [hex(c) for c in range(sys.maxunicode + 1)
              if unicodedata.category(chr(c)) == "Cf" and visible(chr(c)) == chr(c)]
    assert missed == []


def test_json_spells_them_as_escapes_that_read_back_the_same() -> None:
    s = "t\u200b\U000e0041"
    out = json_text({"name": s})
    assert "\u200b" not in out and "\U000e0041" not in out
    assert out == '{"name": "t\\u200b\\udb40\\udc41"}' and json.loads(out) == {"name": s}
