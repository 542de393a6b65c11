"""`--redact`: drop SQL text and row data from stored SHOW ENGINE INNODB STATUS output.

SQL shows up after each "MySQL thread id …"/"MariaDB thread id …" line (TRANSACTIONS, LATEST
DETECTED DEADLOCK, LATEST FOREIGN KEY ERROR) and runs, possibly over several lines, until the next
structural line. Row data shows up in lock/FK dumps after "PHYSICAL RECORD:" / "DATA TUPLE:".
Each such run becomes one marker line; everything the parsers count on is kept.
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
# Lines that end a run of SQL text or row data (every line InnoDB itself prints there).
_STRUCTURAL = re.compile(
    r"^(?:---|\*\*\*|===|TRANSACTION |Trx |TABLE LOCK|RECORD LOCKS|Record lock|LOCK WAIT|"
    r"(?:mysql|MariaDB) tables in use|\d+ lock struct|MySQL thread id|MariaDB thread id|"
    r"History list|Purge done|LIST OF TRANSACTIONS|END OF INNODB|Total number of lock|"
    r"Foreign key constraint|Trying to|But in parent|But the parent|the closest match|"
    r"CONSTRAINT |WE ROLL BACK|TOO DEEP|Transaction:|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)"
)


def redact_status(text: str) -> str:
    out: list[str] = []
    mark: str | None = None          # inside a run that is being replaced by this marker
    marked = False                   # the marker of the current run is out already
    for line in text.split("\n"):
        if mark is not None:
            if not _STRUCTURAL.match(line):
                if not marked:
                    out.append(mark)
                    marked = True
                continue
            mark = None
        rows = _ROWS.match(line)
        if rows:
            out.append(rows.group(1))
            mark, marked = ROW_MARK, rows.group(1) != line
            if marked:
                out.append(ROW_MARK)
        elif _THREAD.match(line):
            out.append(line)
            mark, marked = SQL_MARK, False
        else:
            out.append(line)
    return "\n".join(out)
