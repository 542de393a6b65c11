"""Number and time forms of SHOW ENGINE INNODB STATUS (mysqltop.core.innodb.numbers / atoms)."""

from __future__ import annotations

import pytest

from mysqltop.core.innodb.atoms import normalise_time, time_of
from mysqltop.core.innodb.numbers import int_list, num, ratio, seconds, trx_id, two_word


def test_two_word_joins_32_bit_halves() -> None:
    assert two_word(0, 12345) == 12345
    assert two_word(1, 0) == 2**32
    # Log sequence number 476 3871193896 (MySQL 5.0)
    assert two_word(476, 3871193896) == 2048275626792


@pytest.mark.parametrize(
    ("text", "want"),
    [("20847697", 20847697), ("0 68906", 68906), ("126 167307111", 541333186407),
     ("42.96", 42.96), ("0.00", 0.0), ("0", 0)],
)
def test_num_forms(text: str, want: float) -> None:
    got = num(text)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize("text", ["", "abc", "1 2 3", "1.2.3"])
def test_num_rejects_garbage(text: str) -> None:
    with pytest.raises(ValueError):
        num(text)


@pytest.mark.parametrize(
    ("text", "hex_ids", "want"),
    [
        ("0 133408350", False, 133408350),        # 5.0 two words, decimal
        ("0 133408350", True, 133408350),         # two words are decimal even in a hex-era text
        ("1 5", False, 2**32 + 5),
        ("1F69D1888", False, 0x1F69D1888),        # a hex letter makes it hex
        ("1007", True, 0x1007),                   # 5.1 plugin / 5.5: digits-only hex id
        ("59684", False, 59684),                  # 5.6+ / MariaDB decimal
        ("zz", False, None),
        ("", False, None),
    ],
)
def test_trx_id_forms(text: str, hex_ids: bool, want: int | None) -> None:
    assert trx_id(text, hex_ids) == want


def test_ratio_and_lists() -> None:
    assert ratio("995", "1000") == 0.995
    assert ratio("0", "0") is None
    assert int_list("[0, 3, 0, 12]") == [0, 3, 0, 12]
    assert int_list("[]") == []
    assert int_list("0, 0") == [0, 0]


@pytest.mark.parametrize(
    ("value", "unit", "want"),
    [("32", "SEC", 32.0), ("1520", "us", 0.00152), ("250", "ms", 0.25), ("7", "sec", 7.0)],
)
def test_wait_units(value: str, unit: str, want: float) -> None:
    assert seconds(value, unit) == pytest.approx(want)


@pytest.mark.parametrize(
    ("line", "want"),
    [
        ("2026-11-22 01:22:30 0x77902c6836c0 INNODB MONITOR OUTPUT", "2026-11-22 01:22:30"),
        ("2024-10-23 14:29:35 275827633680128", "2024-10-23 14:29:35"),
        ("070912 15:38:40 INNODB MONITOR OUTPUT", "2007-09-12 15:38:40"),
        ("100831  8:56:28 INNODB MONITOR OUTPUT", "2010-08-31 08:56:28"),
        ("111010 9:56:19", "2011-10-10 09:56:19"),
        ("not a time", None),
    ],
)
def test_time_forms(line: str, want: str | None) -> None:
    assert time_of(line) == want


def test_normalise_time_pads_hour() -> None:
    assert normalise_time("120906", "6:03:32") == "2012-09-06 06:03:32"
