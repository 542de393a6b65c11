"""The pages of a pt-stalk collection's loop files and saved client outputs, read as streams of lines. Pure.

docs/import.md is the contract: which files of a collection are read, how their samples are
timed, what is left unknown. File reading (and the limits on it) lives in sources/collection_reader.py;
everything here takes lines that were already read and never raises on bad content: a line that
is not what it should be is skipped or ends the structure it was in. The series a collection's
other files hold (mysqladmin, mutex, /proc/stat, vmstat, variables) are read in collection_series.py.

Forms:
- loop files (`-processlist`, `-transactions`, `-lock-waits`): `mysql -e "…\\G"` outputs appended
  once per loop, each page headed by a `TS <epoch> <local time>` line (pt-stalk ≤ 3.0 and ≥ 3.5;
  3.1–3.4 wrote no TS line: a page is then each result set that starts again with the first
  column of the first one);
- a collection file's name: its prefix (the local start time) and kind; a status text's header time.
"""

from __future__ import annotations

import calendar
import itertools
import operator
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from mysqltop.core.textforms import extract

PREFIX = re.compile(r"^(\d{4})_(\d\d)_(\d\d)_(\d\d)_(\d\d)_(\d\d)-([A-Za-z0-9_.-]+)$")
TS_LINE = re.compile(r"^TS (\d{9,11}(?:\.\d+)?) (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$")
ROW_HEADER = re.compile(r"^\*{5,} (\d+)\. row \*{5,}\s*$")
KEY_VALUE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*): ?(.*)$")
# "2026-11-27 03:23:04 0x7fb4401376c0 INNODB MONITOR OUTPUT", "180305 13:24:56 INNODB MONITOR OUTPUT"
_STATUS_HEADER = re.compile(
    r"^(?:(\d{4})-(\d\d)-(\d\d)|(\d\d)(\d\d)(\d\d)) +(\d\d?):(\d\d):(\d\d)\b.*INNODB MONITOR OUTPUT", re.M)
MAX_VALUE_CHARS = 64 * 1024     # one cell (a statement) as kept; longer is cut, never the page


def split_prefix(name: str) -> tuple[str, str] | None:
    """'2018_03_05_13_24_55-innodbstatus1' → ('2018_03_05_13_24_55', 'innodbstatus1')."""
    m = PREFIX.match(name)
    return (name[:19], m.group(7)) if m else None


def naive_epoch(y: int, mo: int, d: int, h: int, mi: int, s: int) -> float | None:
    try:
        return float(calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0)))
    except (ValueError, OverflowError):
        return None


def prefix_local(prefix: str) -> float | None:
    """The prefix's wall time read as if it were UTC (add utc_offset's negation for real UTC)."""
    parts = [int(p) for p in prefix.split("_")]
    if len(parts) != 6 or not (1 <= parts[1] <= 12 and 1 <= parts[2] <= 31):
        return None
    return naive_epoch(*parts)


def parse_ts(line: str) -> tuple[float, float] | None:
    """'TS 1520256297.002113337 2018-03-05 13:24:57' → (epoch, the local time read as UTC)."""
    m = TS_LINE.match(line.strip())
    if m is None:
        return None
    d, t = m.group(2).split(" ")
    y, mo, dd = (int(x) for x in d.split("-"))
    h, mi, s = (int(x) for x in t.split(":"))
    local = naive_epoch(y, mo, dd, h, mi, s)
    return (float(m.group(1)), local) if local is not None else None


def utc_offset(ts: tuple[float, float]) -> float:
    """Local time minus UTC of the collecting host, from one TS line, to the quarter hour."""
    epoch, local = ts
    return round((local - epoch) / 900.0) * 900.0


def status_time_local(text: str) -> float | None:
    """The INNODB MONITOR OUTPUT header's time (server local time) read as UTC."""
    m = _STATUS_HEADER.search(text[:4000])
    if m is None:
        return None
    if m.group(1):
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    else:
        y, mo, d = 2000 + int(m.group(4)), int(m.group(5)), int(m.group(6))
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    return naive_epoch(y, mo, d, int(m.group(7)), int(m.group(8)), int(m.group(9)))


def status_text(text: str) -> str | None:
    """SHOW ENGINE INNODB STATUS text from a saved output in any client form."""
    return extract(text).status_text


# --- vertical (\G) loop files ----------------------------------------------------------------

Row = dict[str, str]


@dataclass
class Page:
    """One loop iteration of a loop file: its TS (epoch) when the file has TS lines, and the
    result sets the iteration printed (each a list of rows)."""

    ts: tuple[float, float] | None
    results: list[list[Row]] = field(default_factory=list)
    index: int = 0


