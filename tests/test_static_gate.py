"""The static gate: ruff, mypy and the import-layer contracts, as configured in pyproject.toml.

Each tool runs from this venv (`./dev test` installs them with the `test` extra); a failure shows
the tool's own output. To fix locally: `.venv/bin/ruff check --fix mysqltop tests scripts`,
`.venv/bin/mypy`, `.venv/bin/lint-imports`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

GATES = {
    "ruff": [str(BIN / "ruff"), "check", "--no-cache", "mysqltop", "tests", "scripts"],
    "mypy": [sys.executable, "-m", "mypy"],               # files and options: [tool.mypy]
    "import-linter": [str(BIN / "lint-imports")],         # contracts: [tool.importlinter]
}


@pytest.mark.parametrize("tool", list(GATES))
def test_static_gate(tool: str) -> None:
    cmd = GATES[tool]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"{tool} failed ({' '.join(cmd)}):\n{run.stdout}\n{run.stderr}"
