"""Number forms found in SHOW ENGINE INNODB STATUS across 5.0 … 9.x and MariaDB.

- one word, decimal:          "Log sequence number 20847697"
- two 32-bit words (≤ 5.1):   "Log sequence number 476 3871193896"  → 476·2³² + 3871193896
- hex trx ids (5.1 plugin, 5.5, XtraDB of that era): "Trx id counter 1F69D1888"
- rates:                      "42.96 reads/s"
"""

from __future__ import annotations

import math
import re

_HEX_LETTER = re.compile(r"[A-Fa-f]")


def two_word(high: int, low: int) -> int:
    """Join the two 32-bit words old servers print for one 64-bit value."""
    return (high << 32) + low


# InnoDB counters are 64-bit: a longer number is garbage or hostile, not a value (it would
# overflow every float conversion downstream).
MAX_COUNTER = 2**64
_MAX_DIGITS = 40


def bounded(value: int) -> int:
    if not 0 <= value < MAX_COUNTER:
        raise ValueError("out of the 64-bit range")
    return value


def num(text: str) -> int | float:
    """'123' → 123, '0 12345' → two-word int, '42.96' → 42.96. Raises ValueError on garbage
    and on numbers no server prints (past 64 bits, not finite)."""
    if len(text) > _MAX_DIGITS:
        raise ValueError("too long for a counter")
    if " " in text:
        high, low = text.split()
        return bounded(two_word(int(high), int(low)))
    if "." in text:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError("not finite")
        return value
    return bounded(int(text))


def has_hex_letter(text: str) -> bool:
    return _HEX_LETTER.search(text) is not None


def trx_id(text: str, hex_ids: bool) -> int | None:
    """A transaction id as printed: '0 3359' (two words, decimal), '1F69D1888' (hex) or '59684'.

    `hex_ids` says the server printed ids in hex (5.1 plugin / 5.5 era); an id that carries a
    hex letter is hex whatever the flag says. Anything else gives None.
    """
    text = text.strip()
    if len(text) > _MAX_DIGITS:
        return None
    try:
        if " " in text:
            high, low = text.split()
            return bounded(two_word(int(high), int(low)))
        if hex_ids or has_hex_letter(text):
            return bounded(int(text, 16))
        return bounded(int(text))
    except ValueError:
        return None


def ratio(numerator: str, denominator: str) -> float | None:
    """'995', '1000' → 0.995 (buffer pool hit rate); None when the denominator is 0."""
    d = int(denominator)
    return int(numerator) / d if d else None


def int_list(text: str) -> list[int]:
    """'[0, 0, 0, 0]' or '0, 0' → [0, 0, 0, 0]; empty or blank items are skipped."""
    return [int(part) for part in text.strip(" []").split(",") if part.strip()]


def seconds(value: str, unit: str) -> float:
    """A wait printed with a unit: '32', 'SEC' → 32.0; MariaDB-style 'us'/'ms'/'ns' scale down."""
    scale = _UNITS.get(unit.lower(), 1.0)
    return float(value) * scale


_UNITS = {"sec": 1.0, "s": 1.0, "seconds": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
