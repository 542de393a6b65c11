"""Benchmarks run `mysqltop` as installed: pip compiles a package's bytecode at install time, so a
user's start-up never compiles source. A checkout run with PYTHONDONTWRITEBYTECODE (or after an
edit) would compile every module at each launch and charge ~0.2 s of CPU to the start-up."""

from __future__ import annotations

import compileall
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "mysqltop"


@functools.cache
def compile_package() -> None:
    """Write up-to-date .pyc files for the mysqltop package (once per process)."""
    compileall.compile_dir(str(PACKAGE), quiet=1)
