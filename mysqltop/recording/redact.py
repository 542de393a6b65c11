"""`--redact`: drop SQL text and row data from stored SHOW ENGINE INNODB STATUS output.

SQL shows up after each "MySQL thread id …"/"MariaDB thread id …" line (TRANSACTIONS, LATEST
DETECTED DEADLOCK, LATEST FOREIGN KEY ERROR), possibly over several lines. The statement is read
with an SQL tokenizer (string literals with backslash escapes and doubled quotes, multi-line
literals, `--`/`#`/`/* */` comments, backquoted names), so a line inside a literal or a comment
never ends it, whatever it looks like; it ends at a line that starts, outside any literal or
comment, like one InnoDB prints after a statement. The whole statement becomes one marker line.
Row data shows up in lock/FK dumps after "PHYSICAL RECORD:" / "DATA TUPLE:" and becomes a marker.
After the first statement, quoted strings left on the server's own lines are blanked too, so a
statement cut short by a server-like line of its own still stores no literal.
"""

from __future__ import annotations

import re

SQL_MARK = "(SQL text redacted by mysqltop --redact)"
ROW_MARK = "(row data redacted by mysqltop --redact)"

# MariaDB thread id 11, OS thread handle 140257383147200, query id 138532 127.0.0.1 sbtest Writing to net
# MySQL thread id 15, OS thread handle 0x7f…, query id 30 localhost root updating
_THREAD = re.compile(r"^(MySQL|MariaDB) thread id \d+")
# Record lock, heap no 2 PHYSICAL RECORD: n_fields 3; compact format; info bits 0
# DATA TUPLE: 2 fields;
_ROWS = re.compile(r"^(.*?(?:PHYSICAL RECORD: n_fields \d+; (?:compact|new-style|old-style) format; info bits \d+|"
                   r"PHYSICAL RECORD:|DATA TUPLE: \d+ fields;))")
# Lines InnoDB prints after a statement or a row dump (a run ends at one).
_STRUCTURAL = re.compile(
    r"^(?:---|\*\*\*|===|TRANSACTION |Trx |TABLE LOCK|RECORD LOCKS|Record lock|LOCK WAIT|"
    r"(?:mysql|MariaDB) tables in use|\d+ lock struct|MySQL thread id|MariaDB thread id|"
    r"History list|Purge done|LIST OF TRANSACTIONS|END OF INNODB|Total number of lock|"
    r"Foreign key constraint|Trying to|But in parent|But the parent|the closest match|"
    r"CONSTRAINT |WE ROLL BACK|TOO DEEP|Transaction:|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)"
)
# The server prints at most 3000 bytes of a statement (max_query_len of the TRANSACTIONS list and
# of a deadlock): a literal it cut off ends there, so past this many characters a server line
# ends the run even while a literal is open.
MAX_QUERY_CHARS = 3072
# 'it''s', "a\"b" on a line of the server's own (after the first statement)
_QUOTED = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"")


class SqlScanner:
    """Where a statement's tokens stand at each line end: inside a literal or comment, or not."""

    def __init__(self) -> None:
        self.open: str | None = None        # "'", '"', "`" or "/*" while one is open

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        while i < n:
            if self.open == "/*":
                end = line.find("*/", i)
                if end < 0:
                    return
                self.open, i = None, end + 2
            elif self.open is not None:
                q = self.open
                while i < n:
                    c = line[i]
                    if c == "\\" and q != "`":
                        i += 2                  # backslash escape (NO_BACKSLASH_ESCAPES off)
                    elif c == q:
                        if i + 1 < n and line[i + 1] == q:
                            i += 2              # doubled quote: still inside
                        else:
                            self.open, i = None, i + 1
                            break
                    else:
                        i += 1
            else:
                c = line[i]
                if c in "'\"`":
                    self.open, i = c, i + 1
                elif c == "#" or (line.startswith("--", i) and (i + 2 == n or line[i + 2] in " \t")):
                    return                      # comment to the end of the line
                elif line.startswith("/*", i):
                    self.open, i = "/*", i + 2
                else:
                    i += 1


# Server lines whole, with nothing free-form in them: they end a statement even inside a literal
# that never closes (a statement the server cut at max_query_len, or malformed); until the next
# thread line only such lines are then kept.
_STRICT = re.compile(
    r"^(?:---TRANSACTION (?:\([0-9a-fx]+\)|[0-9A-Fa-f]+(?: \d+)?), (?:ACTIVE(?: \(PREPARED\))?(?: \d+ sec)?"
    r"|not started|COMMITTED IN MEMORY|PREPARED|ROLLING BACK)(?: [a-z ]+)?"
    r"(?:, process no \d+, OS thread id \d+(?: [a-z ]+)?(?:, thread declared inside InnoDB \d+)?)?"
    r"|Trx read view will not see trx with id >= \d+(?: \d+)?, sees < \d+(?: \d+)?"
    r"|------- TRX HAS BEEN WAITING \d+(?:\.\d+)? ?\w+ FOR THIS LOCK TO BE GRANTED:"
    r"|(?:LOCK WAIT )?\d+ lock struct\(s\), heap size \d+(?:, \d+ row lock\(s\))?(?:, undo log entries \d+)?"
    r"|mysql tables in use \d+, locked \d+|-{3,}|\*\*\* \(\d+\) [A-Z ():]+|\*\*\* WE ROLL BACK TRANSACTION \(\d+\)"
    r"|Trx id counter [0-9A-Fa-f]+(?: \d+)?|Purge done for trx's n:o < [0-9A-Fa-f ]+undo n:o < [0-9A-Fa-f ]+(?: state: [a-z ]+)?"
    r"|History list length \d+|Total number of lock structs in row lock hash table \d+"
    r"|LIST OF TRANSACTIONS FOR EACH SESSION:|[A-Z][A-Z /]+)$")
