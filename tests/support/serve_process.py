"""`mysqltop serve` started against one server as a child process (a fake server's tests: what
the server receives on every reconnect)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.mariadb import free_port

ROOT = Path(__file__).resolve().parents[2]


def serve_against(port: int, user: str, password: str, home: Path) -> subprocess.Popen[str]:
    """serve polling 127.0.0.1:`port` every 0.2 s (1 s connect timeout), stderr piped, a bare
    environment (no option files but `home`'s)."""
    return subprocess.Popen([sys.executable, "-m", "mysqltop", "serve", "-h", f"127.0.0.1:{port}", "-u", user,
                             f"--password={password}", "--listen", f"127.0.0.1:{free_port()}",
                             "--connect-timeout", "1", "--interval", "0.2"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(home)})
