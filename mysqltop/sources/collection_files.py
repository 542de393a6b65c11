"""Reading the files of a collection: regular files only, never through a link, bounded.

Everything in a collection is hostile. A file is opened without following a symbolic link
(O_NOFOLLOW) and without blocking (O_NONBLOCK: a FIFO cannot hang the import), and what was
opened is checked with fstat — a regular file, the same one lstat saw when the collection was
listed — so swapping a file for a link or a device between the look and the open reads nothing.
Text is streamed line by line (bounded memory whatever the size); a line is cut at MAX_LINE bytes;
whole-file reads are capped at MAX_SMALL_FILE.
"""

from __future__ import annotations

import errno
import os
import stat
from contextvars import ContextVar
from pathlib import Path
from typing import BinaryIO, Iterator

from mysqltop.errors import UserError

MAX_LINE = 1 << 20                  # bytes of one line kept (a longer one is cut)
MAX_SMALL_FILE = 64 << 20           # innodbstatus, mutex-status, variables, trigger: read whole
SNIFF = 64 << 10                    # bytes looked at to tell text from binary junk
# `import --follow-hardlinks`: read a file with several names whoever owns it (the command sets it
# around its reads; _foreign_link says why it is off by default)
FOLLOW_HARDLINKS: ContextVar[bool] = ContextVar("follow_hardlinks", default=False)


class Unusable(UserError):
    """A file that cannot be used as what it claims to be (binary, too large, cut short, not a
    regular file). `reason` is said without the path; --partial leaves the file out with it."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}", 1)
        self.path = path
        self.reason = reason


def regular(path: Path) -> str | None:
    """None when `path` is a regular file (not followed if it is a link); else what it is."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"cannot read ({exc.strerror})"
    return _kind(st.st_mode)


def _kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link (import reads only regular files inside the collection)"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file (a device, FIFO or socket)"


def _foreign_link(path: Path, st: os.stat_result) -> str | None:
    """Why a file with more than one name is not read: unless it is the collection's owner's own
    data (owned by whoever owns its directory, a directory no one else may write), its other name
    may be a file only the importing user can read (root: /etc/shadow), linked in by whoever could
    write the collection; where fs.protected_hardlinks is off anyone can make such a link. The
    importing user's own files are no exception: as root, every file is root's."""
    if st.st_nlink <= 1 or FOLLOW_HARDLINKS.get():
        return None
    try:
        d = os.stat(path.parent)
    except OSError:
        d = None
    if d is not None and st.st_uid == d.st_uid and not d.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    whose = "a directory others may write" if d is not None and st.st_uid == d.st_uid else \
        f"not the collection's owner{f' (uid {d.st_uid})' if d is not None else ''}"
    return (f"a hard link (it has {st.st_nlink} names) to a file of uid {st.st_uid}, {whose}: not read, it "
            "may be any file on this host (--follow-hardlinks reads it)")


def open_regular(path: Path) -> BinaryIO:
    """The file opened for reading: a regular file, never through a link, never blocking."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    what = regular(path)
    if what is not None:                 # not opened at all: opening a device can have effects
        raise Unusable(path, what)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Unusable(path, _kind(stat.S_IFLNK) or "a symbolic link") from None
        raise Unusable(path, f"cannot read ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        what = _kind(st.st_mode)
        if what is not None:             # swapped between lstat and open
            raise Unusable(path, what)
        linked = _foreign_link(path, st)
        if linked is not None:
            raise Unusable(path, linked)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _check_text(path: Path, head: bytes) -> None:
    if b"\0" in head:
        raise Unusable(path, "binary data, not a text output of pt-stalk or the mysql client")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:            # not just a character cut at the sniff's end
            bad = sum(1 for b in head if b >= 0x80) / max(1, len(head))
            if bad > 0.3:
                raise Unusable(path, "binary data, not a text output of pt-stalk or the mysql client") from None


def lines(path: Path, max_bytes: int | None = None) -> Iterator[str]:
    """The file's lines, streamed (bounded memory whatever its size), invalid UTF-8 replaced.
    max_bytes: refuse a file larger than this (checked on the opened file)."""
    f = open_regular(path)
    with f:
        if max_bytes is not None:
            size = os.fstat(f.fileno()).st_size
            if size > max_bytes:
                raise Unusable(path, f"{size / 1e6:.0f} MB is too large for what it claims to be "
                                     f"(limit {max_bytes >> 20} MB)")
        head = f.read(SNIFF)
        _check_text(path, head)
        f.seek(0)
        while True:
            line = f.readline(MAX_LINE)
            if not line:
                return
            if len(line) == MAX_LINE and not line.endswith(b"\n"):
                while True:                      # drop the rest of an overlong line
                    more = f.readline(MAX_LINE)
                    if not more or more.endswith(b"\n"):
                        break
            if b"\0" in line:
                raise Unusable(path, "binary data inside the text (a NUL byte)")
            yield line.decode("utf-8", "replace")


def blocks(path: Path, size: int = 1 << 20) -> Iterator[str]:
    """The file as text blocks of about `size` bytes, each ending at a line end (the last one
    perhaps not): the same text `lines` gives, joined — lines longer than MAX_LINE cut, invalid
    UTF-8 replaced, a NUL refused — for parsers that work a page at a time, not a line."""
    f = open_regular(path)
    with f:
        head = f.read(SNIFF)
        _check_text(path, head)
        f.seek(0)
        rest = b""
        while True:
            data = f.read(size)
            if not data:
                break
            data = rest + data
            nul = data.find(b"\0")
            if nul >= 0:                             # the lines before it, then the refusal
                keep = data[:data.rfind(b"\n", 0, nul) + 1]
                if keep:
                    yield _cut(keep).decode("utf-8", "replace")
                raise Unusable(path, "binary data inside the text (a NUL byte)")
            end = data.rfind(b"\n") + 1
            if end == 0:                             # no line end in sight: a line longer than a block
                if len(data) < MAX_LINE:
                    rest = data
                    continue
                data, rest = data[:MAX_LINE] + b"\n", b""
                while (more := f.read(size)) and b"\n" not in more:
                    pass                             # drop the rest of an overlong line
                if more:
                    rest = more[more.index(b"\n") + 1:]
                yield _cut(data).decode("utf-8", "replace")
                continue
            data, rest = data[:end], data[end:]
            yield _cut(data).decode("utf-8", "replace")
        if rest:
            yield _cut(rest).decode("utf-8", "replace")


def _cut(data: bytes) -> bytes:
    """Lines longer than MAX_LINE cut there (rare: checked by the block's length first)."""
    if len(data) <= MAX_LINE or max(map(len, data.split(b"\n"))) <= MAX_LINE:
        return data
    return b"\n".join(line[:MAX_LINE] for line in data.split(b"\n"))


def read_small(path: Path) -> str:
    """A file read whole, at most MAX_SMALL_FILE bytes."""
    return "".join(lines(path, MAX_SMALL_FILE))


def head_lines(path: Path, n: int) -> list[str]:
    out = []
    for i, line in enumerate(lines(path)):
        if i >= n:
            break
        out.append(line)
    return out
