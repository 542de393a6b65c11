"""The instrumentation mysqltop asks a server for, in one place: which latch instruments it ranks,
the settings bench/observer --configs measures, the one the hint offers with its measured cost,
and the runtime statements. Data only."""

from __future__ import annotations

from dataclasses import dataclass

# The latches the rules and the hotspot pane rank: InnoDB's mutexes and rw-locks, and the SQL
# layer's table cache (rules/latches.py TABLE_CACHE). Every other instrument costs throughput for
# nothing mysqltop reads.
LATCH_INSTRUMENTS: tuple[str, ...] = (
    "wait/synch/mutex/innodb/%", "wait/synch/rwlock/innodb/%", "wait/synch/sxlock/innodb/%",
    "wait/synch/mutex/sql/LOCK_table_cache", "wait/synch/mutex/sql/LOCK_open",
    "wait/synch/mutex/sql/LOCK_unused_shares", "wait/synch/mutex/sql/TABLE_SHARE::tdc.LOCK_table_share")


@dataclass(frozen=True)
class Config:
    """One instrumentation setting: the [mysqld] lines of a server config."""

    name: str
    lines: tuple[str, ...]
    latches: bool                  # the hotspot pane ranks InnoDB latches with it

    @property
    def server_args(self) -> tuple[str, ...]:
        """The same as mariadbd/mysqld command-line options."""
        out = []
        for line in self.lines:
            key, _, value = line.partition("=")
            out.append(f"--{key.strip()}={value.strip().strip(_QUOTE)}")
        return tuple(out)


_QUOTE = "'"
_PS_ON = "performance_schema = ON"
# What mysqltop reads from performance_schema: the global wait summary of the latch instruments
# (consumer global_instrumentation only: a summary needs no history, no per-thread aggregation
# and no statement digests) and the threads table (no instrument needed). The most specific
# pattern wins whatever the order, so '%=OFF' turns off only what the latch lines do not name.
LEAN = Config("latches-lean", (
    _PS_ON, "performance-schema-instrument = '%=OFF'",
    *(f"performance-schema-instrument = '{name}=ON'" for name in LATCH_INSTRUMENTS),
    "performance-schema-consumer-thread-instrumentation = OFF",
    "performance-schema-consumer-statements-digest = OFF"), latches=True)
# Candidates bench/observer --configs measures against performance_schema=OFF (the first).
CONFIGS: tuple[Config, ...] = (
    Config("ps-off", ("performance_schema = OFF",), latches=False),
    Config("ps-defaults", (_PS_ON,), latches=False),
    Config("all-synch", (_PS_ON, "performance-schema-instrument = 'wait/synch/%=ON'"), latches=True),
    Config("latches", (_PS_ON, *(f"performance-schema-instrument = '{name}=ON'" for name in LATCH_INSTRUMENTS)),
           latches=True),
    LEAN,
)
# The setting the hint offers and its cost as measured (bench/observer --configs; docs/instruments.md).
HINT = LEAN
HINT_COST = ("+2.8 % ± 5.6 server CPU per transaction against performance_schema=OFF, MariaDB 10.11 at "
             "16 threads; as shipped performance_schema=ON costs +17 % (bench/observer --configs)")
# MySQL 5.7+ without performance_schema: SHOW ENGINE INNODB MUTEX lists rw-lock waits always and
# mutex waits once the latch monitor counters are on (runtime, no restart).
MUTEX_MONITOR_SQL = "SET GLOBAL innodb_monitor_enable = 'latch'"


# Instruments only MariaDB has (its table definition cache): a MySQL or Percona server has no such
# names, so their hint leaves them out rather than hand a DBA lines that do nothing there.
MARIADB_ONLY: tuple[str, ...] = ("wait/synch/mutex/sql/LOCK_unused_shares",
                                 "wait/synch/mutex/sql/TABLE_SHARE::tdc.LOCK_table_share")


def _instruments_for(flavor: str | None) -> tuple[str, ...]:
    if flavor in ("mysql", "percona"):
        return tuple(name for name in LATCH_INSTRUMENTS if name not in MARIADB_ONLY)
    return LATCH_INSTRUMENTS


def enable_sql(flavor: str | None = None) -> str:
    """The same instruments turned on at runtime (they last until the server restarts)."""
    return ("UPDATE performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES' WHERE "
            + " OR ".join(f"NAME LIKE '{name}'" for name in _instruments_for(flavor)))


ENABLE_SQL = enable_sql()


def hint_config(flavor: str | None = None) -> str:
    """The hint's [mysqld] lines, on one line; for flavor mysql or percona without MariaDB's own."""
    lines = HINT.lines
    if flavor in ("mysql", "percona"):
        lines = tuple(line for line in lines if not any(f"'{name}=" in line for name in MARIADB_ONLY))
    return "; ".join(lines)
