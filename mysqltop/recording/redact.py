"""Redaction of a stored SHOW ENGINE INNODB STATUS (`record --redact`, `mysqltop redact`).

The server prints statement text after each "MySQL thread id …"/"MariaDB thread id …" line (the
TRANSACTIONS list, LATEST DETECTED DEADLOCK, LATEST FOREIGN KEY ERROR) and prints it raw: a
statement can hold any line the server prints itself — a forged `---TRANSACTION …` entry, a lock
line, a section heading — and no reading of the text tells the forgery from the server's line.
So nothing after a thread line is kept: from there to the next section heading only the server
can have printed, the text becomes one marker line. A heading is the server's when it stands
once in the whole text between its rule lines (a statement that copies one makes two, and then
neither ends anything). The two sections made of free text, LATEST DETECTED DEADLOCK and LATEST
FOREIGN KEY ERROR (a CREATE TABLE's clause is printed there with no thread line), keep only their
heading and time.

Kept: every line before the first thread line of a section (the TRANSACTIONS head: Trx id
counter, purge state, history list length), the thread line itself cut after its query id (user,
host and state are names), and every section without statements (SEMAPHORES, FILE I/O, LOG,
BUFFER POOL, ROW OPERATIONS …). The transactions and lock waits a poll reads from INNODB_TRX
and the lock tables are separate fields, redacted on their own (core/locks.without_statements).
"""

from __future__ import annotations

import re

SQL_MARK = "(SQL text redacted by mysqltop --redact)"

# MariaDB thread id 11, OS thread handle 140257383147200, query id 138532 127.0.0.1 sbtest Writing to net
# MySQL thread id 15, OS thread handle 0x7f…, query id 30 localhost root updating
_THREAD = re.compile(r"^((?:MySQL|MariaDB) thread id \d+(?:, OS thread handle [0-9a-fx]+)?(?:, query id \d+)?)")
HEADINGS = frozenset({
    "BACKGROUND THREAD", "SEMAPHORES", "LATEST FOREIGN KEY ERROR", "LATEST DETECTED DEADLOCK", "TRANSACTIONS",
    "FILE I/O", "INSERT BUFFER AND ADAPTIVE HASH INDEX", "LOG", "BUFFER POOL AND MEMORY",
    "INDIVIDUAL BUFFER POOL INFO", "ROW OPERATIONS", "END OF INNODB MONITOR OUTPUT"})
FREE_SECTIONS = frozenset({"LATEST FOREIGN KEY ERROR", "LATEST DETECTED DEADLOCK"})
_RULE = re.compile(r"^(?:-{3,}|={3,})$")
# the time a deadlock / foreign key error section starts with: "2026-01-01 00:00:00 0x7f…", "260101 0:00:00"
_SECTION_TIME = re.compile(r"^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: 0x[0-9a-f]+| \d+)?|\d{6} +\d{1,2}:\d\d:\d\d)"
                           r"(?: Transaction:)?$")


def trusted_headings(lines: list[str]) -> set[int]:
    """Line numbers of section headings the server printed: once in the text, after a rule."""
    at: dict[str, list[int]] = {}
    for n, line in enumerate(lines):
        if line in HEADINGS:
            at.setdefault(line, []).append(n)
    return {ns[0] for ns in at.values() if len(ns) == 1 and ns[0] > 0 and _RULE.match(lines[ns[0] - 1])}


def redact_status(text: str) -> str:
    lines = text.split("\n")
    trusted = trusted_headings(lines)
    out: list[str] = []
    zone = False                      # after a thread line (or in a free-text section)
    free_head = 0                     # lines of a free section's head still to keep (rule, time)
    for n, line in enumerate(lines):
        if n in trusted:
            if zone and out and out[-1] == SQL_MARK:
                out.append(lines[n - 1])          # the heading's rule line went into the zone
            zone = False
            out.append(line)
            if line in FREE_SECTIONS:
                zone, free_head = True, 2
            continue
        if zone:
            if free_head:
                free_head -= 1
                if _RULE.match(line) or _SECTION_TIME.match(line):
                    out.append(line)
                    continue
                free_head = 0
            if n + 1 in trusted and _RULE.match(line):
                continue                          # the next heading's rule: written with it
            if out[-1:] != [SQL_MARK]:
                out.append(SQL_MARK)
            continue
        m = _THREAD.match(line)
        if m is not None:
            out.append(m.group(1))
            zone = True
            continue
        out.append(line)
    return "\n".join(out)
