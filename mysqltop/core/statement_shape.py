"""A statement's shape: its text with the values taken out, so the same query with other values
groups as one ("UPDATE t SET v=v+? WHERE id=?"). Raw text in, raw text out: views still pass it
through safe_text before a terminal.
"""

from __future__ import annotations

import re

MAX_SHAPE = 160        # characters kept: enough to tell statements apart, short enough for a line

_COMMENT = re.compile(r"/\*.*?\*/|--[^\n]*|#[^\n]*", re.S)
_STRING = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"", re.S)
# A number outside a `quoted identifier` (the identifier is matched first and kept).
_NUMBER = re.compile(r"(`[^`]*`)|(?<![\w.`])[-+]?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w`])")
_LIST = re.compile(r"\(\s*\?(?:\s*,\s*\?)+\s*\)")
# A list the server's cut ended inside ("IN (?, ?, ?, ?"): as many values as the cut left, so
# the same statement would otherwise group as several shapes.
_CUT_LIST = re.compile(r"\(\s*\?(?:\s*,\s*\?)*\s*,?\s*$")
_VALUES = re.compile(r"(VALUES\s*)\(\?\)(?:\s*,\s*\(\?\))+", re.I)
_SPACE = re.compile(r"\s+")


def shape(sql: str | None) -> str | None:
    """'UPDATE t SET v=v+10 WHERE id IN (1, 2)' → 'UPDATE t SET v=v+? WHERE id IN (?)'."""
    if not sql:
        return None
    s = _COMMENT.sub(" ", sql[:4096])
    s = _STRING.sub("?", s)
    s = _NUMBER.sub(lambda m: m[1] or "?", s)
    s = _LIST.sub("(?)", s)
    s = _CUT_LIST.sub("(?…", s)
    s = _VALUES.sub(r"\1(?)", s)
    s = _SPACE.sub(" ", s).strip().rstrip(";").strip()
    return s[:MAX_SHAPE] or None
