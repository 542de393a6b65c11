"""A self-signed certificate for 127.0.0.1, made with openssl (the test skips without it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def self_signed(d: Path) -> tuple[Path, Path]:
    """(certificate, key) in `d`: the certificate is its own CA, valid for IP 127.0.0.1."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make a test certificate")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(d / "k.pem"), "-out", str(d / "c.pem")],
                   check=True, capture_output=True)
    return d / "c.pem", d / "k.pem"
