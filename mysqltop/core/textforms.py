"""Pasted client output → the status text or the tables it holds. Pure, never raises.

Forms accepted (any of them wrapped in the client's `mysql> …;` prompt and "N rows in set"):
- raw text (SHOW ENGINE INNODB STATUS as the server returns it);
- the `\\G` vertical form: "*** 1. row ***" then right-aligned "  Type: InnoDB" key lines;
- `mysql -e`/`-B` batch output: tab-separated, a header row, cells escaped (literal \\n, \\t, \\\\);
- tables with `+---+` / `| … |` borders (and markdown `|---|` separators);
- header-driven whitespace-aligned tables (tabs lost in a paste), via `loose_table`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class Table:
    header: list[str]                 # [] when the form carried none (mysql -N)
    rows: list[list[str]] = field(default_factory=list)
    form: str = "tsv"                 # tsv | bordered | vertical | loose


@dataclass
class Extracted:
    status_text: str | None           # SHOW ENGINE INNODB STATUS text, normalised to raw form
    tables: list[Table]
    statements: list[str]             # statements typed after a client prompt (detection hints)
    lines: list[str] | None = None    # the text's lines without the client's (when split)


# --- escaping ---------------------------------------------------------------------------------

# mysql batch mode escapes NUL, tab, newline and backslash in cells (print_with_tab_escape).
_ESCAPES = {"n": "\n", "t": "\t", "0": "\0", "\\": "\\", "r": "\r"}
_ESCAPE_RE = re.compile(r"\\(.)", re.S)


def unescape(s: str) -> str:
    """`InnoDB\\t\\t\\n=====` → real tab/newline; unknown escapes stay as written."""
    if "\\" not in s:
        return s
    # A whole status is one cell of a million escapes: replace in C rather than call a function
    # per escape. An escaped backslash is parked on a character the text does not hold, so that
    # "\\\\n" stays a backslash and an "n".
    park = next((c for c in "\ue000\ue001\ue002\ue003" if c not in s), None)
    if park is None:
        return _ESCAPE_RE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(0)), s)
    s = s.replace("\\\\", park)
    for code, char in _ESCAPES.items():
        if code != "\\":
            s = s.replace("\\" + code, char)
    return s.replace(park, "\\")


# --- client noise -----------------------------------------------------------------------------

# "mysql> SHOW ENGINE INNODB STATUS\G", "MariaDB [(none)]> show global status;",
# "MySQL  localhost:33060+ ssl  SQL > SHOW ENGINE INNODB MUTEX;"
_PROMPT = re.compile(
    r"^\s*(?:mysql(?: \[[^\]\n]*\])?|MariaDB(?: \[[^\]\n]*\])?|MySQL\s+[^>\n]*\b(?:SQL|JS|Py))\s*>\s?(.*)$",
    re.I)
# "    -> FROM performance_schema.events_waits_summary_global_by_event_name"
_CONTINUATION = re.compile(r"^\s*->\s?(.*)$")
_TERMINATED = re.compile(r"(?:;|\\[Gg])\s*$")
# "92 rows in set (0.08 sec)", "1 row in set, 1 warning (0.00 sec)", "Empty set (0.00 sec)"
_RESULT_NOTE = re.compile(r"^\s*(?:\d+ rows? in set\b|Empty set\b|Query OK\b|\d+ rows? affected\b)", re.I)
_NOTE_MAX = 120       # result notes are short: a longer line is data, whatever it starts with
_TABLE_LINE = re.compile(r"^\s*(?:[+|]|\*{5,} \d+\. row)")


def _strip_client(lines: list[str]) -> tuple[list[str], list[str]]:
    """Drop prompt lines (and their continuation lines) and result notes; return the statements."""
    out: list[str] = []
    statements: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        m = _PROMPT.match(line) if ">" in line else None     # a cheap test first: most lines are data
        if m:
            stmt = [m.group(1).strip()]
            j = i + 1
            # The statement may span lines ("->" continuations, or indented lines in docs
            # that dropped the "->"); it ends at ";" / "\G". Give up after a screenful.
            if not _TERMINATED.search(stmt[0]):
                k = j
                # (a prompt ends the look: each line is looked at for one statement at most)
                while (k < n and k - j < 40 and not _TABLE_LINE.match(lines[k])
                       and not (">" in lines[k] and _PROMPT.match(lines[k]))):
                    c = _CONTINUATION.match(lines[k])
                    stmt.append((c.group(1) if c else lines[k]).strip())
                    k += 1
                    if _TERMINATED.search(stmt[-1]):
                        j = k
                        break
                else:
                    stmt = stmt[:1]
            if any(stmt):
                statements.append(" ".join(s for s in stmt if s))
            i = j
            continue
        if len(line) > _NOTE_MAX or not _RESULT_NOTE.match(line):
            out.append(line)
        i += 1
    return out, statements


# --- SHOW ENGINE INNODB STATUS text -----------------------------------------------------------

# "2024-10-23 14:29:35 0x720545ed3700 INNODB MONITOR OUTPUT", "111010 9:56:19 INNODB MONITOR OUTPUT"
_HEADER = re.compile(r"^[\w:.\- ]*INNODB MONITOR OUTPUT\s*$")
_END = re.compile(r"END OF INNODB MONITOR OUTPUT")
_EQUALS = re.compile(r"={5,}")
_DASHES = re.compile(r"^-{3,}\s*$")
_SECTIONS = frozenset({
    "BACKGROUND THREAD", "SEMAPHORES", "TRANSACTIONS", "FILE I/O", "LOG", "BUFFER POOL AND MEMORY",
    "ROW OPERATIONS", "INSERT BUFFER AND ADAPTIVE HASH INDEX", "LATEST DETECTED DEADLOCK",
    "LATEST FOREIGN KEY ERROR", "INDIVIDUAL BUFFER POOL INFO",
})
# Lines that follow a truncated status in a paste: borders, " |" cell ends, row markers.
_ROW_NOISE = re.compile(r"^\s*\*+ \d+\. row \*+\s*$")


def _trailing_noise(line: str) -> bool:
    # no regex over the whole line: a border is as wide as the status cell it frames
    bare = line.strip()
    return (bare.strip("|") == "" or (bare.startswith("+") and bare.strip("+-") == "")
            or (len(bare) < 200 and _ROW_NOISE.match(bare) is not None))


def _section_start(lines: list[str]) -> int | None:
    """Index of the dashes line above the first section title, when ≥ 2 titles are present."""
    first, seen = None, 0
    for i in range(1, len(lines) - 1):
        if lines[i].strip() in _SECTIONS and _DASHES.match(lines[i - 1]) and _DASHES.match(lines[i + 1]):
            seen += 1
            if first is None:
                first = i - 1
            if seen >= 2:
                return first
    return None


def _status_text(lines: list[str]) -> str | None:
    start = next((i for i, l in enumerate(lines) if _HEADER.match(l) and not _END.search(l)), None)
    head: list[str] = []
    if start is None:
        start = _section_start(lines)
        if start is None:
            return None
    elif start > 0:
        m = _EQUALS.search(lines[start - 1])  # "Status: =====" or "=====" above the header
        if m and lines[start - 1].rstrip().endswith(m.group(0)):
            head = [m.group(0)]
    end = next((i for i in range(start, len(lines)) if _END.search(lines[i])), None)
    if end is not None:
        body = lines[start:end + 1]
        if end + 1 < len(lines):
            m = _EQUALS.match(lines[end + 1].strip())
            if m:
                body.append(m.group(0))
    else:
        body = lines[start:]
        while body and _trailing_noise(body[-1]):
            body.pop()
        if body:
            body[-1] = _cell_end(body[-1])
    if body:
        body[-1] = body[-1].rstrip()
    return "\n".join(head + body) + "\n"


def _escaped_status(line: str) -> bool:
    return "\\n" in line and ("MONITOR OUTPUT" in line or "\\n-----" in line)


def _unescape_status_lines(lines: list[str]) -> list[str]:
    """The -e/-B one-line form: the whole status is one physical line with literal \\n."""
    out: list[str] = []
    for line in lines:
        if _escaped_status(line):
            out.extend(unescape(line).split("\n"))
        else:
            out.append(line)
    return out


# --- tables -----------------------------------------------------------------------------------

_BORDER = re.compile(r"^\s*\+(?:-+\+)+\s*$")
_MD_SEP = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$")
_PIPE_ROW = re.compile(r"^\s*\|.*\|\s*$")
# Far wider than any output parse reads (performance_schema summaries have a dozen columns): a
# wider "row" is not a table, and splitting it would cost time for nothing.
MAX_CELLS = 256


def _pipe_row(line: str) -> bool:
    return line.count("|") <= MAX_CELLS + 1 and _PIPE_ROW.match(line) is not None
_ROW_MARK = re.compile(r"^\s*\*+ \d+\. row \*+\s*$")   # docs indent it


def _split_pipes(line: str, plus_at: list[int] | None) -> list[str]:
    # Cut at the border's "+" positions when the row lines up with it, so a "|" inside a cell
    # survives; otherwise split on every "|".
    if plus_at and len(line.rstrip()) == plus_at[-1] + 1 and all(line[p] == "|" for p in plus_at):
        return [line[a + 1:b].strip() for a, b in zip(plus_at, plus_at[1:])]
    inner = line.strip()[1:-1]
    return [c.strip() for c in inner.split("|")]


def _bordered_tables(lines: list[str]) -> list[Table]:
    tables: list[Table] = []
    i, n = 0, len(lines)
    while i < n:
        if not (_BORDER.match(lines[i]) or _pipe_row(lines[i])):
            i += 1
            continue
        block: list[tuple[bool, str]] = []          # (is_border, line)
        while i < n and (_BORDER.match(lines[i]) or _pipe_row(lines[i])):
            line = lines[i]
            block.append((bool(_BORDER.match(line) or _MD_SEP.match(line)), line))
            i += 1
        rows_only = [l for b, l in block if not b]
        if not rows_only:
            continue
        border = next((l for b, l in block if b and "+" in l), None)
        plus_at = [k for k, ch in enumerate(border.rstrip()) if ch == "+"] if border else None
        cells = [_split_pipes(l, plus_at) for l in rows_only]
        # A header row is the one closed by a separator: "+--+ / | h | / +--+" or "| h |\n|---|".
        seps = [k for k, (b, _) in enumerate(block) if b]
        lead = 1 if block[0][0] else 0
        # (a lone row between two borders is a `mysql -N` row: the client never prints an
        # empty table, it says "Empty set")
        has_header = (lead + 1 in seps and lead + 1 < len(block) - 1) and not block[lead][0]
        if not seps:  # no borders at all: assume the first row names the columns
            has_header = True
        header = cells[0] if has_header else []
        tables.append(Table(header, cells[1:] if has_header else cells, "bordered"))
    return tables


def _key_width(line: str) -> int | None:
    """Colon column of a `\\G` key line ("  Type: InnoDB" → 6)."""
    m = re.match(r"^( *)([^\s:][^:]*?):(?: |$)", line)
    return len(m.group(1)) + len(m.group(2)) if m else None


def _vertical_table(lines: list[str]) -> Table | None:
    marks = [i for i, l in enumerate(lines) if _ROW_MARK.match(l)]
    if not marks:
        return None
    header: list[str] = []
    records: list[dict[str, str]] = []
    width: int | None = None
    for k, start in enumerate(marks):
        stop = marks[k + 1] if k + 1 < len(marks) else len(lines)
        rec: dict[str, list[str]] = {}
        key: str | None = None
        multi = False
        for line in lines[start + 1:stop]:
            if width is None:
                width = _key_width(line)
            if width is None:
                continue
            name = line[:width].strip() if width and len(line) > width and line[width] == ":" else ""
            is_key = (bool(name) and line[:width] == name.rjust(width)       # right-aligned
                      and (len(line) == width + 1 or line[width + 1] == " ")
                      # record 1 defines the columns; a multi-line value (Status) ends that
                      and (name in header if records else name not in rec and not multi))
            if is_key:
                key, multi = name, False
                rec[key] = [line[width + 2:] if len(line) > width + 1 else ""]
                if not records and key not in header:
                    header.append(key)
            elif key is not None:
                rec[key].append(line)        # multi-line value (the Status text)
                multi = True
        records.append({kk: "\n".join(v).rstrip() if len(v) > 1 else v[0].strip() for kk, v in rec.items()})
    if not header:
        return None
    return Table(header, [[r.get(h, "") for h in header] for r in records], "vertical")


def _tsv_table(lines: list[str]) -> Table | None:
    body = [l for l in lines if l.strip()]
    if not body or not any("\t" in l for l in body[:3]):
        return None
    first = next(i for i, l in enumerate(body) if "\t" in l)
    if first > 1:          # a tab-separated table starts at the top of what is left
        return None
    rows = [[unescape(c) for c in l.split("\t")] for l in body[first:]]
    return Table([c.strip() for c in rows[0]], rows[1:], "tsv")


def loose_table(text: str, header_words: list[str], spill: int | None = None,
                lines: list[str] | None = None) -> Table | None:
    """A whitespace-aligned table under a header line whose words are `header_words` (any case).

    Rows are split on tabs / 2+ spaces when that gives the right count, else on single spaces
    with the extra words joined into column `spill` (default: the last one).
    """
    if lines is None:
        if text.count("\n") > MAX_TEXT_LINES:
            return None
        lines = _strip_client(_lines(text))[0]
    want = [w.lower() for w in header_words]
    at = next((i for i, l in enumerate(lines) if [w.lower() for w in l.split()] == want), None)
    if at is None:
        return None
    n = len(want)
    spill = n - 1 if spill is None else spill
    rows: list[list[str]] = []
    for line in lines[at + 1:]:
        if not line.strip():
            continue
        cells = [c for c in re.split(r"\t|\s{2,}", line.strip())]
        if len(cells) != n:
            words = line.split()
            if len(words) < n:
                cells = words + [""] * (n - len(words))
            else:
                extra = len(words) - n
                cells = words[:spill] + [" ".join(words[spill:spill + extra + 1])] + words[spill + extra + 1:]
        rows.append(cells)
    return Table(header_words, rows, "loose")


# --- entry point ------------------------------------------------------------------------------

def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


_MARK = "INNODB MONITOR OUTPUT"
# Without a status header, a text is a table (thousands of rows at most) or a status cut above
# its header; millions of lines are neither, and splitting them would cost gigabytes.
MAX_TEXT_LINES = 1_000_000
_END_MARK = "END OF INNODB MONITOR OUTPUT"


def _whole_status(text: str) -> tuple[str, int] | None:
    """(status text, where its header line starts) when the text holds a header line, cut out
    without splitting the text into lines.

    The END is the last one: a statement inside the status can print an END line, the server
    prints its own after every statement. Client lines (prompts, result notes) are only looked
    for before the header and, in a status cut short, after its last line: between header and
    END every line is the server's cell, and a statement line that looks like a prompt stays
    where the server printed it."""
    at = text.find(_MARK)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        stop = text.find("\n", at)
        stop = len(text) if stop < 0 else stop
        line = text[start:stop]
        if _HEADER.match(line) and not _END.search(line):
            break
        at = text.find(_MARK, stop)
    else:
        return None
    head = ""
    if start > 0:                # "Status: =====" or "=====" above the header
        above = text[text.rfind("\n", 0, start - 1) + 1 : start - 1]
        m = _EQUALS.search(above)
        if m and above.rstrip().endswith(m.group(0)):
            head = m.group(0) + "\n"
    end = text.rfind(_END_MARK)
    if end > start:
        end_stop = text.find("\n", end)
        end_stop = len(text) if end_stop < 0 else end_stop
        body = text[start:end_stop].rstrip(" \t")    # blanks a bordered paste pads its cell with
        if end_stop < len(text):
            nxt = text.find("\n", end_stop + 1)
            m = _EQUALS.match(text[end_stop + 1 : len(text) if nxt < 0 else nxt].strip())
            if m:
                body += "\n" + m.group(0)
        return head + body + "\n", start
    stop = len(text)             # cut short: drop the client's lines after the last status line
    while stop > start:
        line_start = text.rfind("\n", start, stop) + 1 or start
        line = text[line_start:stop]
        if not (_trailing_noise(line) or (">" in line and _PROMPT.match(line))
                or (len(line) <= _NOTE_MAX and _RESULT_NOTE.match(line))):
            break
        stop = max(start, line_start - 1)
    if stop <= start:
        return None
    return head + _cell_end(text[start:stop]) + "\n", start


def _cell_end(body: str) -> str:
    """Without the spaces and " |" a bordered paste ends its cell's last line with (no regex:
    a line of a million blanks costs one pass)."""
    body = body.rstrip()
    if body.endswith("|") and body[-2:-1].isspace():
        body = body[:-1].rstrip()
    return body


def extract(text: str) -> Extracted:
    """Everything the text holds: the InnoDB status text (if any) and every table."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    whole = _whole_status(text)
    if whole is not None:
        # The status wins over any table in the same text (detect.classify), so a status of many
        # megabytes is not also scanned for tables, nor split into lines here.
        status, start = whole
        return Extracted(status, [], _strip_client(_lines(text[:start]))[1])
    if text.count("\n") > MAX_TEXT_LINES:
        return Extracted(None, [], [])
    if "\\n" in text:           # the -e/-B one-line form
        whole = _whole_status("\n".join(unescape(line) if _escaped_status(line) else line
                                        for line in text.split("\n")))
        if whole is not None:
            return Extracted(whole[0], [], _strip_client(_lines(text))[1])
    lines, statements = _strip_client(_lines(text))
    cut = _status_text(lines) or _status_text(_unescape_status_lines(lines))   # no header line
    if cut is not None:
        return Extracted(cut, [], statements)
    tables = _bordered_tables(lines)
    vertical = _vertical_table(lines)
    if vertical:
        tables.append(vertical)
    if not tables:
        tsv = _tsv_table(lines)
        if tsv:
            tables.append(tsv)
    return Extracted(None, tables, statements, lines)
