"""MySQL's obfuscated login file (`~/.mylogin.cnf`, written by `mysql_config_editor`) → option-file
text, with no package beyond the standard library (pure: bytes in, text out).

The file: 4 unused bytes, a 20-byte key, then for every line of option-file text a 4-byte
little-endian length and that many bytes of the line encrypted with AES-128-ECB (PKCS#7 padding)
under the key folded to 16 bytes by XOR. The obfuscation keeps a password out of a casual `cat`,
not from anyone who can read the file; the key is in it.

AES here is the FIPS-197 inverse cipher (decryption only: mysqltop never writes the file), a few
lines a block, fast enough for a file of a few hundred bytes.
"""

from __future__ import annotations

HEADER = 4
KEY_LEN = 20
BLOCK = 16
MAX_LINE = 1 << 16        # a login-file line is a few dozen bytes; a bigger length is damage


class LoginFileError(ValueError):
    """The bytes are not a login file (or are damaged)."""


def _xtime(a: int) -> int:
    return ((a << 1) ^ 0x1B) & 0xFF if a & 0x80 else a << 1


def _mul(a: int, b: int) -> int:
    out = 0
    while b:
        if b & 1:
            out ^= a
        a, b = _xtime(a), b >> 1
    return out


def _sbox() -> list[int]:
    """The AES S-box: multiplicative inverse in GF(2^8), then the affine map."""
    box = [0x63] * 256
    p = q = 1
    while True:
        p ^= _xtime(p)                               # p × 3
        q ^= q << 1
        q ^= q << 2
        q ^= q << 4
        q &= 0xFF
        q ^= 0x09 if q & 0x80 else 0                 # q ÷ 3
        x = q
        for r in range(1, 5):
            x ^= ((q << r) | (q >> (8 - r))) & 0xFF
        box[p] = x ^ 0x63
        if p == 1:
            return box


SBOX = _sbox()
INV_SBOX = [0] * 256
for _i, _v in enumerate(SBOX):
    INV_SBOX[_v] = _i
_MUL = {m: [_mul(a, m) for a in range(256)] for m in (2, 3, 9, 11, 13, 14)}


def round_keys(key: bytes) -> list[list[int]]:
    """The 11 round keys of AES-128, 16 bytes each (state order: column by column)."""
    words = [list(key[4 * i:4 * i + 4]) for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        t = list(words[i - 1])
        if i % 4 == 0:
            t = [SBOX[b] for b in t[1:] + t[:1]]
            t[0] ^= rcon
            rcon = _xtime(rcon)
        words.append([a ^ b for a, b in zip(words[i - 4], t)])
    return [sum(words[4 * r:4 * r + 4], []) for r in range(11)]


def decrypt_block(keys: list[list[int]], block: bytes) -> bytes:
    s = [b ^ k for b, k in zip(block, keys[10])]
    for rnd in range(9, -1, -1):
        s = [INV_SBOX[s[r + 4 * ((c - r) % 4)]] for c in range(4) for r in range(4)]   # inverse shift, sub
        s = [b ^ k for b, k in zip(s, keys[rnd])]
        if rnd:
            m9, m11, m13, m14 = _MUL[9], _MUL[11], _MUL[13], _MUL[14]
            out = []
            for c in range(0, 16, 4):
                a0, a1, a2, a3 = s[c:c + 4]
                out += [m14[a0] ^ m11[a1] ^ m13[a2] ^ m9[a3], m9[a0] ^ m14[a1] ^ m11[a2] ^ m13[a3],
                        m13[a0] ^ m9[a1] ^ m14[a2] ^ m11[a3], m11[a0] ^ m13[a1] ^ m9[a2] ^ m14[a3]]
            s = out
    return bytes(s)


def fold_key(key: bytes) -> bytes:
    """MySQL's my_aes_create_key: the 20 key bytes XOR-folded into 16."""
    out = bytearray(BLOCK)
    for i, b in enumerate(key):
        out[i % BLOCK] ^= b
    return bytes(out)


def decode_login_file(data: bytes) -> str:
    """The option-file text of a login file; LoginFileError when it is not one."""
    if len(data) < HEADER + KEY_LEN:
        raise LoginFileError("shorter than its header")
    keys = round_keys(fold_key(data[HEADER:HEADER + KEY_LEN]))
    at, lines = HEADER + KEY_LEN, []
    while at < len(data):
        n = int.from_bytes(data[at:at + 4], "little")
        chunk = data[at + 4:at + 4 + n]
        if len(data) - at < 4 or not 0 < n <= MAX_LINE or n % BLOCK or len(chunk) != n:
            raise LoginFileError(f"bad line length at byte {at}")
        plain = b"".join(decrypt_block(keys, chunk[i:i + BLOCK]) for i in range(0, n, BLOCK))
        pad = plain[-1]
        if not 1 <= pad <= BLOCK or plain[-pad:] != bytes([pad]) * pad:
            raise LoginFileError(f"bad padding at byte {at} (not encrypted with this file's key)")
        lines.append(plain[:-pad].decode("utf-8", "replace"))
        at += 4 + n
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
