"""parse_innodb_status: envelope → section split → one small parser per section.

Never raises on bad input: unknown sections and lines are counted (`unknown_lines`), a missing
END marker sets `truncated`, every value the text does not carry stays None.
"""

from __future__ import annotations

from typing import Callable

from . import background, buffer_pool, events, file_io, insert_buffer, log, row_operations
from . import semaphores, transactions
from .envelope import split, unwrap
from .model import InnodbStatus
from .line_rules import Context, lines_of

SectionParser = Callable[[str, InnodbStatus, Context], None]

SECTIONS: dict[str, SectionParser] = {
    "BACKGROUND THREAD": background.parse,
    "SEMAPHORES": semaphores.parse,
    "RW-LATCH INFO": semaphores.parse,          # 8.0 debug builds: a sub-section of SEMAPHORES
    "LATEST DETECTED DEADLOCK": events.parse_deadlock,
    "LATEST FOREIGN KEY ERROR": events.parse_foreign_key,
    "TRANSACTIONS": transactions.parse,
    "FILE I/O": file_io.parse,
    "INSERT BUFFER AND ADAPTIVE HASH INDEX": insert_buffer.parse,
    "LOG": log.parse,
    "BUFFER POOL AND MEMORY": buffer_pool.parse,
    "INDIVIDUAL BUFFER POOL INFO": buffer_pool.parse_instances,
    "ROW OPERATIONS": row_operations.parse,
}


def parse_with_unknown(text: str) -> tuple[InnodbStatus, list[str]]:
    """Parse, and also return the lines nobody understood (for debugging and tests)."""
    env = split(unwrap(text))
    status = InnodbStatus(
        time=env.time, header_thread=env.thread, averaging_s=env.averaging_s, truncated=not env.ended
    )
    ctx = Context(old_header=env.old_header, unknown=env.unknown, unread=env.unread, doubtful=env.doubtful)
    for title, body in env.sections:
        status.sections.append(title)
        parser = SECTIONS.get(title)
        if parser is None:
            ctx.unknown.extend(line.strip() for line in lines_of(body, ctx) if line.strip())
        else:
            parser(body, status, ctx)
    status.unknown_lines = len(ctx.unknown) + ctx.unread
    return status, ctx.unknown


def parse_innodb_status(text: str) -> InnodbStatus:
    """Parse one SHOW ENGINE INNODB STATUS text (raw, \\G form or escaped one-line form)."""
    return parse_with_unknown(text)[0]
