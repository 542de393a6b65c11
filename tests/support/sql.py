"""Plain sessions on a test server: autocommit, a bounded connect, closed however the block ends."""

from __future__ import annotations

import contextlib
import threading
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Mapping

import pymysql


def connect(kw: Mapping[str, Any], **extra: Any) -> Any:
    return pymysql.connect(**{**kw, "autocommit": True, "connect_timeout": 10, **extra})


@contextmanager
def cursor(kw: Mapping[str, Any], **extra: Any) -> Iterator[Any]:
    """A cursor on a session of its own, closed with the block."""
    conn = connect(kw, **extra)
    try:
        with conn.cursor() as c:
            yield c
    finally:
        conn.close()


def end_sessions(kw: Mapping[str, Any], conns: Iterable[Any], threads: Iterable[threading.Thread]) -> None:
    """KILL QUERY what each of `conns` runs (from a session of its own), join the threads that
    drive them, close them: a load's way out, whatever happened."""
    conns = list(conns)
    with cursor(kw) as killer:
        for c in conns:
            with contextlib.suppress(pymysql.MySQLError):
                killer.execute(f"KILL QUERY {int(c.thread_id())}")
    for t in threads:
        t.join(30)
    for c in conns:
        c.close()
