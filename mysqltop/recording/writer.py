"""RecordingWriter: appends RawSamples to a recording, one committed row per sample.

Fits the engine's recorder interface (`append(raw)`, `close()`). Every sample is its own WAL
transaction, so a reader sees it at once and `kill -9` loses at most the sample being written.
Samples are delta-coded against the previous one (codec.py) with a keyframe every
`keyframe_every` samples, which bounds the work to decode any one sample; keyframes are coded
against a dictionary sample stored (twice: one damaged copy must not cost an hour of keyframes)
when the writer opens and every DICT_EVERY samples, so they stay small too. Variables and the server identity go to the `state` table only when they change.
`--redact` is applied here, before anything reaches the file.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import sqlite3
import time
import zlib
from pathlib import Path

from mysqltop import __version__
from mysqltop.core.frame import Frame
from mysqltop.core.sample import RawSample, ServerIdentity
from mysqltop.errors import UserError
from mysqltop.recording import codec
from mysqltop.recording.db import open_for_append, storage_error
from mysqltop.recording.format import (DICT_TABLES, FORMAT_VERSION, KEYFRAME_EVERY, MAGIC, META_TABLES,
                                       STATE_TABLES, sample_text, state_json)
from mysqltop.core.blocking import SQL_COLUMNS, without_statements
from mysqltop.recording.redaction import SQL_MARK, redact_status

DICT_EVERY = 3600          # a fresh dictionary each hour at 1 s keeps keyframes small
# Committed samples live in FILE-wal until a checkpoint moves them into FILE. SQLite's own
# auto-checkpoint waits for ~1000 pages (an hour of samples), so a copy of FILE alone taken while
# recording (`scp db1.mtrec …`) or after a kill -9 held no samples, not even the header. A passive
# checkpoint after the first sample and then every minute or so bounds what a lone copy misses.
CHECKPOINT_EVERY = 60


def lock_recording(path: Path) -> int:
    """One recorder per file. A second one used to start fine and make the FIRST fail at its next
    sample ("being written by another recorder"); now the newcomer is refused. flock is separate
    from SQLite's own fcntl locks, readers never take it, and kill -9 releases it."""
    import fcntl

    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise UserError(f"{path} is being written by another recorder: record to another file, "
                        "or stop that recorder first", 2) from None
    return fd


