"""Characters that draw nothing are shown as escapes: `t\\u200b` must not look like `t`."""

from __future__ import annotations

import json
import sys
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

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


# Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt, 15.1): characters a
# renderer without support for them draws as nothing.
DEFAULT_IGNORABLE = [(0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF)]


def _draws_as_nothing_or_another(c: int) -> bool:
    ch = chr(c)
    return (any(lo <= c <= hi for lo, hi in DEFAULT_IGNORABLE) or c == 0x2800
            or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") or (unicodedata.category(ch) == "Zs" and ch != " "))


def test_variation_selectors_and_the_braille_blank_are_escaped() -> None:
    assert visible("app\ufe0f") == "app\\ufe0f" != visible("app")
    assert visible("app\U000e0100") == "app\\U000e0100"
    assert visible("a\u2800b") == "a\\u2800b"
    assert visible("a\u00a0b\u3000c") == "a\\xa0b\\u3000c"            # spaces that look like U+0020
    assert visible("a b") == "a b"


def test_every_default_ignorable_space_and_blank_is_escaped() -> None:
    missed = [hex(c) for c in range(sys.maxunicode + 1)
              if _draws_as_nothing_or_another(c) and c not in (0x09, 0x0A) and visible(chr(c)) == chr(c)]
    assert missed == []
    kept = [hex(c) for c in range(sys.maxunicode + 1) if _draws_as_nothing_or_another(c)
            and c not in (0x09, 0x0A) and visible_block(chr(c)) == chr(c)]
    assert kept == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_no_invisible_character_survives_and_escapes_tell_strings_apart(s: str) -> None:
    out = visible(s)
    assert not any(_draws_as_nothing_or_another(ord(ch)) for ch in out)
    # two names that differ only by an invisible character never draw alike
    for i, ch in enumerate(s):
        if _draws_as_nothing_or_another(ord(ch)):
            assert visible(s[:i] + s[i + 1:]) != out
    # the JSON form says the same text back and holds none of them raw
    js = json_text(s)
    assert json.loads(js) == s
    assert not any(_draws_as_nothing_or_another(ord(ch)) for ch in js)