_FREE_SECTIONS = ("LATEST DETECTED DEADLOCK", "LATEST FOREIGN KEY ERROR")
_LIST_MARK = "LIST OF TRANSACTIONS FOR EACH SESSION:"
_ALWAYS_ONCE = frozenset({"FILE I/O", "INSERT BUFFER AND ADAPTIVE HASH INDEX", "LOG", "BUFFER POOL AND MEMORY",
                          "ROW OPERATIONS", "END OF INNODB MONITOR OUTPUT"})


def redact_status(text: str) -> str:
    out: list[str] = []
    mark: str | None = None          # inside a run that is being replaced by this marker
    marked = False                   # the marker of the current run is out already
    sql: SqlScanner | None = None    # the statement's scanner while in an SQL run
    free = False                     # in a deadlock, a foreign key error or the transaction list
    prev = ""
    run_chars = 0
    distrust = False                 # a statement ended inside an open literal
    lines = text.split("\n")
    # Headings of sections the server always prints once and that hold no statement: one seen
    # once is the server's (a forged copy makes two, and then neither is trusted). Only these end
    # a run of distrust.
    seen: dict[str, list[int]] = {}
    for n, line in enumerate(lines):
        if line in _ALWAYS_ONCE:
            seen.setdefault(line, []).append(n)
    trusted = {at[0] for at in seen.values() if len(at) == 1}
    for n, line in enumerate(lines):
        if n in trusted and prev.startswith("---") and prev.strip("-") == "":
            free, distrust, mark, sql = False, False, None, None
        elif prev.startswith("---") and prev.strip("-") == "" and line.isupper() and not distrust:
            # a section title; not after a statement cut inside a literal: the literal may hold one
            free = line in _FREE_SECTIONS
        elif line == _LIST_MARK:
            free = True
        prev = line
        if mark is not None:
            inside = sql is not None and sql.open is not None and run_chars <= MAX_QUERY_CHARS
            if inside and _STRICT.match(line):
                inside, distrust = False, True
            if inside or not _STRUCTURAL.match(line):
                if sql is not None:
                    sql.feed(line)
                    run_chars += len(line) + 1
                if not marked:
                    out.append(mark)
                    marked = True
                continue
            mark, sql = None, None
        rows = _ROWS.match(line)
        if distrust and not _THREAD.match(line) and not _STRICT.match(line):
            if line.strip() and (not out or out[-1] != SQL_MARK):
                out.append(SQL_MARK)
        elif rows:
            out.append(_blank(rows.group(1)) if free else rows.group(1))
            mark, marked = ROW_MARK, rows.group(1) != line
            if marked:
                out.append(ROW_MARK)
        elif _THREAD.match(line):
            # the statement starts on the next line; quoted text here is a user or host name
            out.append(_QUOTED.sub("?", line))
            # distrust stays: after a statement cut inside a literal, this thread line may be the
            # literal's own; it ends at a heading only the server can have printed
            mark, marked, sql, run_chars = SQL_MARK, False, SqlScanner(), 0
        elif free and line.strip() and not _STRUCTURAL.match(line) and not _KNOWN_FREE.match(line):
            # not a line InnoDB prints here: the rest of a statement cut short by a line of its own
            if not out or out[-1] != SQL_MARK:
                out.append(SQL_MARK)
        else:
            out.append(_blank(line) if free else line)
    return "\n".join(out)


# Other lines InnoDB prints in a deadlock, a foreign key error and the transaction list.
_KNOWN_FREE = re.compile(
    r"^(?:\d{6} +\d{1,2}:\d\d:\d\d|\s*\d+: len \d+;|\s*\d+: SQL NULL|LATEST |Normal read view|Read view|"
    r"[A-Za-z ,]*(?:index|table) [`\"]|for table |constraint|FOREIGN KEY|REFERENCES|update |delete |insert |"
    r"DATA TUPLE|PHYSICAL RECORD|in index|, in index|is record:|child table|parent table|"
    r"\d+ row lock|undo log|mysql tables|MariaDB tables|LOCK WAIT|TRX HAS|lock_mode|lock mode|"
    r"Note that|Please refer|MySQL tables|No more|OS thread|Trx #rec|Last time|"
    r"\(\d+\) |\d+ lock struct|=+$|-+$)")


def _blank(line: str) -> str:
    return _QUOTED.sub("?", line) if ("'" in line or '"' in line) else line
