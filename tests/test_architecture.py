"""The core stays pure (no IO, clock, DB or UI) and layers never import upwards (docs/architecture.md)."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import mysqltop
import mysqltop.core

ROOT = Path(mysqltop.__file__).parent
FORBIDDEN_IN_CORE = {
    "pymysql", "psutil", "textual", "plotext", "sqlite3", "socket",
    "subprocess", "threading", "time", "random", "os", "mysqltop.sources", "mysqltop.views",
    "mysqltop.recording", "mysqltop.timeline", "mysqltop.engine", "mysqltop.commands", "mysqltop.cli",
    "mysqltop.process",
}


def _core_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(mysqltop.core.__path__, "mysqltop.core."))


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_core_imports_nothing_impure_at_runtime() -> None:
    code = (
        "import importlib, sys\n"
        f"for m in {_core_modules()!r}: importlib.import_module(m)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    loaded = set(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                text=True).stdout.split())
    bad = {m for m in loaded for f in ("pymysql", "psutil", "textual", "plotext", "sqlite3")
           if m == f or m.startswith(f + ".")}
    bad |= {m for m in loaded if m.startswith(("mysqltop.sources", "mysqltop.views", "mysqltop.recording", "mysqltop.timeline"))}
    assert not bad, f"core pulled in {sorted(bad)}"


def test_core_source_has_no_forbidden_imports() -> None:
    offenders = {}
    for path in (ROOT / "core").rglob("*.py"):
        hit = {n for n in _imports(path) for f in FORBIDDEN_IN_CORE if n == f or n.startswith(f + ".")}
        if hit:
            offenders[str(path.relative_to(ROOT))] = sorted(hit)
    assert not offenders, offenders


def test_lower_layers_never_import_views() -> None:
    for layer in ("sources", "recording", "timeline"):
        for path in (ROOT / layer).rglob("*.py"):
            hit = {n for n in _imports(path) if n.startswith(("mysqltop.views", "mysqltop.commands", "textual"))}
            assert not hit, f"{path}: {hit}"


def test_version_is_fast_and_light() -> None:
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "mysqltop", "--version"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"mysqltop {mysqltop.__version__}"
    for heavy in ("textual", "pymysql", "psutil", "plotext"):
        assert f" {heavy}\n" not in out.stderr and f" {heavy}." not in out.stderr, heavy


def test_the_timeline_holds_no_io_of_its_own() -> None:
    """The timeline moves through stores and judges: it reads no server, host or terminal."""
    for path in (ROOT / "timeline").rglob("*.py"):
        hit = {n for n in _imports(path) for f in ("pymysql", "psutil", "textual", "socket", "threading",
                                                   "mysqltop.sources", "mysqltop.engine", "mysqltop.fleet")
               if n == f or n.startswith(f + ".")}
        assert not hit, f"{path}: {hit}"


def test_module_names_are_unique_and_modules_small() -> None:
    """A basename names one file (a traceback or a grep says which), and no module outgrows a read."""
    names: dict[str, list[str]] = {}
    big = []
    for path in ROOT.rglob("*.py"):
        if path.name != "__init__.py":
            names.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
        if len(path.read_text(encoding="utf-8").splitlines()) > 800:
            big.append(str(path.relative_to(ROOT)))
    assert not {n: p for n, p in names.items() if len(p) > 1}
    assert not big


def test_derive_imports_nothing_that_judges_or_reports_its_frames() -> None:
    """derive makes frames; the rules that judge them and the report that sums them sit above it."""
    code = "import sys, mysqltop.core.derive; print('\\n'.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                text=True).stdout.split())
    above = ("mysqltop.core.rules", "mysqltop.core.advice", "mysqltop.core.incident_report",
             "mysqltop.core.report_builder", "mysqltop.core.lock_report")
    assert not {m for m in loaded if m.startswith(above)}
