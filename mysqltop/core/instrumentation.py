"""The instrumentation mysqltop asks a server for, in one place: which latch instruments it ranks,
the metadata-lock instrument and plugin that name a stall's holder, the settings bench/observer
--configs measures, the one the hint offers with its measured cost, and the runtime statements.
Data only."""

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
# performance_schema.metadata_locks lists who holds each metadata lock (and who waits) only with this
# instrument on (MySQL 8: on by default; MariaDB: off): a stall's holder is then the server's word.
MDL_INSTRUMENT = "wait/lock/metadata/sql/mdl"
# The latch view's setting plus the metadata-lock instrument: what the hint offers.
LEAN_MDL = Config("latches-lean-mdl", (*LEAN.lines, f"performance-schema-instrument = '{MDL_INSTRUMENT}=ON'"),
                  latches=True)
# MariaDB's metadata_lock_info plugin: information_schema.METADATA_LOCK_INFO lists every granted
# metadata lock, the ones taken before it was installed included; nothing runs until it is read.
MDL_PLUGIN_LINE = "plugin-load-add = metadata_lock_info"
MDL_PLUGIN_SQL = "INSTALL SONAME 'metadata_lock_info'"
# The instrument turned on at runtime: it records metadata locks taken from then on (a lock held
# since before stays unlisted until taken again), so on MariaDB the plugin is the runtime answer.
MDL_ENABLE_SQL = ("UPDATE performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES' "
                  f"WHERE NAME='{MDL_INSTRUMENT}'")
# Candidates bench/observer --configs measures against performance_schema=OFF (the first).
CONFIGS: tuple[Config, ...] = (
    Config("ps-off", ("performance_schema = OFF",), latches=False),
    Config("ps-defaults", (_PS_ON,), latches=False),
    Config("all-synch", (_PS_ON, "performance-schema-instrument = 'wait/synch/%=ON'"), latches=True),
    Config("latches", (_PS_ON, *(f"performance-schema-instrument = '{name}=ON'" for name in LATCH_INSTRUMENTS)),
           latches=True),
    LEAN,
    LEAN_MDL,
)
# The setting the hint offers and its cost as measured (bench/observer --configs; docs/instruments.md).
HINT = LEAN_MDL
HINT_COST = ("+0.8 % ± 7.8 server CPU per transaction against performance_schema=OFF (the latch lines alone: "
             "+2.8 % ± 5.6), MariaDB 10.11 at 16 threads; as shipped performance_schema=ON costs +17 % "
             "(bench/observer --configs)")
# The metadata-lock instrument's own cost: latches-lean-mdl against latches-lean in the same run.
MDL_COST = ("none measurable: +0.8 % ± 7.8 server CPU per transaction with it against performance_schema=OFF, "
            "+2.2 % ± 12.4 without it in the same run (MariaDB 10.11, 16 threads, bench/observer --configs)")
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


def lock_holders_statement(flavor: str | None) -> tuple[str, str]:
    """The one runtime statement that makes this server list who holds each metadata, table,
    backup and user lock, and what it costs."""
    if flavor == "mariadb":
        return MDL_PLUGIN_SQL, ("the plugin lists the locks held now, the stall's included; it costs nothing until "
                                "read (mysqltop reads it only while sessions wait); it stays installed over restarts")
    return MDL_ENABLE_SQL, (f"performance_schema then lists metadata locks taken from now on (not one held since "
                            f"before); it lasts until the server restarts; cost: {MDL_COST}")
