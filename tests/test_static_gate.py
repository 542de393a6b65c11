"""The static gate: ruff, mypy and the import-layer contracts, as configured in pyproject.toml.

Each tool runs from this venv (`./dev test` installs them with the `test` extra); a failure shows
the tool's own output. To fix locally: `.venv/bin/ruff check --fix mysqltop tests scripts bench/NAME`,
`.venv/bin/mypy` (and `--scripts-are-modules bench/NAME` for a bench), `.venv/bin/lint-imports`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def python_scripts(folder: str) -> list[str]:
    """The Python programs in bench/ or scripts/: `.py` files and suffix-less ones with a python shebang."""
    found = []
    for path in sorted((ROOT / folder).iterdir()):
        if path.suffix == ".py" or (path.is_file() and not path.suffix
                                    and path.read_bytes()[:64].startswith(b"#!/usr/bin/env python")):
            found.append(str(path.relative_to(ROOT)))
    return found


SCRIPTS = python_scripts("bench") + python_scripts("scripts")

GATES = {
    "ruff": [str(BIN / "ruff"), "check", "--no-cache", "mysqltop", "tests", *SCRIPTS],
    "mypy": [sys.executable, "-m", "mypy"],               # files and options: [tool.mypy]
    # bench/ and scripts/ hold programs without a package: each file is its own module
    "mypy-scripts": [sys.executable, "-m", "mypy", "--scripts-are-modules", *SCRIPTS],
    "import-linter": [str(BIN / "lint-imports")],         # contracts: [tool.importlinter]
}


def test_the_gate_sees_the_benches() -> None:
    assert "bench/poll" in SCRIPTS and "scripts/make_incident.py" in SCRIPTS


@pytest.mark.parametrize("tool", list(GATES))
def test_static_gate(tool: str) -> None:
    cmd = GATES[tool]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"{tool} failed ({' '.join(cmd)}):\n{run.stdout}\n{run.stderr}"
