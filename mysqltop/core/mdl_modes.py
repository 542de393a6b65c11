"""Which metadata-lock modes block which: the server's own compatibility matrices (sql/mdl.cc of
MariaDB and MySQL), so a wait-for edge joins a pending request only to a session whose lock the
server would make it wait for. Pure.

Two matrices for object locks (tables, views, routines, user locks…):
  granted   a pending request waits for a GRANTED lock it is incompatible with;
  queued    a pending request also waits behind an earlier PENDING request of higher priority
            (an ALTER waiting for EXCLUSIVE makes every later reader and writer of the table wait,
            although the locks held are compatible with them).
Modes are the server's names without the MDL_ prefix, upper case (SHARED_READ, EXCLUSIVE, …).
A mode not in the tables (a newer server's) blocks nothing here: no edge rather than a wrong one.
"""

from __future__ import annotations

# Columns: the other lock's mode; rows: the pending request. "-" = the request waits.
_ORDER = ("S", "SH", "SR", "SW", "SWLP", "SU", "SRO", "SNW", "SNRW", "X")
_NAMES = {
    "SHARED": "S", "SHARED_HIGH_PRIO": "SH", "SHARED_READ": "SR", "SHARED_WRITE": "SW",
    "SHARED_WRITE_LOW_PRIO": "SWLP", "SHARED_UPGRADABLE": "SU", "SHARED_READ_ONLY": "SRO",
    "SHARED_NO_WRITE": "SNW", "SHARED_NO_READ_WRITE": "SNRW", "EXCLUSIVE": "X",
}
_GRANTED = {
    "S":    "+++++++++-",
    "SH":   "+++++++++-",
    "SR":   "++++++++--",
    "SW":   "++++++----",
    "SWLP": "++++++----",
    "SU":   "+++++-+---",
    "SRO":  "+++--+++--",
    "SNW":  "+++---+---",
    "SNRW": "++--------",
    "X":    "----------",
}
_QUEUED = {
    "S":    "+++++++++-",
    "SH":   "++++++++++",
    "SR":   "++++++++--",
    "SW":   "+++++++---",
    "SWLP": "++++++----",
    "SU":   "+++++++++-",
    "SRO":  "+++-+++---",
    "SNW":  "+++++++++-",
    "SNRW": "+++++++++-",
    "X":    "++++++++++",
}


def short(mode: str | None) -> str | None:
    m = (mode or "").strip().upper().removeprefix("MDL_")
    return _NAMES.get(m, m if m in _ORDER else None)


def _blocks(table: dict[str, str], other: str | None, pending: str | None) -> bool:
    o, p = short(other), short(pending)
    if o is None or p is None:
        return False
    return table[p][_ORDER.index(o)] == "-"


def blocks_granted(granted: str | None, pending: str | None) -> bool:
    """A GRANTED lock in mode `granted` makes a request for `pending` on the same object wait."""
    return _blocks(_GRANTED, granted, pending)


def blocks_queued(queued: str | None, pending: str | None) -> bool:
    """An earlier PENDING request for `queued` makes a later request for `pending` wait."""
    return _blocks(_QUEUED, queued, pending)


# Modes a session holds while it waits to upgrade (ALTER TABLE holds SHARED_UPGRADABLE, then asks
# for EXCLUSIVE; LOCK TABLES … WRITE under a copy holds SHARED_NO_WRITE): their pending mode.
UPGRADES = {"SU": "X", "SNW": "X", "SNRW": "X"}

# Scope locks. MariaDB: the BACKUP namespace (FTWRL takes BACKUP_FTWRL1/2, BACKUP STAGE its
# stages); MySQL: GLOBAL / COMMIT in SHARED mode. A session holding one of these makes every
# writer that asks for the global read / backup lock wait.
BACKUP_BLOCKING = {"BACKUP_START", "BACKUP_FLUSH", "BACKUP_WAIT_FLUSH", "BACKUP_WAIT_DDL", "BACKUP_WAIT_COMMIT",
                   "BACKUP_BLOCK_DDL", "BACKUP_END", "BACKUP_FTWRL1", "BACKUP_FTWRL2"}


def blocks_global(object_type: str, mode: str | None) -> bool:
    """A granted scope lock that a backup or FLUSH TABLES WITH READ LOCK holds (what sessions
    "Waiting for global read lock / backup lock / commit lock" wait for)."""
    m = (mode or "").strip().upper().removeprefix("MDL_")
    if object_type in ("GLOBAL", "COMMIT") and m == "SHARED":
        return True
    if object_type in ("BACKUP", "BACKUP LOCK") and m in ("SHARED",):      # MySQL's LOCK INSTANCE FOR BACKUP
        return True
    return m in BACKUP_BLOCKING
