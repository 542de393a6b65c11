"""Opening recording files: create (mode 0600), open for append, open read-only, and tell
"not a recording" / "newer format" apart — each failure one UserError line."""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
from pathlib import Path

from mysqltop.errors import UserError
from mysqltop.recording.format import APPLICATION_ID, FORMAT_VERSION, MAGIC, META_TABLES, SCHEMA

# Samples are 0.5–2 KB rows appended in order; a page holds whole rows only, so bigger pages waste
# less of their tail (4 KB: ~15 %, 8 KB: ~7 %) at the cost of a fixed page per table.
PAGE_SIZE = 8192
WAL_LIMIT = 256 * 1024


def _uri(path: Path, **params: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"{path.resolve().as_uri()}?{query}" if query else path.resolve().as_uri()


def check_recording(conn: sqlite3.Connection, path: Path) -> None:
    """Raise UserError unless `conn` is a recording this version can read."""
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise UserError(_unreadable(path, exc), 1 if _has_sqlite_magic(path) else 2) from None
    if app_id != APPLICATION_ID:
        if app_id == 0 and _no_tables(conn) and not _wal_bytes(path):
            raise UserError(f"{path} holds no samples yet: a copy taken while it was being recorded, without "
                            f"{path.name}-wal? copy both files, or copy again once the recorder has stopped", 1)
        raise UserError(f"{path} is not a mysqltop recording", 2)
    if version > FORMAT_VERSION:
        raise UserError(
            f"{path} was written by a newer mysqltop (recording format {version}, this one reads "
            f"up to {FORMAT_VERSION}); upgrade mysqltop to read it", 2)
    damage: Exception | None = None
    for table in META_TABLES:        # the header, then its copy in pages of its own
        try:
            row = conn.execute(f"SELECT value FROM {table} WHERE key='magic'").fetchone()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:   # (a damaged schema: names not UTF-8)
            if not str(exc).startswith("no such table"):           # (older files have no copy)
                damage = damage or exc
            continue
        if row and row[0] == MAGIC:
            return
    if damage is not None:
        raise UserError(f"{path} is a damaged mysqltop recording ({damage}); its samples cannot be read", 1)
    raise UserError(f"{path} is not a mysqltop recording (no header)", 2)


def _wal_bytes(path: Path) -> int:
    try:
        return Path(f"{path}-wal").stat().st_size     # opening it read-only may create an empty one
    except OSError:
        return 0


def _no_tables(conn: sqlite3.Connection) -> bool:
    try:
        return conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    except sqlite3.DatabaseError:
        return False


def _has_sqlite_magic(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _unreadable(path: Path, exc: sqlite3.DatabaseError) -> str:
    """Say 'truncated' when the header promises more pages than the file holds (a partial copy)."""
    if not _has_sqlite_magic(path):
        return f"{path} is not a mysqltop recording (not an SQLite file)"
    try:
        with open(path, "rb") as f:
            head = f.read(32)
        page = int.from_bytes(head[16:18], "big") or 65536
        pages = int.from_bytes(head[28:32], "big")
        size = path.stat().st_size
        if pages and size < pages * page:
            return (f"{path} is truncated ({size:,} of {pages * page:,} bytes; a partial copy?): "
                    "copy the whole file again")
    except OSError:
        pass
    return f"{path} is a damaged recording ({exc}); its samples cannot be read"


def _text(data: bytes) -> str:
    """A TEXT column of a damaged page may not be UTF-8: shown with U+FFFD, never an exception."""
    return data.decode("utf-8", "replace")


def usable_path(p: Path) -> None:
    """A name the file system cannot even look up (a NUL byte, too long) is a one-line error."""
    try:
        os.stat(p)
    except ValueError:
        raise UserError(f"{p}: not a file name", 2) from None
    except OSError as exc:
        if exc.errno in (errno.ENAMETOOLONG, errno.ELOOP, errno.ENOTDIR, errno.EACCES):
            raise UserError(f"{p}: {(exc.strerror or str(exc)).lower()}", 2) from None


def special_kind(p: Path) -> str | None:
    """What a path that is not a regular file is (following symlinks), in words; None for a file."""
    mode = os.stat(p).st_mode
    for test, words in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                        (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return None


def open_readonly(path: str | os.PathLike[str]) -> sqlite3.Connection:
    p = Path(path)
    usable_path(p)
    if not p.exists():
        raise UserError(f"{p}: no such recording", 2)
    if p.is_dir():
        raise UserError(f"{p} is a directory, not a recording", 2)
    if not os.access(p, os.R_OK):
        raise UserError(f"{p}: permission denied", 2)
    kind = special_kind(p)
    if kind is not None:
        # SQLite needs a regular file it can seek in: a FIFO or a device is never a recording,
        # and "empty" (its st_size) would send the reader looking for the wrong problem.
        raise UserError(f"{p} is {kind}, not a recording; give the path of the .mtrec file itself "
                        "(copy a recording from a pipe or device to a file first)", 2)
    if p.stat().st_size == 0:
        raise UserError(f"{p} is empty, not a mysqltop recording", 2)
    conn = sqlite3.connect(_uri(p, mode="ro"), uri=True, check_same_thread=False)
    conn.text_factory = _text
    try:
        check_recording(conn, p)
    except UserError as first:
        conn.close()
        # A recording left in WAL mode in a directory we cannot write (read-only media) can only be
        # opened as immutable; anything else is a real answer.
        if "not an SQLite" in first.message or not os.access(p.parent, os.W_OK):
            conn = sqlite3.connect(_uri(p, mode="ro", immutable="1"), uri=True, check_same_thread=False)
            conn.text_factory = _text
            try:
                check_recording(conn, p)
            except UserError:
                conn.close()
                raise first from None
            return conn
        raise
    return conn


def open_for_append(path: str | os.PathLike[str]) -> tuple[sqlite3.Connection, bool]:
    """Connection in autocommit mode with the schema in place; True when the file is new."""
    p = Path(path)
    if p.is_dir():
        raise UserError(f"{p} is a directory; give a file name for the recording", 2)
    new = not p.exists() or p.stat().st_size == 0
    try:
        if new:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT, 0o600)
            os.fchmod(fd, 0o600)
            os.close(fd)
        elif not os.access(p, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    except OSError as exc:
        code = 1 if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO) else 2
        raise UserError(f"cannot write recording {p}: {exc.strerror or exc}", code) from None
    conn = sqlite3.connect(str(p), isolation_level=None, check_same_thread=False)
    try:
        if new:
            conn.execute(f"PRAGMA page_size={PAGE_SIZE}")   # before WAL: fixed from then on
        else:
            check_recording(conn, p)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != FORMAT_VERSION:
                raise UserError(f"{p} uses recording format {version}; record to a new file", 2)
        conn.execute("PRAGMA journal_mode=WAL")     # readers see each sample as it is committed
        conn.execute("PRAGMA synchronous=NORMAL")   # WAL+NORMAL: a killed process loses nothing
        # After a checkpoint the -wal restarts from its beginning but keeps its high-water size;
        # this gives the space back, so FILE + FILE-wal stay close to FILE's own size.
        conn.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
        if new:
            conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version={FORMAT_VERSION}")
        conn.executescript(SCHEMA)         # an older file gains the tables added since (all additive)
    except sqlite3.Error as exc:
        conn.close()
        raise storage_error(p, exc) from None
    except UserError:
        conn.close()
        raise
    return conn, new


def storage_error(path: Path, exc: Exception) -> UserError:
    msg = str(exc)
    if "full" in msg:
        return UserError(f"disk full writing {path}; free space or use --max-size/--keep", 1)
    if "readonly" in msg or "read-only" in msg:
        return UserError(f"cannot write recording {path}: read-only", 2)
    if "locked" in msg:
        return UserError(f"{path} is locked by another process (another recorder?)", 1)
    return UserError(f"cannot write recording {path}: {msg}", 1)
