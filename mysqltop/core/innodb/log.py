"""LOG: LSNs (one- or two-word), checkpoint, pending writes, log i/o's, 8.0+ and Percona extras."""

from __future__ import annotations

import re

from .atoms import f, n, n2
from .model import InnodbStatus
from .line_rules import Context, Out, Rule, ignore, lines_of, run


def _lsn(label: str, name: str) -> re.Pattern[str]:
    return re.compile(rf"{re.escape(label)}\s+{n2(name)}$")


RULES = [
    # Log sequence number 476 3871193896 | Log sequence number          20847697
    Rule("Log sequence number", _lsn("Log sequence number", "lsn")),
    # Log flushed up to   476 3871193896
    Rule("Log flushed up to", _lsn("Log flushed up to", "flushed_lsn")),
    # Log buffer assigned up to    20847697
    Rule("Log buffer assigned", _lsn("Log buffer assigned up to", "buffer_assigned_lsn")),
    # Log buffer completed up to   20847697
    Rule("Log buffer completed", _lsn("Log buffer completed up to", "buffer_completed_lsn")),
    # Log written up to            20847697
    Rule("Log written up to", _lsn("Log written up to", "written_lsn")),
    # Added dirty pages up to      20847697
    Rule("Added dirty pages", _lsn("Added dirty pages up to", "dirty_pages_added_lsn")),
    # Pages flushed up to 271370747
    Rule("Pages flushed up to", _lsn("Pages flushed up to", "pages_flushed_lsn")),
    # Last checkpoint at  476 3870845161
    Rule("Last checkpoint at", _lsn("Last checkpoint at", "checkpoint_lsn")),
    # Max checkpoint age    7782360          (Percona/XtraDB)
    Rule("Max checkpoint age", _lsn("Max checkpoint age", "max_checkpoint_age")),
    # Checkpoint age target 7539162
    Rule("Checkpoint age target", _lsn("Checkpoint age target", "checkpoint_age_target")),
    # Checkpoint age        0
    Rule("Checkpoint age", _lsn("Checkpoint age", "checkpoint_age")),
    # Modified age          0 | Modified age no less than    70611   (Percona 8.0)
    Rule("Modified age", re.compile(rf"Modified age(?: no less than)?\s+{n2('modified_age')}$")),
    # 0 pending log writes, 0 pending chkp writes | 0 pending log flushes, 0 pending chkp writes
    Rule(None, re.compile(
        rf"{n('pending_log_writes')} pending log (?:writes|flushes), {n('pending_chkp_writes')} pending chkp writes"
    ), has=" pending log "),
    # 24755286 log i/o's done, 0.00 log i/o's/second
    Rule(None, re.compile(
        rf"{n('log_ios_done')} log i/o's done, {f('log_ios_per_s')} log i/o's/second"
    ), has="log i/o's done"),
    # Log minimum file id is 5 | Log maximum file id is 6 | Percona "log sync callers: …" etc.
    *ignore("Log minimum file id", "Log maximum file id", "log sync callers", "log sync syncers",
            "fsync callers", "Log tracked up to", "Max tracked LSN age"),
]


def parse(body: str, status: InnodbStatus, ctx: Context) -> None:
    run(lines_of(body, ctx), RULES, Out(status.log), ctx)

