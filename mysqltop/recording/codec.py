"""Delta codec for one sample's text against a reference sample (usually the previous one).

Successive polls are nearly identical: the same lines with slightly different numbers. So a text
is split into a *skeleton* (the text with every decimal number replaced by a marker) and the
numbers. The skeleton is zlib-compressed with the reference's skeleton as preset dictionary
(unchanged lines cost a back-reference), and each line's numbers are stored as differences from
the numbers of a matching line of the reference: counters that moved a little cost a digit or two,
numbers that did not move cost "0". Lines are matched by (skeleton, first number) first — so
"MariaDB thread id 28, …" lines follow their thread when the transaction list reorders — then by
(skeleton, occurrence). The match is written explicitly, so the decoder needs no heuristics.

Payload = zlib(skeleton \\0 line-refs \\0 number-deltas), refs and deltas as comma-separated text
(cheaper than varints in Python and just as small after zlib). A keyframe has no reference.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from itertools import chain

# Numbers are runs of digits without leading zeros, at most 18 digits (fit in int64; "007" is three
# numbers 0, 0, 7 and round-trips exactly).
_NUM = re.compile(r"0|[1-9][0-9]{0,17}")
_MARK = "\x01"
# Escapes for characters the container uses: \x01 (marker), \x00 (separator), \x02 (escape).
_ESC = {"\x00": "\x02c", "\x01": "\x02a", "\x02": "\x02b"}
_UNESC = re.compile("\x02([abc])")
_UNESC_MAP = {"a": "\x01", "b": "\x02", "c": "\x00"}
LEVEL = 6


class CodecError(ValueError):
    """The payload does not decode (damaged bytes or wrong reference)."""


@dataclass
class Decoded:
    """A sample's text in the form needed to serve as the next sample's reference."""

    text: str
    skeleton: bytes
    lines: list[str]
    numbers: list[list[int] | None]          # per skeleton line, None when it has no numbers
    _by_first: dict[tuple[str, int], list[int]] | None = field(default=None, repr=False)
    _by_line: dict[str, list[int]] | None = field(default=None, repr=False)

    def candidates(self) -> tuple[dict[tuple[str, int], list[int]], dict[str, list[int]]]:
        """Line indexes by (skeleton line, first number) and by skeleton line (built on first use)."""
        if self._by_first is None or self._by_line is None:
            by_first: dict[tuple[str, int], list[int]] = {}
            by_line: dict[str, list[int]] = {}
            for i, (line, nums) in enumerate(zip(self.lines, self.numbers)):
                if nums:
                    by_first.setdefault((line, nums[0]), []).append(i)
                    by_line.setdefault(line, []).append(i)
            self._by_first, self._by_line = by_first, by_line
        return self._by_first, self._by_line


def _split(text: str) -> tuple[str, list[int]]:
    if "\x00" in text or "\x01" in text or "\x02" in text:
        text = re.sub("[\x00\x01\x02]", lambda m: _ESC[m.group()], text)
    digits: list[str] = []
    skeleton = _NUM.sub(lambda m: digits.append(m.group()) or _MARK, text)  # type: ignore[func-returns-value]
    return skeleton, list(map(int, digits))


def encode(text: str, ref: Decoded | None) -> tuple[bytes, Decoded]:
    """Payload for `text` against `ref` (None → keyframe), and its Decoded form for the next one."""
    skeleton, nums = _split(text)
    lines = skeleton.split("\n")
    numbers: list[list[int] | None] = []
    refs: list[int] = []
    deltas: list[int] = []
    by_first, by_line = ref.candidates() if ref else ({}, {})
    used_first: dict[tuple[str, int], int] = {}
    used_line: dict[str, int] = {}
    expected = 0
    pos = 0
    for line in lines:
        n = line.count(_MARK)
        if not n:
            numbers.append(None)
            continue
        cur = nums[pos:pos + n]
        pos += n
        numbers.append(cur)
        match = _pick(by_first, (line, cur[0]), used_first)
        if match is None or len(ref.numbers[match] or ()) != n:  # type: ignore[union-attr]
            match = _pick(by_line, line, used_line)
        prev = ref.numbers[match] if ref is not None and match is not None else None
        if prev is None or len(prev) != n:
            refs.append(0)
            deltas.extend(cur)
        else:
            refs.append(match - expected + 1 if match >= expected else match - expected)
            expected = match + 1
            deltas.extend(c - p for c, p in zip(cur, prev))
    skel_b = skeleton.encode("utf-8", "surrogatepass")
    body = b"\0".join((skel_b, _csv(refs), _csv(deltas)))
    comp = zlib.compressobj(LEVEL, zdict=ref.skeleton) if ref and ref.skeleton else zlib.compressobj(LEVEL)
    payload = comp.compress(body) + comp.flush()
    return payload, Decoded(text, skel_b, lines, numbers)


def _pick(index: dict, key: object, used: dict) -> int | None:
    cands = index.get(key)
    if not cands:
        return None
    k = used.get(key, 0)
    used[key] = k + 1
    return cands[k] if k < len(cands) else None


def _csv(values: list[int]) -> bytes:
    return ",".join(map(str, values)).encode()


def _uncsv(data: bytes) -> list[int]:
    return list(map(int, data.split(b","))) if data else []


def decode(payload: bytes, ref: Decoded | None) -> Decoded:
    try:
        d = zlib.decompressobj(zdict=ref.skeleton) if ref and ref.skeleton else zlib.decompressobj()
        body = d.decompress(payload) + d.flush()
        if not d.eof:
            raise CodecError("truncated payload")
        skel_b, refs_b, deltas_b = body.split(b"\0")
        skeleton = skel_b.decode("utf-8", "surrogatepass")
        refs, deltas = _uncsv(refs_b), _uncsv(deltas_b)
    except (zlib.error, ValueError, UnicodeDecodeError) as exc:
        raise CodecError(str(exc)) from None
    lines = skeleton.split("\n")
    numbers: list[list[int] | None] = []
    flat: list[int] = []
    expected = 0
    pos = 0
    ri = 0
    try:
        for line in lines:
            n = line.count(_MARK)
            if not n:
                numbers.append(None)
                continue
            code = refs[ri]
            ri += 1
            delta = deltas[pos:pos + n]
            pos += n
            if len(delta) != n:
                raise CodecError("number stream too short")
            if code == 0:
                cur = delta
            else:
                match = expected + code - 1 if code > 0 else expected + code
                prev = ref.numbers[match] if ref is not None and 0 <= match < len(ref.numbers) else None
                if prev is None or len(prev) != n:
                    raise CodecError("line reference does not match the reference sample")
                cur = [d + p for d, p in zip(delta, prev)]
                expected = match + 1
            numbers.append(cur)
            flat.extend(cur)
    except IndexError:
        raise CodecError("line references too short") from None
    if pos != len(deltas) or ri != len(refs):
        raise CodecError("trailing data")
    parts = skeleton.split(_MARK)
    text = "".join(chain.from_iterable(zip(parts, map(str, flat)))) + parts[-1]
    if "\x02" in text:
        text = _UNESC.sub(lambda m: _UNESC_MAP[m.group(1)], text)
    return Decoded(text, skel_b, lines, numbers)
