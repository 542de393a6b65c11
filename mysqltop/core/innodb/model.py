"""What the InnoDB status parser returns. Keys of `to_dict()` follow docs/json.md (contract).

Every field is optional: formats drift across 5.0 … 9.x and MariaDB, so a value the text does
not carry stays None. Extend freely (add fields), never rename or drop one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .deadlock import Deadlock

Int = int | None
Float = float | None


@dataclass
class Log:
    lsn: Int = None
    flushed_lsn: Int = None
    pages_flushed_lsn: Int = None
    checkpoint_lsn: Int = None
    pending_log_writes: Int = None
    pending_chkp_writes: Int = None
    log_ios_done: Int = None
    log_ios_per_s: Float = None
    checkpoint_age_target: Int = None     # Percona/XtraDB "Checkpoint age target"
    max_checkpoint_age: Int = None        # Percona/XtraDB "Max checkpoint age"
    checkpoint_age: Int = None            # Percona/XtraDB "Checkpoint age"
    modified_age: Int = None              # Percona/XtraDB "Modified age"
    buffer_assigned_lsn: Int = None       # 8.0+ "Log buffer assigned up to"
    buffer_completed_lsn: Int = None      # 8.0+ "Log buffer completed up to"
    written_lsn: Int = None               # 8.0+ "Log written up to"
    dirty_pages_added_lsn: Int = None     # 8.0+ "Added dirty pages up to"


@dataclass
class Transactions:
    trx_id_counter: Int = None
    purge_done_trx: Int = None
    purge_state: str | None = None
    history_list_length: Int = None
    by_state: dict[str, int] = field(default_factory=dict)   # "ACTIVE" → n, "not started" → n, …
    lock_waits: list[dict[str, Any]] = field(default_factory=list)  # {trx, waiting_s}
    longest_active_s: Int = None
    purge_undo_no: Int = None             # "undo n:o < N" of the purge line
    row_lock_structs: Int = None          # "Total number of lock structs in row lock hash table"
    transactions: int = 0                 # ---TRANSACTION entries listed


@dataclass
class BufferPool:
    size_pages: Int = None
    free_pages: Int = None
    database_pages: Int = None
    old_database_pages: Int = None
    modified_pages: Int = None
    pending_reads: Int = None
    pending_writes_lru: Int = None
    pending_writes_flush_list: Int = None
    pending_writes_single_page: Int = None
    pages_made_young: Int = None
    pages_not_young: Int = None
    pages_read: Int = None
    pages_created: Int = None
    pages_written: Int = None
    hit_rate: Float = None                # 0..1 ("1000 / 1000" → 1.0)
    lru_len: Int = None
    total_memory_allocated: Int = None
    additional_pool_allocated: Int = None # 5.x "; in additional pool allocated N"
    dictionary_memory_allocated: Int = None
    size_bytes: Int = None                # Percona "Buffer pool size, bytes"
    dirty_pct: Float = None               # MariaDB "Percent of dirty pages(LRU & free pages)"
    max_dirty_pct: Float = None           # MariaDB "Max dirty pages percent"
    youngs_per_s: Float = None
    non_youngs_per_s: Float = None
    pages_read_per_s: Float = None
    pages_created_per_s: Float = None
    pages_written_per_s: Float = None
    instances: list[dict[str, Any]] = field(default_factory=list)   # INDIVIDUAL BUFFER POOL INFO


@dataclass
class IoThreadState:
    id: int
    role: str                             # "read thread" → "read", "log thread" → "log", …
    state: str


@dataclass
class FileIO:
    io_threads: list[IoThreadState] = field(default_factory=list)
    pending_aio_reads: list[int] = field(default_factory=list)    # per read thread
    pending_aio_writes: list[int] = field(default_factory=list)   # per write thread
    pending_ibuf_aio_reads: Int = None
    pending_log_ios: Int = None
    pending_sync_ios: Int = None
    pending_flush_log: Int = None
    pending_flush_buffer_pool: Int = None
    os_file_reads: Int = None
    os_file_writes: Int = None
    os_fsyncs: Int = None
    reads_per_s: Float = None
    writes_per_s: Float = None
    fsyncs_per_s: Float = None
    pending_reads: Int = None             # sum of aio reads, or MariaDB "N pending reads"
    pending_writes: Int = None
    pending_fsyncs: Int = None            # log + buffer pool, or MariaDB "Pending flushes (fsync): N"
    os_pending_reads: Int = None          # "N pending preads/reads, N pending pwrites/writes"
    os_pending_writes: Int = None
    avg_bytes_per_read: Int = None


@dataclass
class SemaphoreWait:
    thread: str | None = None             # thread id as printed (decimal or 0x…)
    seconds: Float = None
    waited_at: str | None = None          # "btr0sea.c:1317"
    lock: str | None = None               # "mutex" | "S-lock" | "X-lock" | "SX-lock" | …
    address: str | None = None            # latch/mutex address "0x…": same address = same latch
    name: str | None = None               # mutex/latch name when printed (e.g. "&btr_search_latch")
    created_at: str | None = None         # "btr0sea.c:139"
    writer: str | None = None
    last_locked: str | None = None        # last time write locked / reserved in file:line
    writer_mode: str | None = None        # "exclusive", "wait exclusive", …
    last_read_locked: str | None = None   # "Last time read locked in file F line L"
    readers: Int = None                   # "number of readers N"
    waiters_flag: Int = None


@dataclass
class Semaphores:
    reservation_count: Int = None
    signal_count: Int = None
    mutex_spin_waits: Int = None
    mutex_spin_rounds: Int = None
    mutex_os_waits: Int = None
    rw_shared_spins: Int = None
    rw_shared_rounds: Int = None
    rw_shared_os_waits: Int = None
    rw_excl_spins: Int = None
    rw_excl_rounds: Int = None
    rw_excl_os_waits: Int = None
    rw_sx_spins: Int = None
    rw_sx_rounds: Int = None
    rw_sx_os_waits: Int = None
    spin_rounds_per_wait_mutex: Float = None
    spin_rounds_per_wait_rw_shared: Float = None
    spin_rounds_per_wait_rw_excl: Float = None
    spin_rounds_per_wait_rw_sx: Float = None
    waits: list[SemaphoreWait] = field(default_factory=list)


@dataclass
class InsertBufferAHI:
    ibuf_size: Int = None
    ibuf_free_list_len: Int = None
    ibuf_seg_size: Int = None
    ibuf_merges: Int = None
    ibuf_inserts: Int = None              # 5.0/5.1 "N inserts, N merged recs, N merges"
    ibuf_merged_recs: Int = None
    ibuf_merged: dict[str, int] = field(default_factory=dict)     # "merged operations:" insert/delete_mark/delete
    ibuf_discarded: dict[str, int] = field(default_factory=dict)  # "discarded operations:"
    hash_table_size: Int = None           # summed over AHI partitions
    hash_node_heap_buffers: Int = None
    hash_tables: int = 0                  # AHI partitions seen
    hash_searches_per_s: Float = None
    non_hash_searches_per_s: Float = None


@dataclass
class RowOperations:
    queries_inside: Int = None
    queries_queued: Int = None
    read_views: Int = None
    main_thread_state: str | None = None
    rows_inserted: Int = None
    rows_updated: Int = None
    rows_deleted: Int = None
    rows_read: Int = None
    inserts_per_s: Float = None
    updates_per_s: Float = None
    deletes_per_s: Float = None
    reads_per_s: Float = None
    system_rows_inserted: Int = None      # 8.0+/MariaDB "Number of system rows …"
    system_rows_updated: Int = None
    system_rows_deleted: Int = None
    system_rows_read: Int = None


@dataclass
class InnodbStatus:
    time: str | None = None               # header time as printed, normalised "YYYY-MM-DD HH:MM:SS"
    averaging_s: Int = None               # "Per second averages calculated from the last N seconds"
    header_thread: str | None = None      # thread id printed in the header (0x… or decimal), if any
    truncated: bool = True                # no END OF INNODB MONITOR OUTPUT seen
    sections: list[str] = field(default_factory=list)
    unknown_lines: int = 0
    deadlock: Deadlock | None = None                  # LATEST DETECTED DEADLOCK, read whole
    foreign_key_error: dict[str, Any] | None = None   # {time} when LATEST FOREIGN KEY ERROR present
    background: dict[str, Any] = field(default_factory=dict)
    semaphores: Semaphores = field(default_factory=Semaphores)
    transactions: Transactions = field(default_factory=Transactions)
    file_io: FileIO = field(default_factory=FileIO)
    insert_buffer: InsertBufferAHI = field(default_factory=InsertBufferAHI)
    log: Log = field(default_factory=Log)
    buffer_pool: BufferPool = field(default_factory=BufferPool)
    row_operations: RowOperations = field(default_factory=RowOperations)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["kind"] = "innodb_status"
        return d
