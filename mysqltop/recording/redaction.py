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

import dataclasses
import json
import re
from typing import Callable

from mysqltop.core.sample import RawSample

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


# --- shareable copies: names → stable pseudonyms (`mysqltop redact`) ---------------------------

_PORT = re.compile(r"^(.*?)(?::\d+)?$")
_LOCK_TABLE = re.compile(r"^`((?:[^`]|``)*)`\.`((?:[^`]|``)*)`")
_IP = re.compile(r"^[\d.]+$|:")
# an account as the server quotes it in error text: 'monitor_ops'@'%'
_ACCOUNT = re.compile(r"'((?:[^'\\\n]|\\.){1,80})'@'((?:[^'\\\n]|\\.){0,255})'")
# a file path in free text or a variable's value: absolute (/var/lib/mysql), relative (./mysql-bin),
# in the home directory (~/x) or a Windows drive (C:\\data); not "I/O" or "reads/s"
_PATH = re.compile(r"(?<![\w~.-])(?:~|\.{1,2})?/[^\s'\"`,;()<>]+|\b[A-Za-z]:\\[^\s'\"`,;()<>]+")
# a server source file a latch site names ("created in file /build/…/btr0sea.cc"): its name is kept
_SOURCE_FILE = re.compile(r"[\w-]+\.(?:cc|c|h|ic|cpp|hpp|inl)$")
PATH_MARK = "(path)"
KEEP_INDEXES = frozenset({"PRIMARY", "GEN_CLUST_INDEX"})
# the server's own schemas name nobody (and `mysql` stands in mysql_native_password, version_comment …)
KEEP_SCHEMAS = frozenset({"mysql", "information_schema", "performance_schema", "sys"})
# A name this long is replaced (and checked) wherever it stands, inside words too; a shorter one
# (host `db`) wherever no letter touches it: `db_err.log`, `db-2`, `db.corp`, not `innodb`,
# `mariadb`, whose letters go on.
MIN_CHECKED = 3


def _short(names: list[str]) -> str:
    return r"(?<![^\W\d_])(?:" + "|".join(re.escape(n) for n in names) + r")(?![^\W\d_])"


def _holds(text: str, name: str) -> bool:
    """Does `text` hold `name` where redaction replaces it (MIN_CHECKED)?"""
    return name in text if len(name) >= MIN_CHECKED else re.search(_short([name]), text) is not None
NAMED_VARIABLES = frozenset({"hostname", "report_host", "wsrep_node_name", "wsrep_node_address",
                             "wsrep_cluster_address", "wsrep_sst_receive_address", "server_uuid", "wsrep_cluster_name"})


def _path(m: re.Match[str]) -> str:
    tail = re.split(r"[/\\]", m.group(0).rstrip("/\\"))[-1]
    return tail if _SOURCE_FILE.match(tail) else PATH_MARK


def without_paths(text: str) -> str:
    """Every file path in `text` replaced by PATH_MARK (a server source file by its name)."""
    return _PATH.sub(_path, text)