class RecordingWriter:
    def __init__(self, path: str | os.PathLike[str], *, interval: float | None = None,
                 redact: bool = False, trigger: str | None = None, before: float | None = None,
                 after: float | None = None, keyframe_every: int = KEYFRAME_EVERY) -> None:
        self.path = Path(path)
        self.redact = redact
        self.keyframe_every = max(1, keyframe_every)
        self._segment_info = (interval, redact, trigger, before, after)
        self._conn, new = open_for_append(self.path)
        try:
            self._lock_fd = lock_recording(self.path)
        except BaseException:
            self._conn.close()
            raise
        self._closed = False
        try:
            if new:
                for table in META_TABLES:
                    self._conn.executemany(
                        f"INSERT INTO {table} (key, value) VALUES (?, ?)",
                        [("magic", MAGIC), ("format_version", str(FORMAT_VERSION)),
                         ("created", repr(time.time())), ("created_by", __version__)])
            else:                   # a file from before the copies gains them
                self._conn.execute("INSERT OR IGNORE INTO meta_copies SELECT key, value FROM meta")
                self._conn.execute("INSERT OR IGNORE INTO segment_copies SELECT * FROM segments")
                self._conn.execute("INSERT OR IGNORE INTO state_copies SELECT seq, data FROM state")
            row = self._conn.execute("SELECT max(seq) FROM samples").fetchone()
            self._seq = 0 if row[0] is None else row[0] + 1
            row = self._conn.execute("SELECT data FROM state ORDER BY seq DESC LIMIT 1").fetchone()
            self._last_state = zlib.decompress(row[0]).decode() if row else None
        except (sqlite3.Error, zlib.error) as exc:
            self._conn.close()
            os.close(self._lock_fd)
            raise storage_error(self.path, exc) from None
        self._prev: codec.Decoded | None = None   # reference for the next delta (None: keyframe)
        self._dict: codec.Decoded | None = None   # reference for keyframes
        self._since_key = 0
        self._since_dict = 0
        self._segment_open = False
        self._server: ServerIdentity | None = None   # the identity of the last sample appended
        self.samples_written = 0

    # -- the recorder interface -------------------------------------------------------------
    def append(self, raw: RawSample, frame: Frame | None = None) -> None:
        """Write the raw sample (the engine's frame is not stored: recordings are raw-only)."""
        if self._closed:
            raise UserError(f"recording {self.path} is closed", 1)
        if self.redact and raw.innodb_status:
            raw = dataclasses.replace(raw, innodb_status=redact_status(raw.innodb_status))
        if self.redact:
            raw = dataclasses.replace(raw, **without_statements(
                {k: getattr(raw, k) for k in SQL_COLUMNS}, SQL_MARK))
        if self._server is not None and not self._server.same_server(raw.server):
            self._segment_open = False            # a different server answers: a segment of its own
        keyframe = self._prev is None or self._since_key >= self.keyframe_every
        text = sample_text(raw)
        new_dict = self._dict is None or (keyframe and self._since_dict >= DICT_EVERY)
        dict_payload = None
        if new_dict:
            dict_payload, dict_decoded = codec.encode(text, None)
            keyframe = True
        payload, decoded = codec.encode(text, (dict_decoded if new_dict else self._dict) if keyframe else self._prev)
        state = state_json(raw)
        seq = self._seq
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                if dict_payload is not None:
                    # Twice, in tables of their own pages: each keyframe of the next hour needs it.
                    for table in DICT_TABLES:
                        self._conn.execute(f"INSERT INTO {table} (seq, crc, data) VALUES (?, ?, ?)",
                                           (seq, zlib.crc32(dict_payload), dict_payload))
                if not self._segment_open:
                    self._insert_segment(seq, raw.wall)
                if state != self._last_state:
                    for table in STATE_TABLES:
                        self._conn.execute(f"INSERT INTO {table} (seq, data) VALUES (?, ?)",
                                           (seq, zlib.compress(state.encode(), 9)))
                self._conn.execute(
                    "INSERT INTO samples (seq, t, mono, ref, crc, data) VALUES (?, ?, ?, ?, ?, ?)",
                    (seq, raw.wall, raw.mono, None if keyframe else seq - 1, zlib.crc32(payload), payload))
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
        except sqlite3.IntegrityError:
            raise UserError(f"{self.path} is being written by another recorder", 1) from None
        except sqlite3.Error as exc:
            raise storage_error(self.path, exc) from None
        self._segment_open = True
        self._server = raw.server
        self._last_state = state
        self._prev = decoded
        if dict_payload is not None:
            self._dict, self._since_dict = dict_decoded, 0
        self._since_dict += 1
        self._since_key = 1 if keyframe else self._since_key + 1
        self._seq += 1
        self.samples_written += 1
        if self.samples_written == 1 or self.samples_written % CHECKPOINT_EVERY == 0:
            self._checkpoint()

    def _checkpoint(self) -> None:
        try:
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")   # never waits for readers
        except sqlite3.Error:
            pass   # a busy reader or a full disk: the samples are safe in the WAL all the same

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            # Leave one self-contained file (no -wal/-shm) when nobody else has it open.
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.Error:
            pass
        finally:
            self._conn.close()
            os.close(self._lock_fd)          # releases the recorder lock

    # -- incident capture -------------------------------------------------------------------
    def break_segment(self) -> None:
        """The next sample does not follow the previous one (a gap): it starts a new segment."""
        self._segment_open = False

    def bookmark(self, t: float, trigger: str | None, value: float | None, note: str | None = None) -> None:
        """Mark the last appended sample (or the next, if none yet) with why it matters."""
        seq = max(0, self._seq - 1)
        try:
            self._conn.execute("INSERT INTO bookmarks (seq, t, trigger, value, note) VALUES (?, ?, ?, ?, ?)",
                               (seq, t, trigger, value, note))
        except sqlite3.Error as exc:
            raise storage_error(self.path, exc) from None

    @property
    def data_bytes(self) -> int:
        """Bytes of the recording itself, committed samples included wherever they sit (FILE or
        its -wal): what FILE holds once checkpointed. Rotation measures this, not the -wal,
        whose size is SQLite's scratch space."""
        try:
            pages = self._conn.execute("PRAGMA page_count").fetchone()[0]
            page = self._conn.execute("PRAGMA page_size").fetchone()[0]
        except sqlite3.Error:
            return self.size_bytes
        return int(pages) * int(page)

    @property
    def size_bytes(self) -> int:
        total = 0
        for p in (self.path, self.path.with_name(self.path.name + "-wal")):
            try:
                total += p.stat().st_size
            except OSError:
                pass
        return total

    def _insert_segment(self, seq: int, started: float) -> None:
        interval, redact, trigger, before, after = self._segment_info
        row = (seq, started, interval, __version__, socket.gethostname(), int(redact), trigger, before, after)
        cur = self._conn.execute(
            "INSERT INTO segments (first_seq, started, interval, mysqltop_version, recorder_host, "
            "redacted, trigger, before_s, after_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
        self._conn.execute(
            "INSERT OR REPLACE INTO segment_copies (id, first_seq, started, interval, mysqltop_version, "
            "recorder_host, redacted, trigger, before_s, after_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (cur.lastrowid, *row))

    def __enter__(self) -> "RecordingWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