class _VerticalReader:
    """\\G rows from lines: a key line is `  Key: value`; other lines continue the value before
    (statement text with newlines). Within a result set the columns come in the first row's
    order, so a continuation line that looks like `Key: …` is only a new column when it is the
    column expected next — statement text cannot forge a column."""

    def __init__(self) -> None:
        self.results: list[list[Row]] = []
        self.row: Row | None = None
        self.key: str | None = None
        self.columns: list[str] | None = None
        # continuation lines of the current value, joined once (appending each line to the value
        # copied it every time: a 300 MB file of long statements took minutes)
        self.more: list[str] = []
        self.more_len = 0                            # the value's length with them

    def header(self, number: int) -> bool:
        """A row header; True when it starts a new result set (row 1)."""
        self._end_row()
        if number == 1:
            self.results.append([])
            self.columns = None
        elif not self.results:
            self.results.append([])
        self.row = {}
        self.key = None
        return number == 1

    def _flush(self) -> None:
        if self.more and self.row is not None and self.key is not None:
            self.row[self.key] = "\n".join([self.row[self.key], *self.more])[:MAX_VALUE_CHARS]
        self.more = []

    def _end_row(self) -> None:
        self._flush()
        if self.row is not None and self.results:
            if self.columns is None:
                self.columns = list(self.row)
            self.results[-1].append(self.row)
        self.row = None

    def line(self, text: str) -> None:
        if self.row is None:
            return
        m = KEY_VALUE.match(text)
        if m is not None and self._expected(m.group(1)):
            self._flush()
            self.key = m.group(1)
            self.row[self.key] = m.group(2)[:MAX_VALUE_CHARS]
            self.more_len = len(self.row[self.key])
        elif self.key is not None and self.more_len < MAX_VALUE_CHARS:
            self.more.append(text)
            self.more_len += 1 + len(text)

    def _expected(self, key: str) -> bool:
        assert self.row is not None
        if self.columns is None:
            return key not in self.row
        n = len(self.row)
        return n < len(self.columns) and self.columns[n] == key

    def take(self) -> list[list[Row]]:
        self._end_row()
        out, self.results, self.columns = self.results, [], None
        return [r for r in out if r]


def vertical_pages(lines: Iterable[str]) -> Iterator[Page]:
    """Pages of a loop file, streamed: one per TS line, or (no TS lines at all) one per result
    set that starts with the same first column as the file's first result set."""
    reader = _VerticalReader()
    ts: tuple[float, float] | None = None
    seen_ts = False
    first_key: str | None = None
    pending_first = False
    index = 0
    for raw in lines:
        text = raw.rstrip("\r\n")
        if text.startswith("TS "):
            stamp = parse_ts(text)
            if stamp is not None:
                results = reader.take()
                if seen_ts or results:
                    yield Page(ts, results, index)
                    index += 1
                ts, seen_ts = stamp, True
                continue
        m = ROW_HEADER.match(text) if text.startswith("*") else None
        if m is not None:
            number = int(m.group(1))
            if reader.header(number):
                pending_first = True
            continue
        if pending_first and not seen_ts:
            # the first column line of a new result set: a new page when it repeats the first one's
            km = KEY_VALUE.match(text)
            if km is not None:
                pending_first = False
                key = km.group(1)
                if first_key is None:
                    first_key = key
                elif key == first_key and len(reader.results) > 1:
                    current = reader.results.pop()
                    row = reader.row
                    reader.row = None
                    done = reader.take()
                    if done:
                        yield Page(None, done, index)
                        index += 1
                    reader.results = [current]
                    reader.row = row
        elif pending_first:
            pending_first = False
        reader.line(text)
    results = reader.take()
    if seen_ts or results:
        yield Page(ts, results, index)


# A line of a \\G page: a row header or a `Column: value` line (the fast path's one token).
# A longer value, a row number written "01" or in other digits: no token (the line reader decides).
_TOKEN = re.compile(r"^(?:[ \t]*([A-Za-z_][A-Za-z0-9_]*): ?(.{0,%d})|\*{5,} (0|[1-9][0-9]*)\. row \*{5,}[ \t]*)$"
                    % MAX_VALUE_CHARS, re.M)
_FIRST, _SECOND, _THIRD = operator.itemgetter(0), operator.itemgetter(1), operator.itemgetter(2)


_STARS = "*" * 27                                # a row header as the mysql client prints it
_PREFIX = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*): ")


def _row_header(n: int) -> str:
    return f"{_STARS} {n}. row {_STARS}"


