"""`pip install` gives a working mysqltop outside the checkout: the wheel carries the bundled
incident and the stylesheet, and `demo`, `snapshot --replay` and `report` run from elsewhere.

The wheel goes into a fresh venv with --no-deps; the dependencies come from this venv's
site-packages through a .pth file, so only the build backend is fetched (as `pip install .` does).
This venv's own mysqltop stays invisible there: an editable install is a finder that only this
venv's .pth files activate.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(cmd: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    run = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert run.returncode == 0, f"{' '.join(cmd)} exited {run.returncode}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return run


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bin/ of a fresh venv holding only the wheel built from this checkout."""
    tmp = tmp_path_factory.mktemp("package")
    wheels = tmp / "wheels"
    # pip builds in isolation: the build backend (pyproject's [build-system]) comes from the index.
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q",
          "-w", str(wheels), str(ROOT)], cwd=tmp)
    (wheel,) = wheels.glob("mysqltop-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "mysqltop/data/incident.mtrec" in names and "mysqltop/views/tui/mysqltop.tcss" in names, names
    assert {f"mysqltop/views/page/templates/{t}" for t in ("report.html.j2", "charts.html.j2", "page.css")} <= set(names)

    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "--no-deps", "--disable-pip-version-check", "-q", str(wheel)], cwd=tmp)
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp)
                .stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return env_dir / "bin"


def test_installed_demo_replays_the_bundled_incident_from_elsewhere(installed: Path, tmp_path: Path) -> None:
    mysqltop = str(installed / "mysqltop")
    assert "bundled incident" in _run([mysqltop, "demo", "--help"], cwd=tmp_path).stdout

    default = Path(_run([mysqltop, "demo", "--path"], cwd=tmp_path).stdout.strip())
    assert default.name == "row-lock-idle-trx.mtrec" and installed.parent in default.parents
    bundled = Path(_run([mysqltop, "demo", "incident", "--path"], cwd=tmp_path).stdout.strip())
    assert bundled.is_file() and installed.parent in bundled.parents      # inside the venv, not the checkout

    out = _run([mysqltop, "snapshot", "--replay", str(bundled), "--start", "+100s", "--count", "1",
                "--format", "json"], cwd=tmp_path).stdout.splitlines()
    assert len(out) == 1
    frame = json.loads(out[0])
    assert frame["stale"] is False and frame["server"]["flavor"] == "mariadb"
    assert frame["throughput"]["qps"] > 0 and frame["hotspots"]

    report = _run([mysqltop, "report", str(bundled)], cwd=tmp_path).stdout
    assert "243 samples" in report
    _run([mysqltop, "report", str(bundled), "--format", "html", "-o", str(tmp_path / "page.html")], cwd=tmp_path)
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "243 samples" in page and page.count('<svg class="plot"') == 7      # templates and stylesheet shipped


def test_installed_demo_lists_and_plays_the_gallery(installed: Path, tmp_path: Path) -> None:
    mysqltop = str(installed / "mysqltop")
    listed = _run([mysqltop, "demo", "--list"], cwd=tmp_path).stdout.splitlines()
    names = [line.split()[0] for line in listed]
    gallery = json.loads((ROOT / "recordings" / "gallery.json").read_text())
    assert names == ["incident", *gallery]
    for name in gallery:
        path = Path(_run([mysqltop, "demo", name, "--path"], cwd=tmp_path).stdout.strip())
        assert path.is_file() and installed.parent in path.parents and not path.is_symlink()
        assert path.read_bytes() == (ROOT / "recordings" / f"{name}.mtrec").read_bytes()
