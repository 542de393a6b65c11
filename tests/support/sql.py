"""Plain sessions on a test server: autocommit, a bounded connect, closed however the block ends."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Mapping

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
