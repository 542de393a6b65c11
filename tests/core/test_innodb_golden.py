"""Every InnoDB status in the corpus parses to its checked golden JSON (`to_dict()` output).

The goldens were checked by reading each status text against them. After an intended parser
change, regenerate with `MYSQLTOP_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/core/test_innodb_golden.py`
and review the diff before committing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mysqltop.core.innodb import parse_innodb_status, parse_with_unknown

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus" / "innodb-status"
GOLDEN = FIXTURES / "golden" / "innodb-status"
FILES = sorted(CORPUS.glob("*.txt"))
REGEN = os.environ.get("MYSQLTOP_REGEN_GOLDEN") == "1"


def _as_json(value: object) -> object:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_matches_golden(path: Path) -> None:
    got = parse_innodb_status(path.read_text()).to_dict()
    golden = GOLDEN / f"{path.stem}.json"
    if REGEN:
        golden.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    assert golden.exists(), f"no golden for {path.name}: run with MYSQLTOP_REGEN_GOLDEN=1 and check it"
    assert _as_json(got) == json.loads(golden.read_text())


def test_every_golden_has_its_status_text() -> None:
    assert FILES, "corpus missing"
    assert {p.stem for p in GOLDEN.glob("*.json")} == {p.stem for p in FILES}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_corpus_is_understood(path: Path) -> None:
    """Complete captures end with the END marker and hold only lines the parser knows,
    except the few files with known oddities (wrapped lines, a capture cut at 64 KB)."""
    status, unknown = parse_with_unknown(path.read_text())
    assert status.truncated is False
    assert status.time is not None
    allowed = {"mysql-5.7__mysql-docs__InnoDB_Monitors-5.7-example": 5}   # lines wrapped by the docs
    assert len(unknown) == allowed.get(path.stem, 0), unknown
