"""Connection flags as the command line parses them, and a HOME of the test's own: no option
file, login file, MYSQL_* variable or system socket of the machine reaches the resolution."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from mysqltop import config
from mysqltop.arguments import add_connection_arguments, connection_flags
from mysqltop.config import ConnectionFlags


def parse(*argv: str) -> ConnectionFlags:
    p = argparse.ArgumentParser(add_help=False)
    add_connection_arguments(p)
    return connection_flags(p.parse_args(list(argv)))


def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`tmp_path` as HOME, user `dba`, and only a socket path that does not exist."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("MYSQL_PWD", "MYSQL_TEST_LOGIN_FILE", "MYSQL_GROUP_SUFFIX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("USER", "dba")
    monkeypatch.setenv("LOGNAME", "dba")
    monkeypatch.setattr(config, "COMMON_SOCKETS", (str(tmp_path / "none.sock"),))
    return tmp_path