class Pseudonyms:
    """The same name → the same pseudonym (`user_1`, `host_2`, `schema_1`, `table_3`, `index_1`,
    `process_1`) within one copy, so lock trees and session lists still read; `originals` is what
    was replaced, for the check that none of it survives. A host has one pseudonym whatever
    spells it: the server's @@hostname, its address, a client's host column, a short or a
    fully qualified name."""

    def __init__(self, keep_server_host: bool = False) -> None:
        self.keep_server_host = keep_server_host
        self.names: dict[tuple[str, str], str] = {}
        self.originals: dict[str, str] = {}          # original → pseudonym
        self.words: set[str] = set()                 # words the server prints (server_words)
        self.kept: dict[str, set[str]] = {}          # name → server words it was left inside
        self._pattern: re.Pattern[str] | None = None
        self._shelters: tuple[tuple[int, int], frozenset[str]] = ((0, 0), frozenset())

    def of(self, kind: str, name: object) -> object:
        if not isinstance(name, str) or not name or (kind == "schema" and name in KEEP_SCHEMAS):
            return name
        key = (kind, name)
        p = self.names.get(key)
        if p is None:
            p = f"{kind}_{sum(1 for k in self.names if k[0] == kind) + 1}"
            self._add(key, p)
        return p

    def _add(self, key: tuple[str, str], pseudonym: str) -> None:
        self.names[key] = pseudonym
        self.originals.setdefault(key[1], pseudonym)
        self._pattern = None

    def host(self, value: object) -> object:
        if not isinstance(value, str) or not value:
            return value
        if value.startswith("/"):                         # a socket path
            return PATH_MARK
        m = _PORT.match(value)
        name = m.group(1) if m else value
        short = name.split(".", 1)[0] if not _IP.search(name) else name
        p = self.names.get(("host", name)) or self.names.get(("host", short))
        if p is None:
            p = str(self.of("host", short))
        for n in (name, short):
            if ("host", n) not in self.names:
                self._add(("host", n), p)
        return p

    def account(self, text: str) -> str:
        """`'monitor_ops'@'%'` → `'user_1'@'host_2'` ('%' and '' stay: they name no host)."""
        def one(m: re.Match[str]) -> str:
            host = m.group(2)
            return f"'{self.of('user', m.group(1))}'@'{host if host in ('%', '') else self.host(host)}'"
        return _ACCOUNT.sub(one, text)

    def lock_table(self, value: object) -> object:
        if not isinstance(value, str):
            return value
        m = _LOCK_TABLE.match(value)
        if m is None:
            return self.of("table", value)
        return f"`{self.of('schema', m.group(1))}`.`{self.of('table', m.group(2))}`"

    def index(self, value: object) -> object:
        return value if not isinstance(value, str) or value in KEEP_INDEXES else self.of("index", value)

    def pattern(self) -> re.Pattern[str] | None:
        """Every known name: a long one wherever it stands (`db1` in `/srv/db1_data`), a short
        one where no letter touches it (MIN_CHECKED)."""
        if self._pattern is None and self.originals:
            names = sorted(self.originals, key=len, reverse=True)
            long = [re.escape(n) for n in names if len(n) >= MIN_CHECKED]
            short = [n for n in names if len(n) < MIN_CHECKED]
            alts = long + ([_short(short)] if short else [])
            self._pattern = re.compile("|".join(alts))
        return self._pattern

    def text(self, value: object, server: bool = False) -> object:
        """Free text with accounts, paths and every known name replaced; `server`: text only the
        server writes (the InnoDB status without its statements, a session state)."""
        if not isinstance(value, str):
            return value
        value = without_paths(self.account(value))
        pat = self.pattern()
        return value if pat is None else pat.sub(lambda m: self._replaced(m, value, server), value)

    def _replaced(self, m: re.Match[str], text: str, server: bool) -> str:
        """A name's pseudonym, unless it stands inside a longer word the server prints (`data`
        in `database`, `test` in `latest`) or, in the server's own text, is such a word itself
        (a schema `lock` in `0 lock struct(s)`): that word is the server's and stays."""
        name, start, end = m.group(0), m.start(), m.end()
        while start and (text[start - 1].isalnum() or text[start - 1] in "_$"):
            start -= 1
        while end < len(text) and (text[end].isalnum() or text[end] in "_$"):
            end += 1
        word = text[start:end]
        if word in self.words and (server or word != name):
            self.kept.setdefault(name, set()).add(word)
            return name
        return self.originals[name]

    def shelters(self) -> frozenset[str]:
        """Server words holding a checked name (or being one): where the check does not look."""
        key = (len(self.words), len(self.originals))
        if self._shelters[0] != key:
            checked = self.checked()
            self._shelters = (key, frozenset(w for w in self.words if any(_holds(w, n) for n in checked)))
        return self._shelters[1]

    def checked(self) -> list[str]:
        return list(self.originals)


def _rows(rows: list[list[object]] | None, cols: dict[int, Callable[[object], object]]) -> list[list[object]] | None:
    if rows is None:
        return None
    return [[cols[i](v) if i in cols else v for i, v in enumerate(r)] if isinstance(r, list) else r for r in rows]


def _variable(names: Pseudonyms, key: str, value: str) -> str:
    if key in NAMED_VARIABLES:
        if key == "hostname":
            return value if names.keep_server_host else str(names.host(value))
        return "(redacted)"
    return str(names.text(value))


_WORD = re.compile(r"[\w$]+")


def server_words(raw: RawSample) -> set[str]:
    """The words only the server prints in a sample: counter, variable, instrument, latch and
    metric names, session states, the InnoDB status once its statements are gone. Values of
    variables are not among them: a DBA writes those (replicate_do_db=shopdb_archive)."""
    texts = [*raw.global_status, *raw.variables]
    for k in _VOCABULARY:
        texts.append(json.dumps(getattr(raw, k), default=str, ensure_ascii=False))
    if raw.innodb_status:
        texts.append(redact_status(raw.innodb_status))
    for row in raw.session_states or []:
        texts += [v for v in row if isinstance(v, str)] if isinstance(row, list) else []
    return {w for t in texts for w in _WORD.findall(t)}