def _columnar(text: str) -> list[list[Row]] | None:
    """A processlist page as the mysql client prints it: one result set of rows numbered 1, 2, …
    that all hold the first row's columns, each column's line starting as in the first row
    (`   User: `). Checked and cut a column at a time with string operations (no Python step per
    line): the rows _fast_results' token pass gives. None for any other page."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()                                  # the text's last line end ends no line
    if not lines or lines[0] != _row_header(1):
        return None
    try:
        period = lines.index(_row_header(2), 1)
    except ValueError:
        period = len(lines)
    if period < 2 or len(lines) % period:
        return None
    if lines[::period] != [_row_header(n) for n in range(1, len(lines) // period + 1)]:
        return None
    columns: list[str] = []
    values: list[list[str]] = []
    for j in range(1, period):
        m = _PREFIX.match(lines[j])
        if m is None:
            return None                              # "Key:" with no space, a statement's line …
        prefix, sep = m.group(0), "\n" + m.group(0)
        joined = "\n".join(lines[j::period])
        if joined.count(sep) != len(lines) // period - 1:
            return None                              # a row whose line here starts otherwise
        column = joined[len(prefix):].split(sep)
        if len(joined) > MAX_VALUE_CHARS and max(map(len, column)) > MAX_VALUE_CHARS:
            return None                              # a value the token pass would not take
        columns.append(m.group(1))
        values.append(column)
    if len(set(columns)) != len(columns):
        return None
    return [list(map(dict, map(zip, itertools.repeat(columns), zip(*values))))]


def _fast_results(text: str) -> list[list[Row]] | None:
    """The result sets of one page's text, read by one regex pass, when every line is a row
    header or the column its result set's first row says is due (no statement spans lines); None
    when not — the caller reads that page line by line (_VerticalReader), which gives the same
    rows wherever both apply."""
    if "\r" in text:
        return None                                  # CRLF: the line reader's work
    columnar = _columnar(text)
    if columnar is not None:
        return columnar
    tokens = _TOKEN.findall(text)
    if len(tokens) != text.count("\n") + (0 if text.endswith("\n") or not text else 1):
        return None                                  # a line that is neither: a statement's
    if tokens and not tokens[0][2]:
        return None                                  # a column before any row header
    uniform = _uniform(tokens)
    if uniform is not None:
        return uniform
    results: list[list[Row]] = []
    current: list[Row] = []
    columns: list[str] = []
    row: Row = {}
    started = False                                  # a row header was read (tokens[0] is one)
    n = 0                                            # columns of the row so far
    first = True                                     # the result set's first row: it sets the columns
    for key, value, number in tokens:
        if number:
            if started:
                current.append(row)
                first = False
            started = True
            if number == "1" or not results:
                current = []
                results.append(current)
                first, columns = True, []
            row, n = {}, 0
        elif first:
            if key in row:
                return None
            columns.append(key)
            row[key] = value
        else:
            try:
                if columns[n] != key:
                    return None
            except IndexError:
                return None
            row[key] = value
            n += 1
    if started:
        current.append(row)
    return [r for r in results if r]


def _uniform(tokens: list[tuple[str, str, str]]) -> list[list[Row]] | None:
    """One result set whose rows all hold the first row's columns (a processlist page): checked
    and read with list operations, no Python step per line. None: any other page."""
    keys = list(map(_FIRST, tokens))
    try:
        period = keys.index("", 1)                   # the second row header
    except ValueError:
        period = len(keys)
    columns = keys[1:period]
    if (not columns or len(tokens) % period or keys[period:] != keys[:-period] or len(set(columns)) != len(columns)):
        return None
    numbers = list(map(_THIRD, tokens[::period]))
    if numbers[0] != "1" or numbers.count("1") != 1:
        return None                                  # several result sets
    values = list(map(_SECOND, tokens))
    return [[dict(zip(columns, values[i + 1:i + period])) for i in range(0, len(values), period)]]


def _slow_results(text: str) -> list[list[Row]]:
    reader = _VerticalReader()
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()                                  # the text's last line end ends no line
    for line in lines:
        m = ROW_HEADER.match(line) if line.startswith("*") else None
        if m is not None:
            reader.header(int(m.group(1)))
        else:
            reader.line(line.rstrip("\r"))
    return reader.take()


def _next_ts(block: str, pos: int) -> int:
    """Where the next line starting "TS " begins after `pos` (a page starts there when
    parse_ts reads it); -1: none."""
    at = block.find("\nTS ", pos)
    return at + 1 if at >= 0 else -1


def ts_pages(blocks: Iterable[str]) -> Iterator[Page]:
    """Pages of a TS-paged loop file (pt-stalk ≤ 3.0, ≥ 3.5) from text blocks that end at line
    ends: split at the TS lines, each page read in one regex pass where its text allows
    (vertical_pages' rows, several times faster: a 300 MB -processlist in bounded time)."""
    pieces: list[str] = []
    ts: tuple[float, float] | None = None
    seen_ts = False
    index = 0

    def page() -> Page | None:
        text = "".join(pieces)
        results = _fast_results(text)
        if results is None:
            results = _slow_results(text)
        return Page(ts, results, index) if seen_ts or results else None

    for block in blocks:
        start = 0
        at = 0 if block.startswith("TS ") else _next_ts(block, 0)      # a block starts at a line start
        while at >= 0:
            end = block.find("\n", at)
            end = len(block) if end < 0 else end
            stamp = parse_ts(block[at:end].rstrip("\r"))
            if stamp is not None:                    # else not a TS line after all: page text
                pieces.append(block[start:at])
                done = page()
                if done is not None:
                    yield done
                    index += 1
                pieces, start = [], end + 1
                ts, seen_ts = stamp, True
            at = _next_ts(block, end)
        pieces.append(block[start:])
    done = page()
    if done is not None:
        yield done


# Where a page of a file without TS lines may start: a row-1 header (verified with ROW_HEADER:
# "01." and other digits count as 1 too), and the column line right after it.
_ROW_ONE = re.compile(r"^\*{5,} (0*1|[^\n.]*[^\x00-\x7f][^\n.]*)\. row \*{5,}[^\S\n]*$", re.M)
_ROW_ONE_AFTER = re.compile(r"\n(\*{5,} (?:0*1|[^\n.]*[^\x00-\x7f][^\n.]*)\. row \*{5,}[^\S\n]*)$", re.M)
_COLUMN_START = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*):")


