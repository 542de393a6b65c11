"""SHOW ENGINE INNODB STATUS parser (pure). Entry point: `parse_innodb_status(text)`."""

from .model import InnodbStatus
from .parser import SECTIONS, parse_innodb_status, parse_with_unknown

__all__ = ["InnodbStatus", "SECTIONS", "parse_innodb_status", "parse_with_unknown"]
