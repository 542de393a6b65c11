"""A small tmpfs for tests that need a full disk (root only; None where mounting is refused)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from typing import Iterator


def small_tmpfs(size: str) -> str | None:
    """A tmpfs of `size` mounted on a new directory; unmount it with `unmount`."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        return None
    d = tempfile.mkdtemp(prefix="mtop-full-")
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", d], capture_output=True)
    if res.returncode != 0:
        os.rmdir(d)
        return None
    return d


def unmount(d: str) -> None:
    """Unmount (lazily when a process still has files there) and remove the directory."""
    if subprocess.run(["umount", d], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", d], capture_output=True)
    try:
        os.rmdir(d)
    except OSError:
        pass


@contextlib.contextmanager
def mounted(size: str) -> Iterator[str | None]:
    d = small_tmpfs(size)
    try:
        yield d
    finally:
        if d is not None:
            unmount(d)


def fill(d: str) -> None:
    """Fill the filesystem at `d` to the last byte."""
    with open(os.path.join(d, "filler"), "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
