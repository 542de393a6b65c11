"""Slow log storage for a throwaway server: every fsync / fdatasync / sync_file_range of mariadbd
returns a fixed delay after the real call (tests/support/slow_sync.c, LD_PRELOADed).

    from tests.support.slow_sync import build, server_env
    lib = build(tmp_dir)                          # compiles with the machine's C compiler
    db = ThrowawayMariaDB(extra_args=[…], env=server_env(lib, delay_ms=20))

What it injects is the problem a commit-path finding is about — durable commits waiting on log
storage — whatever the host's own disk does (a fast or cached fsync makes a 2-core box CPU-bound
long before it is fsync-bound). MariaDB 10.11 syncs the redo log (ib_logfile0, O_DIRECT) and the
binary log with fdatasync at each durable commit group, so both are delayed; the server must not
use innodb_flush_method = O_DSYNC (redo written through, no fdatasync to delay).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).with_name("slow_sync.c")
DELAY_ENV = "MTOP_SYNC_DELAY_US"


class NoCompiler(RuntimeError):
    """No C compiler on this machine: the library cannot be built (tests skip with this reason)."""


def compiler() -> str | None:
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and (path := shutil.which(name)):
            return path
    return None


def build(dest: Path) -> Path:
    """Compile slow_sync.c into dest/slow_sync.so; NoCompiler without a C compiler, RuntimeError
    (with the compiler's output) when the build fails."""
    cc = compiler()
    if cc is None:
        raise NoCompiler("no C compiler (cc, gcc, clang) to build the slow-fsync library for the server")
    dest.mkdir(parents=True, exist_ok=True)
    out = dest / "slow_sync.so"
    res = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(out), str(SOURCE), "-ldl"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    if res.returncode != 0:
        raise RuntimeError(f"building {SOURCE.name} failed (rc={res.returncode}):\n"
                           + res.stdout.decode(errors="replace")[-2000:])
    return out


def server_env(lib: Path, delay_ms: float) -> dict[str, str]:
    """The environment that makes a server's syncs take delay_ms longer."""
    return {"LD_PRELOAD": str(lib), DELAY_ENV: str(int(delay_ms * 1000))}
