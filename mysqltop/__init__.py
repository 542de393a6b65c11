"""mysqltop: see where InnoDB is waiting, right now, and why."""

__version__ = "0.1.0"
