"""ROW OPERATIONS: InnoDB concurrency, read views, main thread state, row counters and rates."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .atoms import f, n
from .model import InnodbStatus, RowOperations
from .line_rules import Context, Rule, ignore, lines_of, run, set_fields

# 2 queries inside InnoDB, 0 queries in queue
QUERIES_RE = re.compile(rf"{n('queries_inside')} queries inside InnoDB, {n('queries_queued')} queries in queue")
# 1 read views open inside InnoDB
READ_VIEWS_RE = re.compile(rf"{n('read_views')} read views open inside InnoDB")
# Main thread process no. 6080, id 1596521392, state: sleeping
# Main thread id 2964, state: waiting for server activity
# Process ID=19871, Main thread ID=139784315979520 , state=sleeping
# Process ID=0, Main thread ID=0, state: sleeping
# state: sleeping                                                     (MariaDB 10.11)
MAIN_THREAD_RE = re.compile(r".*?state[:=] ?(.+)")
# Number of rows inserted 366123974, updated 347070333, deleted 135232886, read 2210469195
ROWS_RE = re.compile(
    rf"Number of rows inserted {n('rows_inserted')}, updated {n('rows_updated')}, "
    rf"deleted {n('rows_deleted')}, read {n('rows_read')}"
)
# Number of system rows inserted 419, updated 357, deleted 325, read 5584
SYSTEM_ROWS_RE = re.compile(
    rf"Number of system rows inserted {n('system_rows_inserted')}, updated {n('system_rows_updated')}, "
    rf"deleted {n('system_rows_deleted')}, read {n('system_rows_read')}"
)
# 0.00 inserts/s, 0.00 updates/s, 0.00 deletes/s, 11224.78 reads/s
RATES_RE = re.compile(
    rf"{f('inserts_per_s')} inserts/s, {f('updates_per_s')} updates/s, "
    rf"{f('deletes_per_s')} deletes/s, {f('reads_per_s')} reads/s"
)


@dataclass
class _State:
    out: RowOperations
    system: bool = False        # the rates line after "Number of system rows" is not ours


def _main_thread(m: re.Match[str], st: _State) -> None:
    st.out.main_thread_state = m[1].strip()


def _system_rows(m: re.Match[str], st: _State) -> None:
    set_fields(m, st)
    st.system = True


def _rates(m: re.Match[str], st: _State) -> None:
    if not st.system:
        set_fields(m, st)


RULES = [
    Rule(None, QUERIES_RE, set_fields, has="queries inside"),
    Rule(None, READ_VIEWS_RE, set_fields, has="read views open"),
    Rule("Number of rows", ROWS_RE, set_fields),
    Rule("Number of system rows", SYSTEM_ROWS_RE, _system_rows),
    Rule(None, RATES_RE, _rates, has=" inserts/s"),
    Rule("Main thread", MAIN_THREAD_RE, _main_thread),
    Rule("Process ID=", MAIN_THREAD_RE, _main_thread),
    Rule("state:", MAIN_THREAD_RE, _main_thread),
    # Percona/XtraDB: "---OLDEST VIEW---" block, "0 transactions active inside InnoDB",
    # "1 out of 1000 descriptors used", "Total memory allocated by read views 88"
    *ignore("---OLDEST VIEW---", "Normal read view", "Read view", "-----",
            "Total memory allocated by read views"),
    Rule(None, re.compile(r"\d+ (?:RW )?transactions active inside InnoDB"), has="transactions active"),
    Rule(None, re.compile(r"\d+ out of \d+ descriptors used"), has="descriptors used"),
]


def parse(body: str, status: InnodbStatus, ctx: Context) -> None:
    run(lines_of(body, ctx), RULES, _State(status.row_operations), ctx)
