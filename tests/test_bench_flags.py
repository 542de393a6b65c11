"""A bench that connects as a live command does (arguments.open_live, which reads live_flags) from
its own parser gives every flag they read (bench/poll once stopped at start-up: its parser lacked
--answer-timeout)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

import pytest

from mysqltop.arguments import live_flags

ROOT = Path(__file__).resolve().parents[1]
USERS = [p for p in sorted((ROOT / "bench").iterdir())
         if p.is_file() and any(c in p.read_text(errors="replace") for c in ("live_flags(", "open_live("))]


def test_the_benches_that_build_live_flags_are_found() -> None:
    assert "poll" in [p.name for p in USERS]


@pytest.mark.parametrize("path", USERS, ids=lambda p: p.name)
def test_a_bench_parser_gives_what_live_flags_reads(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loader = importlib.machinery.SourceFileLoader(f"bench_{path.name}", str(path))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    monkeypatch.setattr(sys, "argv", [str(path), "-h", "db1", "--interval", "2"])
    flags = live_flags(module.parse_args())
    assert flags.interval == 2.0 and flags.connection.host == "db1"
