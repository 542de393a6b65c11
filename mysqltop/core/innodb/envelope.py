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
from .line_rules import MAX_LINES

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
    unread: int = 0                                                 # preamble lines past MAX_LINES
    # free-text titles that open a section more than once where statements are printed: all but
    # one of them are statement text, and the text alone cannot tell which
    doubtful: set[str] = field(default_factory=set)


def unwrap(text: str) -> str:
    """Normalise line ends and undo the escaped one-line form (`mysql -e`/`-B`: literal \\n)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    # the escaped form is one line (plus the client's column header); a status with real
    # lines is never re-split at a '\\n' a statement printed
    if "\\n" in text and text.count("\n") < 4 and text.count("\\n") > text.count("\n"):
        text = text.replace("\\n", "\n").replace("\\t", "\t")
    return text


# The order the server prints sections in. XtraDB/Percona 5.x moves the sections that carry
# statement text (FREE_TEXT) after ROW OPERATIONS; the rank of the others never changes.
ORDER = {
    title: rank for rank, title in enumerate((
        "BACKGROUND THREAD", "SEMAPHORES", "RW-LATCH INFO",
        "LATEST FOREIGN KEY ERROR", "LATEST DETECTED DEADLOCK", "TRANSACTIONS",
        "FILE I/O", "INSERT BUFFER AND ADAPTIVE HASH INDEX", "LOG", "BUFFER POOL AND MEMORY",
        "INDIVIDUAL BUFFER POOL INFO", "ROW OPERATIONS", END_TITLE,
    ))
}
# Sections that print statement text, record dumps and user names written by other sessions.
FREE_TEXT = ("LATEST FOREIGN KEY ERROR", "LATEST DETECTED DEADLOCK", "TRANSACTIONS")


def split(text: str) -> Envelope:
    """Cut the text at the section titles the server wrote, never at one a statement printed.

    A statement can print any line, a framed title included, so a title is trusted only where
    no statement text can precede it: every title up to the first free-text section (reading
    down from the header), and the chain of fixed sections read up from the END marker (ranks
    falling, each title once). Between the two, free-text sections are taken in their order,
    the first of each, and TRANSACTIONS only where its "Trx id counter" line follows; any
    other title there is statement text and stays inside the section that printed it.

    A statement can also print the open section's own title (a deadlock statement printing a
    whole TRANSACTIONS head, say): then the text alone cannot tell the server's from the
    statement's, and the title is `doubtful` — its section's own values (the TRANSACTIONS
    counters, an event's time) are left null, never taken from a statement.
    """
    env = Envelope()
    start = _header(text, env)
    body = "\n" + text[start:]
    titles = list(TITLE_RE.finditer(body))
    kept = _trusted(titles, body, env.doubtful)
    if not kept:
        _preamble(body, env, header_seen=start > 0)
        return env
    _preamble(body[: kept[0].start()], env, header_seen=start > 0)
    for this, nxt in zip(kept, kept[1:] + [None]):
        if this[1] == END_TITLE:
            env.ended = True
            break
        env.sections.append((this[1], body[this.end() : nxt.start() if nxt is not None else len(body)]))
    return env


def _trusted(titles: list[re.Match[str]], body: str, doubtful: set[str]) -> list[re.Match[str]]:
    head: list[re.Match[str]] = []
    seen: set[str] = set()
    i = 0
    while i < len(titles):                       # down from the header: nothing untrusted yet
        title = titles[i][1]
        i += 1
        if title in seen:
            continue
        head.append(titles[i - 1])
        seen.add(title)
        if title in FREE_TEXT or title == END_TITLE:
            break
    if not head or head[-1][1] not in FREE_TEXT:
        return head
    # XtraDB's order (free-text sections last): only END may follow them
    floor = max(ORDER.get(m[1], -1) for m in head)
    tail: list[re.Match[str]] = []
    j = len(titles) - 1
    while j >= i:                                # up from the end: fixed sections only
        title = titles[j][1]
        rank = ORDER.get(title)
        if (rank is None or rank <= floor or title in FREE_TEXT or title in seen
                or (tail and rank >= ORDER[tail[-1][1]])
                or (title == END_TITLE and j != len(titles) - 1)):
            break
        tail.append(titles[j])
        seen.add(title)
        j -= 1
    rank = ORDER[head[-1][1]]
    for m in titles[i : j + 1]:                  # between: the free-text sections, in order
        title = m[1]
        if title in FREE_TEXT and _opens(title, body, m.end()):
            if ORDER[title] > rank:
                head.append(m)
                rank = ORDER[title]
            elif ORDER[title] == rank:           # the open section's title again: one is a statement's
                doubtful.add(title)
    return head + tail[::-1]


def _opens(title: str, body: str, at: int) -> bool:
    """TRANSACTIONS starts with its trx id counter; the others have no fixed first line."""
    return title != "TRANSACTIONS" or body.startswith("Trx id counter", at + 1)


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
    lines = chunk.split("\n", MAX_LINES)
    if len(lines) > MAX_LINES:       # not a preamble: count the rest, do not read it
        env.unread += lines.pop().count("\n") + 1
    for raw in lines:
        line = raw.strip()
        if not line or line.strip("=-") == "":
            continue
        m = AVERAGES_RE.match(line)
        if m:
            env.averaging_s = int(m[1])
        elif header_seen or not line.startswith(_WRAPPER_PREFIXES):
            env.unknown.append(line)
