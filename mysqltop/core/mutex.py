"""SHOW ENGINE INNODB MUTEX (and 5.0's SHOW MUTEX STATUS): rows → MutexRow, summed per name/site."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class MutexRow:
    name: str                 # "&kernel_mutex", "rwlock", "sum rwlock", "mutex", "buf_pool_mutex"
    site: str | None          # "dict0dict.cc:2783" where the row names one
    os_waits: int | None = None
    spins: int | None = None
    waits: int | None = None
    calls: int | None = None
    instances: int = 1        # rows summed into this one


def parse_mutex_rows(rows: list[list[str]]) -> list[MutexRow]:
    """Rows as the server returns them: [Type, Name, Status]. Empty is valid (MariaDB 10.6+)."""
    raise NotImplementedError
