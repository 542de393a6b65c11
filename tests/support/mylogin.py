"""The encrypting counterpart of mysqltop.core.mylogin: writes a `.mylogin.cnf` as
`mysql_config_editor set` does (which is rarely installed where the tests run)."""

from __future__ import annotations

import os
from pathlib import Path

from mysqltop.core.mylogin import BLOCK, SBOX, fold_key, round_keys


def _mul2(a: int) -> int:
    return ((a << 1) ^ 0x1B) & 0xFF if a & 0x80 else a << 1


def encrypt_block(keys: list[list[int]], block: bytes) -> bytes:
    """FIPS-197 forward cipher, AES-128."""
    s = [b ^ k for b, k in zip(block, keys[0])]
    for rnd in range(1, 11):
        s = [SBOX[s[r + 4 * ((c + r) % 4)]] for c in range(4) for r in range(4)]     # sub, shift rows
        if rnd < 10:
            out = []
            for c in range(0, 16, 4):
                a = s[c:c + 4]
                out += [_mul2(a[0]) ^ _mul2(a[1]) ^ a[1] ^ a[2] ^ a[3],
                        a[0] ^ _mul2(a[1]) ^ _mul2(a[2]) ^ a[2] ^ a[3],
                        a[0] ^ a[1] ^ _mul2(a[2]) ^ _mul2(a[3]) ^ a[3],
                        _mul2(a[0]) ^ a[0] ^ a[1] ^ a[2] ^ _mul2(a[3])]
            s = out
        s = [b ^ k for b, k in zip(s, keys[rnd])]
    return bytes(s)


def encode_login_file(text: str, key: bytes | None = None) -> bytes:
    """Option-file text → login-file bytes: one encrypted record per line."""
    key = key if key is not None else os.urandom(20)
    keys = round_keys(fold_key(key))
    out = bytearray(bytes(4) + key)
    for line in text.splitlines(keepends=True):
        raw = line.encode()
        pad = BLOCK - len(raw) % BLOCK
        raw += bytes([pad]) * pad
        cipher = b"".join(encrypt_block(keys, raw[i:i + BLOCK]) for i in range(0, len(raw), BLOCK))
        out += len(cipher).to_bytes(4, "little") + cipher
    return bytes(out)


def write_login_file(path: Path, text: str) -> Path:
    """As mysql_config_editor leaves it: mode 0600."""
    path.write_bytes(encode_login_file(text))
    path.chmod(0o600)
    return path
