"""`mysqltop --explain-poll`: every statement a poll may send, its time cap and its cadence, for
each server family, from the plan the poller itself uses (sources/poll_statements.py) — no
connection needed."""

from __future__ import annotations

from mysqltop.sources import lock_reads as locks_src
from mysqltop.sources import poll_statements as ps
from mysqltop.sources import read_caps
from mysqltop.sources.capabilities import Capabilities
from mysqltop.sources.digest_reads import DIGEST_EVERY_S, K_DIGESTS
from mysqltop.sources.wire import ANSWER_CAP_BYTES

# When each statement is sent (by key).
CADENCE = {
    ps.K_STATUS: "every poll",
    ps.K_MUTEX: f"every poll while it lists latches; after {ps.MUTEX_GIVE_UP_POLLS} empty answers every "
                f"{ps.MUTEX_RETRY_S:g} s; never on MariaDB 10.6+",
    ps.K_PS: (f"every {ps.PS_SUMMARY_EVERY_S:g} s" if ps.PS_SUMMARY_EVERY_S > 0 else "every poll")
             + f" (slower while a read costs over {ps.PS_DUTY:.0%} of the time); the polls between carry its "
             "last two reads. Whole at first; from then on only up to the first cond class after the latch classes "
             "(MariaDB: LIMIT ROWS EXAMINED their count + 1, the rows that waited sent; others: LIMIT), whole "
             "again when that row is a latch (a class registered since)",
    ps.K_GSTATUS: f"every poll while it costs under {ps.COSTLY_S * 1000:g} ms, else after two reads every "
                  f"took / {ps.PACED_DUTY:.0%} (its rates over its last two reads)",
    ps.K_METRICS: f"every poll while a counter it asks for is enabled, else every {ps.METRICS_RETRY_S:g} s "
                  "(MariaDB: only the page cleaner's, its status variables count the rest)",
    ps.K_TIME: "every poll",
    locks_src.K_SESSIONS: "every poll",
    locks_src.K_SESSION_STATES: "every poll",
    ps.K_VARS: f"every {ps.VARIABLES_EVERY_S:g} s",
    K_DIGESTS: f"every {DIGEST_EVERY_S:g} s: the digests seen since the previous read (the first read of a "
               "connection: all of them, its baseline); never again on the connection once the consumer is off",
    locks_src.K_TRANSACTIONS: f"second round trip: a row-lock wait, a session waiting on a lock, or a "
                              f"transaction ACTIVE {ps.OLD_TRANSACTION_S} s or more",
    locks_src.K_LOCK_WAITS: "second round trip: while a transaction waits for a row lock",
    locks_src.K_ROW_LOCKS: "second round trip: while a transaction waits for a row lock",
    locks_src.K_LOCK_SESSIONS: "second round trip: while a session waits on a lock",
    locks_src.K_METADATA_LOCKS: "second round trip: while a session waits on a metadata, table, backup or user lock",
    ps.K_MDL_PLUGIN: "second round trip (MariaDB): while a session waits on a lock and metadata_lock_info is not active",
}

FAMILIES = (("MariaDB 10.6+, performance_schema readable", "mariadb", (10, 11, 0), "max_statement_time"),
            ("MySQL 8.0+, performance_schema readable", "mysql", (8, 0, 40), "max_execution_time"),
            ("MySQL 5.7.8+ / MariaDB 10.1+ without performance_schema", "mysql", (5, 7, 44), "max_execution_time"),
            ("MySQL before 5.7.8 / MariaDB before 10.1", "mysql", (5, 6, 51), None))


def _caps(flavor: str, version: tuple[int, ...], ps_readable: bool) -> Capabilities:
    return Capabilities(flavor=flavor, version=".".join(map(str, version)), version_tuple=version,
                        version_comment="", hostname="", current_user="mysqltop@%", address="",
                        performance_schema_on=ps_readable, performance_schema=ps_readable,
                        synch_instruments_total=0, synch_instruments_enabled=0, mutex_rows=0,
                        poll_mutex=flavor != "mariadb", metrics_column="ENABLED" if flavor == "mariadb" else "STATUS",
                        local=False, mysqld_pid=None)


def statements(flavor: str, version: tuple[int, ...], ps_readable: bool) -> list[tuple[str, str]]:
    """(key, SQL) of everything a poll of such a server may send, first round trip first."""
    plan = ps.StatementPlan(_caps(flavor, version, ps_readable))
    first = plan.statements(0.0)
    locks = plan.locks
    second = [(locks_src.K_TRANSACTIONS, locks.transactions.sql), (locks_src.K_LOCK_WAITS, locks.lock_waits.sql)]
    for key, sel in ((locks_src.K_ROW_LOCKS, locks.row_locks), (locks_src.K_LOCK_SESSIONS, locks.lock_sessions),
                     (locks_src.K_METADATA_LOCKS, locks.metadata_locks)):
        if sel is not None:
            second.append((key, sel.sql))
    if flavor == "mariadb":
        second.append((ps.K_MDL_PLUGIN, locks_src.MDL_PLUGIN_SQL))
    return first + second


def explain() -> list[str]:
    lines = ["What a poll sends, per server family. One connection; the first round trip every poll, the second",
             "only when the first calls for it. Set once per connection (and again after a reconnect):",
             ""]
    for title, flavor, version, cap in FAMILIES:
        sql = {"max_statement_time": read_caps.MARIADB_SET[1], "max_execution_time": read_caps.MYSQL_SET[1]}.get(
            cap or "", read_caps.NO_CAP_SET[1])
        lines += [f"== {title}", f"   {sql}"]
        if cap is None:
            lines.append("   (no statement time cap on these servers: a slow read is waited for up to the answer timeout)")
        ps_readable = "without" not in title and cap is not None
        for key, stmt in statements(flavor, version, ps_readable):
            lines.append(f"  {key:<15} cap {read_caps.describe_cap(cap, stmt)}; {CADENCE.get(key, 'every poll')}")
            lines.append(f"      {stmt}")
        lines.append("")
    lines += [f"Every answer: at most {ANSWER_CAP_BYTES >> 20} MiB on the wire (more is refused unread, the connection "
              "dropped and taken again).",
              f"A read a bound cuts is reported in its frame (capped_reads) and skipped for {read_caps.BACKOFF_FIRST_S:g} s, "
              f"doubling at each cut up to {read_caps.BACKOFF_MAX_S:g} s; never sent twice in one poll.",
              f"Lock waits: lock_wait_timeout {read_caps.LOCK_WAIT_TIMEOUT_S} s (metadata locks, FLUSH TABLES WITH READ "
              f"LOCK), innodb_lock_wait_timeout {read_caps.INNODB_LOCK_WAIT_TIMEOUT_S} s (no statement takes a row lock)."]
    return lines
