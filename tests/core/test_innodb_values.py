"""Exact key values per version family (read off the corpus texts), plus line forms the corpus
lacks, written from the server sources' format strings."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from mysqltop.core.innodb import InnodbStatus, parse_innodb_status, parse_with_unknown

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "innodb-status"


def corpus(name: str) -> InnodbStatus:
    return parse_innodb_status((CORPUS / name).read_text())


def status_text(*sections: tuple[str, str], header: str = "2026-11-22 01:22:30 0x7790 INNODB MONITOR OUTPUT") -> str:
    parts = ["=" * 37, header, "=" * 37, "Per second averages calculated from the last 18 seconds"]
    for title, body in sections:
        bar = "-" * len(title)
        parts += [bar, title, bar, body.strip("\n")]
    parts += ["-" * 28, "END OF INNODB MONITOR OUTPUT", "=" * 28, ""]
    return "\n".join(parts)


# --- MySQL 5.0: two-word numbers, combined RW line, old aio form, one semaphore cell -------------

def test_mysql_50() -> None:
    s = corpus("mysql-5.0__pmp-cacti__innodb-008.txt")
    assert s.time == "2006-08-18 21:25:38" and s.averaging_s == 1 and s.truncated is False
    assert s.log.lsn == 476 * 2**32 + 3871193896 == 2048275626792
    assert s.log.checkpoint_lsn == 476 * 2**32 + 3870845161
    assert s.transactions.trx_id_counter == 133408350
    assert s.transactions.purge_done_trx == 133408332
    assert s.transactions.history_list_length == 0
    sem = s.semaphores
    assert (sem.reservation_count, sem.signal_count) == (25852795, 25040646)
    assert (sem.mutex_spin_waits, sem.mutex_spin_rounds, sem.mutex_os_waits) == (1472567303, 1361479798, 10761956)
    assert (sem.rw_shared_spins, sem.rw_shared_os_waits, sem.rw_excl_spins, sem.rw_excl_os_waits) == (
        28507164, 11626439, 20124203, 2147828)
    assert sem.rw_shared_rounds is None
    [w] = sem.waits
    assert (w.thread, w.waited_at, w.seconds, w.lock, w.address, w.created_at) == (
        "1568861104", "btr0cur.c:424", 0.0, "S-lock", "0x654e0088", "buf0buf.c:490")
    assert (w.writer, w.writer_mode, w.readers, w.waiters_flag) == ("1568861104", "exclusive", 0, 1)
    assert (w.last_read_locked, w.last_locked) == ("btr0cur.c:424", "buf0buf.c:1693")
    fio = s.file_io
    assert fio.pending_aio_reads == [] and fio.pending_reads == 45 and fio.pending_writes == 0
    assert (fio.os_pending_reads, fio.os_pending_writes) == (1, 0)
    assert (fio.os_file_reads, fio.os_file_writes, fio.os_fsyncs) == (45418933, 35217570, 28236603)
    assert [t.role for t in fio.io_threads] == ["insert buffer", "log", "read", "write"]
    assert fio.io_threads[2].state == "doing file i/o"
    assert s.buffer_pool.hit_rate == 0.995 and s.buffer_pool.pending_reads == 64
    assert s.insert_buffer.ibuf_merges == 2778819 and s.insert_buffer.hash_searches_per_s == 9493.51


def test_mysql_50_lock_wait_and_foreign_key() -> None:
    s = corpus("mysql-5.0__pmp-cacti__innodb-006.txt")
    assert s.transactions.lock_waits == [{"trx": 3410, "waiting_s": 32.0}]
    assert s.transactions.longest_active_s == 253
    fk = corpus("mysql-5.0__percona-toolkit__fk-is002.txt")
    assert fk.foreign_key_error == {"time": "2007-09-15 15:10:24"} and fk.deadlock is None


def test_mysql_51_builtin_wait_cells() -> None:
    s = corpus("mysql-5.0or5.1__percona-toolkit__innodb-status.004.txt")
    assert s.log.lsn == 208 * 2**32 + 1379356250
    waits = s.semaphores.waits
    assert len(waits) == 8
    assert Counter((w.lock, w.created_at) for w in waits) == {
        ("X-lock", "btr0sea.c:139"): 3, ("S-lock", "btr0sea.c:139"): 4, ("X-lock", "buf0buf.c:550"): 1}
    assert {w.writer for w in waits[1:]} == {"1220999488"}
    assert s.transactions.transactions == 66 and s.transactions.by_state == {"not started": 57, "ACTIVE": 9}


# --- hex trx ids (5.1 plugin, 5.5, XtraDB) --------------------------------------------------------

def test_mysql_51_plugin_hex_ids_and_lock_wait() -> None:
    s = corpus("mysql-5.1-plugin__pmp-nagios__innodb-status-002.txt")
    assert s.transactions.trx_id_counter == 0x1007        # "Trx id counter 1007" under a yymmdd header
    assert s.transactions.purge_done_trx == 0x1004
    assert s.transactions.lock_waits == [{"trx": 0x1006, "waiting_s": 22.0}]
    assert s.background["log_flush_and_writes"] == 14


def test_mysql_55_instances_and_aio_lists() -> None:
    s = corpus("mysql-5.5__innotop__innodb-status-003.txt")
    assert s.transactions.trx_id_counter == 0x1F69D1888 == 8432457864
    assert s.transactions.history_list_length == 2402
    assert s.file_io.pending_aio_reads == [0] * 8 and s.file_io.pending_aio_writes == [0] * 8
    assert len(s.file_io.io_threads) == 18
    sem = s.semaphores
    assert (sem.rw_excl_spins, sem.rw_excl_rounds, sem.rw_excl_os_waits) == (349482, 17619220, 306941)
    assert sem.spin_rounds_per_wait_rw_excl == 50.42
    bp = s.buffer_pool
    assert bp.size_pages == 1310715 and bp.modified_pages == 37825 and bp.hit_rate == 0.997
    assert [i["id"] for i in bp.instances] == list(range(10))
    first = bp.instances[0]
    assert (first["size_pages"], first["database_pages"], first["modified_pages"], first["hit_rate"]) == (
        131072, 216709, 4044, 0.994)
    assert sum(i["modified_pages"] for i in bp.instances) == bp.modified_pages
    assert s.insert_buffer.ibuf_merged == {"insert": 15239524, "delete_mark": 68559, "delete": 578}


def test_percona_51_busy_semaphores() -> None:
    s = corpus("percona-5.1__percona-toolkit__innodb-status.001.txt")
    waits = s.semaphores.waits
    assert len(waits) == 164
    assert Counter(w.lock for w in waits) == {"S-lock": 130, "mutex": 30, "X-lock": 4}
    mutex = next(w for w in waits if w.lock == "mutex")
    assert (mutex.name, mutex.address, mutex.waiters_flag, mutex.waited_at) == (
        "&kernel_mutex", "0xf89ab0", 1, "lock0lock.c:3224")
    assert max(w.seconds for w in waits) == 13.0
    assert s.log.checkpoint_age_target == 315266430 and s.log.max_checkpoint_age == 325436314
    assert s.buffer_pool.size_bytes == 90194296832 and s.buffer_pool.pending_writes_lru == 63
    assert s.file_io.pending_flush_log == 1 and s.file_io.pending_fsyncs == 1
    # sessions listed without "LIST OF TRANSACTIONS FOR EACH SESSION:" (capture cut at 64 KB)
    assert s.transactions.trx_id_counter == 0xFC593C7D1 and s.transactions.by_state == {"ACTIVE": 1}


def test_percona_55_checkpoint_and_deadlock() -> None:
    s = corpus("percona-5.5__percona-toolkit__2018_03_05_13_24_55-innodbstatus1.txt")
    assert s.transactions.history_list_length == 5198
    assert s.transactions.trx_id_counter == 0x55D015695
    assert (s.log.lsn, s.log.checkpoint_lsn, s.log.checkpoint_age) == (22611157035212, 22611148135290, 8899922)
    assert s.deadlock is not None and s.deadlock.time == "2018-02-27 14:45:46"
    assert s.buffer_pool.total_memory_allocated == 24245174272


# --- 5.7 / 8.x --------------------------------------------------------------------------------------

def test_mysql_57_sx_counters() -> None:
    s = corpus("mysql-5.7.7__innotop__innodb-status-009.txt")
    sem = s.semaphores
    assert (sem.rw_sx_spins, sem.rw_sx_rounds, sem.rw_sx_os_waits) == (342, 10537, 338)
    assert sem.spin_rounds_per_wait_rw_excl == 11793.75
    assert s.header_thread == "0x7f8ff8aab700"
    assert s.transactions.purge_state == "running but idle"


def test_mysql_57_docs_wrapper_and_events() -> None:
    s = corpus("mysql-5.7__mysql-docs__InnoDB_Monitors-5.7-example.txt")   # has the \G wrapper
    assert s.time == "2014-10-16 18:37:29" and s.averaging_s == 20
    assert s.deadlock is not None and s.deadlock.time == "2014-10-16 18:36:30"
    assert s.foreign_key_error == {"time": "2014-10-16 18:35:18"}
    assert len(s.buffer_pool.instances) == 2


def test_mysql_80_lists_and_system_rows() -> None:
    s = corpus("mysql-8.0.3x__datadog__innodb_status_mysql_80.txt")
    assert s.time == "2024-10-23 14:29:35" and s.header_thread == "275827633680128"
    assert s.file_io.pending_aio_reads == [0, 0, 0, 0, 0] and s.file_io.pending_aio_writes == [0, 0, 0, 0]
    assert s.file_io.pending_ibuf_aio_reads is None          # " ibuf aio reads:" printed empty
    assert s.log.lsn == 32236865 and s.log.written_lsn == 32236865 and s.log.pages_flushed_lsn == 32236865
    assert s.insert_buffer.hash_tables == 8
    assert s.row_operations.system_rows_read == 3763162 and s.row_operations.reads_per_s == 2.43


def test_mysql_81_rw_latch_info_and_waits() -> None:
    s, unknown = parse_with_unknown((CORPUS / "mysql-8.1.0__innotop__innodb-status-011.txt").read_text())
    assert unknown == []
    assert "RW-LATCH INFO" in s.sections
    assert (s.semaphores.reservation_count, s.semaphores.signal_count) == (8133, 6750)
    waits = s.semaphores.waits
    assert len(waits) == 9
    assert {w.created_at for w in waits} == {"hash0hash.cc:116"}
    assert {w.last_locked for w in waits} == {"hash0hash.cc:64"}     # basename of a full path
    assert Counter(w.waited_at for w in waits) == {"buf0block_hint.cc:72": 8, "buf0buf.cc:3735": 1}
    assert s.file_io.io_threads[0].role == "null"                    # "((null))"


def test_percona_80_checkpoint_age() -> None:
    s = corpus("percona-8.0.32__percona-toolkit__temp_enc008-innodb-status.txt")
    assert (s.log.checkpoint_age, s.log.max_checkpoint_age, s.log.modified_age) == (70611, 7945216, 70611)
    assert s.buffer_pool.size_bytes == 16760832 and s.buffer_pool.hit_rate == 0.951


# --- MariaDB 10.6+ ------------------------------------------------------------------------------------

def test_mariadb_1011_lab_capture() -> None:
    s = corpus("mariadb-10.11__mysqltop-lab__oltp-rw-32thr.txt")
    assert s.semaphores.waits == [] and s.semaphores.reservation_count is None
    assert s.file_io.io_threads == []
    assert (s.file_io.pending_reads, s.file_io.pending_writes, s.file_io.pending_fsyncs) == (0, 0, 0)
    assert (s.log.lsn, s.log.flushed_lsn, s.log.checkpoint_lsn) == (282464134, 282461925, 271370747)
    assert s.transactions.trx_id_counter == 59684 and s.transactions.history_list_length == 317
    assert s.transactions.by_state == {"ACTIVE": 29, "not started": 3}
    assert s.buffer_pool.dirty_pct == 65.763 and s.buffer_pool.modified_pages == 10670
    assert s.buffer_pool.pending_writes_single_page is None
    assert s.row_operations.read_views == 29 and s.row_operations.queries_inside is None


def test_mariadb_forms_not_in_corpus() -> None:
    text = status_text(
        ("FILE I/O", "Pending flushes (fsync): 2\n"
                     "12116 OS file reads, 7 OS file writes, 2913 OS fsyncs\n"
                     "3 pending reads, 1 pending writes\n"
                     "0.00 reads/s, 11555 avg bytes/read, 0.00 writes/s, 0.00 fsyncs/s"),
        ("TRANSACTIONS", "Trx id counter 59684\nHistory list length 3\n"
                         "LIST OF TRANSACTIONS FOR EACH SESSION:\n"
                         "---TRANSACTION 59674, ACTIVE 12 sec starting index read\n"
                         "LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)\n"
                         # captured from a throwaway MariaDB 10.11.19 with a row lock wait
                         "------- TRX HAS BEEN WAITING 2500212 us FOR THIS LOCK TO BE GRANTED:\n"
                         "RECORD LOCKS space id 5 page no 3 n bits 72 index PRIMARY\n"
                         "---TRANSACTION (0x7f903c1d7080), ACTIVE 3 sec\n"
                         "LOCK WAIT 2 lock struct(s), heap size 1128, 1 row lock(s)\n"
                         "------- TRX HAS BEEN WAITING 2 SEC FOR THIS LOCK TO BE GRANTED:\n"),
    )
    s, unknown = parse_with_unknown(text)
    assert unknown == []
    assert (s.file_io.pending_reads, s.file_io.pending_writes, s.file_io.pending_fsyncs) == (3, 1, 2)
    assert s.transactions.lock_waits == [
        {"trx": 59674, "waiting_s": pytest.approx(2.500212)}, {"trx": "0x7f903c1d7080", "waiting_s": 2.0}]
    assert s.transactions.longest_active_s == 12


# --- semaphore cell forms from the sources ---------------------------------------------------------

def test_semaphore_cell_forms() -> None:
    body = "\n".join([
        "OS WAIT ARRAY INFO: reservation count 10, signal count 9",
        "--Thread 140 has waited at srv0srv.c line 1999 for 2.00 seconds the semaphore:",
        "Mutex at 0x2b1c9d0 created file srv0srv.c line 1234, lock var 1",
        "Last time reserved in file buf0buf.c line 1693, waiters flag 1",
        "--Thread 141 has waited at trx0trx.cc line 10 for 1 seconds the semaphore:",
        "Mutex at 0x7f00, Mutex TRX_SYS created trx0sys.cc:595, lock var 1",
        "--Thread 142 has waited at dict0dict.cc line 7 for 0 seconds the semaphore:",
        "SX-lock on RW-latch at 0x7f01 created in file dict0dict.cc line 2534",
        "a writer (thread id 99) has reserved it in mode SX",
        "number of readers 2, waiters flag 0, lock_word: 0",
        "--Thread 143 has waited at buf0buf.cc line 8 for 0 seconds the semaphore:",
        "X-lock (wait_ex) on RW-latch at 0x7f02 created in file buf0buf.cc line 1455",
        "a writer (thread id 143) has reserved it in mode  wait exclusive",
        "Last time read locked in file not yet reserved line 0",
        "wait has ended",
        "Mutex spin waits 5, rounds 6, OS waits 7",
        "RW-shared spins 1, rounds 2, OS waits 3",
        "RW-excl spins 4, rounds 5, OS waits 6",
        "RW-sx spins 7, rounds 8, OS waits 9",
        "Spin rounds per wait: 1.20 mutex, 2.00 RW-shared, 1.25 RW-excl, 1.14 RW-sx",
    ])
    s, unknown = parse_with_unknown(status_text(("SEMAPHORES", body)))
    assert unknown == []
    a, b, c, d = s.semaphores.waits
    assert (a.lock, a.address, a.created_at, a.last_locked, a.waiters_flag, a.seconds) == (
        "mutex", "0x2b1c9d0", "srv0srv.c:1234", "buf0buf.c:1693", 1, 2.0)
    assert (b.lock, b.name, b.created_at) == ("mutex", "TRX_SYS", "trx0sys.cc:595")
    assert (c.lock, c.created_at, c.writer, c.writer_mode, c.readers) == ("SX-lock", "dict0dict.cc:2534", "99", "SX", 2)
    assert (d.lock, d.writer_mode, d.last_read_locked) == ("X-lock (wait_ex)", "wait exclusive", None)
    sem = s.semaphores
    assert (sem.rw_sx_spins, sem.rw_sx_rounds, sem.rw_sx_os_waits, sem.spin_rounds_per_wait_rw_sx) == (7, 8, 9, 1.14)
    assert (sem.mutex_spin_waits, sem.mutex_spin_rounds, sem.mutex_os_waits) == (5, 6, 7)


# --- envelope -------------------------------------------------------------------------------------------

def test_escaped_one_line_and_crlf_forms_parse_the_same() -> None:
    raw = (CORPUS / "mysql-8.0.12__innotop__innodb-status-010.txt").read_text()
    want = parse_innodb_status(raw).to_dict()
    escaped = "InnoDB\t\t" + raw.replace("\n", "\\n") + "\n"            # mysql -B -e output
    assert parse_innodb_status(escaped).to_dict() == want
    assert parse_innodb_status(raw.replace("\n", "\r\n")).to_dict() == want


def test_unknown_sections_and_lines_are_counted() -> None:
    text = status_text(("LOG", "Log sequence number 5\nsomething new 1"), ("SHINY NEW THING", "a\nb\n\nc"))
    s, unknown = parse_with_unknown(text)
    assert s.log.lsn == 5
    assert s.sections == ["LOG", "SHINY NEW THING"]
    assert s.unknown_lines == 4 and unknown == ["something new 1", "a", "b", "c"]
    assert s.truncated is False


def test_empty_and_headerless_input() -> None:
    s = parse_innodb_status("")
    assert s.truncated is True and s.sections == [] and s.time is None and s.unknown_lines == 0
    s = parse_innodb_status("---\nLOG\n---\nLog sequence number 0 7\n")
    assert s.log.lsn == 7 and s.time is None and s.truncated is True
