"""The envelope of a status text: unwrap, header, section split, END marker.

    =====================================
    2026-11-22 01:22:30 0x77902c6836c0 INNODB MONITOR OUTPUT      ← header (time, thread)
    =====================================
    Per second averages calculated from the last 18 seconds      ← preamble
    -----------------
    BACKGROUND THREAD                                            ← a title framed by dashes
    -----------------
    …
    ----------------------------
    END OF INNODB MONITOR OUTPUT                                 ← absent → truncated
    ============================

Anything before the header (the `\\G` wrapper "*** 1. row ***", "Type: InnoDB", a "mysql>" prompt)
is ignored; anything after the END marker too ("1 row in set").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .atoms import HEADER_RE, normalise_time

END_TITLE = "END OF INNODB MONITOR OUTPUT"
_MARK = "INNODB MONITOR OUTPUT"

# A section title framed by dashed lines (the closing one is '=' after END OF …):
#   ----------------------\nBUFFER POOL AND MEMORY\n----------------------
# Starts with a literal "\n-" so the regex engine scans with its fast literal search.
TITLE_RE = re.compile(
    r"\n-{3,}[ \t]*\n([A-Z][A-Z0-9 /&(),._:-]*[A-Z0-9)])[ \t]*\n[-=]{3,}[ \t]*(?=\n|$)"
)

# Per second averages calculated from the last 18 seconds
AVERAGES_RE = re.compile(r"Per second averages calculated from the last (\d+) seconds")

# Lines of the mysql client's \G wrapper, ignored when no header was found:
#   *************************** 1. row ***************************
#     Type: InnoDB
#   mysql> SHOW ENGINE INNODB STATUS\G
_WRAPPER_PREFIXES = ("***", "Type:", "Name:", "Status:", "mysql>", "Type ", "InnoDB")


@dataclass
class Envelope:
    time: str | None = None
    thread: str | None = None
    old_header: bool = False                 # yymmdd header (≤ 5.5)
    averaging_s: int | None = None
    ended: bool = False
    sections: list[tuple[str, str]] = field(default_factory=list)   # (title, body)
    unknown: list[str] = field(default_factory=list)                # preamble lines not understood


def unwrap(text: str) -> str:
    """Normalise line ends and undo the escaped one-line form (`mysql -e`/`-B`: literal \\n)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\\n" in text and text.count("\\n") > text.count("\n"):
        text = text.replace("\\n", "\n").replace("\\t", "\t")
    return text


def split(text: str) -> Envelope:
    env = Envelope()
    start = _header(text, env)
    body = "\n" + text[start:]
    title: str | None = None
    body_start = 0
    for m in TITLE_RE.finditer(body):
        if title is None:
            _preamble(body[: m.start()], env, header_seen=start > 0)
        else:
            env.sections.append((title, body[body_start : m.start()]))
        title, body_start = m[1], m.end()
        if title == END_TITLE:
            env.ended = True
            return env
    if title is None:
        _preamble(body, env, header_seen=start > 0)
    else:
        env.sections.append((title, body[body_start:]))
    return env


def _header(text: str, env: Envelope) -> int:
    """Fill time/thread from the header line; return where the text after it starts (0: none)."""
    i = text.find(_MARK)
    if i < 0 or text.endswith("END OF ", 0, i):
        return 0
    line_start = text.rfind("\n", 0, i) + 1
    m = HEADER_RE.search(text, line_start, i + len(_MARK))
    if m is None:
        return 0
    env.time = normalise_time(m["date"], m["clock"])
    env.thread = m["thread"]
    env.old_header = len(m["date"]) == 6
    line_end = text.find("\n", i)
    return len(text) if line_end < 0 else line_end + 1


def _preamble(chunk: str, env: Envelope, header_seen: bool) -> None:
    for raw in chunk.split("\n"):
        line = raw.strip()
        if not line or line.strip("=-") == "":
            continue
        m = AVERAGES_RE.match(line)
        if m:
            env.averaging_s = int(m[1])
        elif header_seen or not line.startswith(_WRAPPER_PREFIXES):
            env.unknown.append(line)