def _row_ones(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, line) of each _ROW_ONE line: searched from the line end before it, a literal
    the regex engine scans for fast (a `^` under re.M is tried at every position)."""
    m = _ROW_ONE.match(text)
    if m is not None:
        yield m.start(), m.end(), m.group(0)
    for m in _ROW_ONE_AFTER.finditer(text):
        yield m.start(1), m.end(1), m.group(1)


def _has_ts_line(text: str) -> bool:
    return text.startswith("TS ") or "\nTS " in text


def untimed_pages(blocks: Iterable[str]) -> Iterator[Page]:
    """vertical_pages' pages of a loop file without TS lines (pt-stalk 3.1–3.4, Debian's 3.2.1)
    from text blocks that end at line ends: a page starts at each row-1 header whose next line
    is the file's first column, and is read as ts_pages reads one. Anything less plain (text
    before the first header, a header not followed by a column line, a TS line) hands the page
    it is in, and the rest of the file, to vertical_pages, which decides those cases."""
    it = iter(blocks)
    pending: list[str] = []          # the current page's text so far
    carry = ""                       # the last line of the last block, held back: it may be a header
    first_key: str | None = None
    index = 0

    def parsed(text: str) -> Page:
        results = _fast_results(text)
        return Page(None, results if results is not None else _slow_results(text), index)

    for block in it:
        buf = carry + block
        cut = buf.rfind("\n", 0, len(buf) - 1) + 1          # the start of buf's last line
        carry, buf = buf[cut:], buf[:cut]
        pos = 0
        plain = not _has_ts_line(buf)
        for m_start, m_end, header in _row_ones(buf) if plain else ():
            hm = ROW_HEADER.match(header)
            if hm is None or int(hm.group(1)) != 1:
                continue
            col = _COLUMN_START.match(buf, m_end + 1)
            if col is None or (first_key is None and (m_start or any(pending))):
                plain = False
                break
            if first_key is None:
                first_key = col.group(1)
            elif col.group(1) == first_key:
                pending.append(buf[pos:m_start])
                page = parsed("".join(pending))
                if page.results:
                    yield page
                    index += 1
                pending, pos = [], m_start
        if not plain or first_key is None and buf.strip():
            rest = itertools.chain(["".join(pending), buf[pos:], carry], it)
            for page in vertical_pages(_split_lines(rest)):
                yield Page(page.ts, page.results, page.index + index)
            return
        pending.append(buf[pos:])
    tail = "".join(pending) + carry
    if (first_key is None and tail.strip()) or _has_ts_line(carry):
        for page in vertical_pages(_split_lines([tail])):
            yield Page(page.ts, page.results, page.index + index)
        return
    page = parsed(tail)
    if page.results:
        yield page


def _split_lines(blocks: Iterable[str]) -> Iterator[str]:
    """The lines of text blocks, each with its line end (the last perhaps without)."""
    rest = ""
    for block in blocks:
        if not block:
            continue
        parts = (rest + block).split("\n")
        rest = parts.pop()
        for p in parts:
            yield p + "\n"
    if rest:
        yield rest