def redact_sample(raw: RawSample, names: Pseudonyms) -> RawSample:
    """The sample as a shareable copy holds it: statement text gone (status text per
    redact_status, statement columns marked), user, host, schema, table, index and host process
    names pseudonymous, file paths and accounts in free text replaced, the server's host name too
    unless kept."""
    names.words |= server_words(raw)
    sql = lambda v: SQL_MARK if v is not None else None   # noqa: E731
    user, host = (lambda v: names.of("user", v)), names.host
    schema = lambda v: names.of("schema", v)              # noqa: E731
    sessions = _rows(raw.sessions, {1: user, 2: host, 3: schema, 7: sql})
    transactions = _rows(raw.transactions, {2: user, 3: host, 11: sql})
    lock_waits = _rows(raw.lock_waits, {2: user, 3: host, 5: sql, 8: user, 9: host, 13: sql,
                                        14: names.lock_table, 15: names.index, 18: sql})
    table = lambda v: names.of("table", v)                # noqa: E731
    lock_sessions = _rows(raw.lock_sessions, {1: user, 2: host, 3: schema, 7: sql, 11: sql})
    metadata_locks = _rows(raw.metadata_locks, {3: schema, 4: table})   # a table's or a user lock's name
    # lock_data is the locked key's values: the table's data, marked like a statement
    row_locks = _rows(raw.row_locks, {3: user, 4: host, 11: names.lock_table, 12: names.index, 16: sql, 18: sql})
    # active sessions: the wait object after the lock rows above named its table and index
    active = _rows(raw.active_sessions, {1: names.text, 2: sql, 3: user, 4: host, 5: schema,
                                         7: lambda v: names.text(v, server=True)})
    server = raw.server
    if not names.keep_server_host:
        server = dataclasses.replace(server, hostname=str(names.host(server.hostname)) if server.hostname else None,
                                     address=None)
        if raw.server.address:
            names.host(raw.server.address)
    host_sample = raw.host
    if host_sample is not None and host_sample.top_procs:
        procs = _rows(host_sample.top_procs, {1: lambda v: names.of("process", v)})
        host_sample = dataclasses.replace(host_sample, top_procs=procs)
    for v in [raw.error, *raw.errors.values(), *raw.variables.values()]:
        if v:
            names.account(v)                             # so every field's text replaces them
    variables = {k: _variable(names, k, v) for k, v in raw.variables.items()}
    status = redact_status(raw.innodb_status) if raw.innodb_status else raw.innodb_status
    return dataclasses.replace(
        raw, server=server, sessions=sessions, transactions=transactions, lock_waits=lock_waits,
        lock_sessions=lock_sessions, metadata_locks=metadata_locks, row_locks=row_locks, host=host_sample,
        variables=variables, active_sessions=active,
        innodb_status=names.text(status, server=True) if status else status,  # type: ignore[arg-type]
        global_status={k: str(names.text(v)) for k, v in raw.global_status.items()},
        errors={k: str(names.text(v)) for k, v in raw.errors.items()},
        error=names.text(raw.error) if raw.error else raw.error,  # type: ignore[arg-type]
        session_states=_rows(raw.session_states, {1: lambda v: names.text(v, server=True)}))


# Fields that hold only the server's own vocabulary (instrument, latch, counter and variable
# names, statement keys): no user's name can be there, and `root` in `KEYINFO::root_lock` is none.
_VOCABULARY = ("ps_waits", "innodb_mutex", "innodb_metrics", "timings_ms", "not_recorded")


# Fields of text only the server writes (once redacted): a name may be one of its words there.
_SERVER_TEXT = ("innodb_status", "session_states")


def _values(raw: RawSample, keep_server_host: bool, server: bool) -> str:
    """The text of every value the sample holds, one a line: never a field or key name (a schema
    named `status` is not in `innodb_status`, a field). `server`: of _SERVER_TEXT only, else of
    every other field."""
    d = dataclasses.asdict(raw)
    d = {k: v for k, v in d.items() if (k in _SERVER_TEXT) == server}
    for k in _VOCABULARY:
        d.pop(k, None)
    if keep_server_host and not server:   # kept as asked (--keep-server-host)
        d["server"].pop("hostname", None)
        d["server"].pop("address", None)
        d["variables"].pop("hostname", None)
    out: list[str] = []

    def walk(v: object) -> None:
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        elif v is not None:
            out.append(str(v))
    walk(d)
    return "\n".join(out)


def survivors(raw: RawSample, names: Pseudonyms) -> list[str]:
    """Original names still in a redacted sample: anywhere in any field's text, inside a longer
    word too (only the markers and pseudonyms redaction wrote, and the server's host name when
    kept, are not searched)."""
    return sorted({*found_in(_values(raw, names.keep_server_host, False), names),
                   *found_in(_values(raw, names.keep_server_host, True), names, server=True)})


def found_in(text: str, names: Pseudonyms, server: bool = False) -> list[str]:
    """Checked names in `text`, inside other words too; not inside a word the server prints, nor,
    `server` text, as one (Pseudonyms.text)."""
    checked = names.checked()
    if not checked:
        return []
    ours = sorted({*names.names.values(), SQL_MARK, PATH_MARK, "(redacted)"}, key=len, reverse=True)
    text = re.sub("|".join(map(re.escape, ours)), "\0", text)
    shelters = names.shelters()
    if shelters:                          # server words a name was kept in (Pseudonyms.kept)
        checked_set = set(checked)
        text = _WORD.sub(lambda m: "\0" if m.group(0) in shelters and (server or m.group(0) not in checked_set)
                         else m.group(0), text)
    return sorted(n for n in checked if _holds(text, n))
