"""Delta codec for one sample's text against a reference sample (usually the previous one).

Successive polls are nearly identical: the same lines with slightly different numbers. So a text
is split into a *skeleton* (the text with every decimal number replaced by a marker) and the
numbers. The skeleton is stored as line operations on the reference's skeleton — copy runs, and
literal lines deflated with the reference skeleton as preset dictionary — so unchanged lines cost
almost nothing. Each line's numbers are stored as differences from a prediction: the numbers of
a matching line of the reference, matched by (skeleton, first number) — so "MariaDB thread id
28, …" follows its thread when the transaction list reorders — or by (skeleton, occurrence); or
the previous line of this sample with the same skeleton (repeated lock dumps and read views);
whichever is cheapest, written explicitly so the decoder needs no heuristics. A reference line
that moved at a steady rate predicts the same step again (second order); both sides know which
lines did, so that choice costs nothing.

Payload = varint n, raw deflate(literal skeleton lines) [n bytes, dictionary = reference
skeleton], raw deflate(varints: op count, line ops, line refs, 0, zigzag number deltas) — two
streams, so text and binary numbers each get their own Huffman codes. A keyframe is coded
against a dictionary sample (or nothing) instead of the previous sample.
"""

from __future__ import annotations

import bisect
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
LEVEL = 9
WBITS = -15          # raw deflate: the row's crc32 already guards the bytes


class CodecError(ValueError):
    """The payload does not decode (damaged bytes or wrong reference)."""


@dataclass
class Decoded:
    """A sample's text in the form needed to serve as the next sample's reference."""

    text: str
    skeleton: bytes
    lines: list[str]
    numbers: list[list[int] | None]          # per skeleton line, None when it has no numbers
    prior: list[list[int] | None]            # per line: its numbers in the reference, when matched
    trend: list[bool]                        # per line: moving at a steady rate (predict 2nd order)
    _by_first: dict[tuple[str, int], list[int]] | None = field(default=None, repr=False)
    _by_line: dict[str, list[int]] | None = field(default=None, repr=False)
    _positions: dict[str, list[int]] | None = field(default=None, repr=False)

    def positions(self) -> dict[str, list[int]]:
        """Line indexes by skeleton line, all lines (built on first use)."""
        if self._positions is None:
            pos: dict[str, list[int]] = {}
            for i, line in enumerate(self.lines):
                pos.setdefault(line, []).append(i)
            self._positions = pos
        return self._positions

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
    prior: list[list[int] | None] = []
    trend: list[bool] = []
    refs: list[int] = []
    deltas: list[int] = []
    by_first, by_line = ref.candidates() if ref else ({}, {})
    prev_numbers = ref.numbers if ref else []
    prev_prior = ref.prior if ref else []
    prev_trend = ref.trend if ref else []
    used_first: dict[tuple[str, int], int] = {}
    used_line: dict[str, int] = {}
    last_here: dict[str, int] = {}            # skeleton line → index among this sample's numbered lines
    here: list[list[int]] = []
    expected = 0
    pos = 0
    for line in lines:
        n = line.count(_MARK)
        if not n:
            numbers.append(None)
            prior.append(None)
            trend.append(False)
            continue
        cur = nums[pos:pos + n]
        pos += n
        numbers.append(cur)
        # Candidates: the same line of the reference (by first number, then by occurrence) and the
        # last line of this sample with the same skeleton (repeated lock dumps, read views).
        # A reference line that was moving at a steady rate predicts "same rate again" (second
        # order); whether it was is known to both sides, so it costs no bits.
        best_token, best, best_cost, best_match = 0, None, _cost(cur), -1
        for match in (_pick(by_first, (line, cur[0]), used_first), _pick(by_line, line, used_line)):
            if match is None or len(prev_numbers[match] or ()) != n:
                continue
            pred = _predict(prev_numbers[match], prev_prior[match], prev_trend[match])  # type: ignore[arg-type]
            cost = _cost_delta(cur, pred)
            if cost < best_cost:
                best_token, best, best_cost, best_match = 1 + 3 * _zz(match - expected), pred, cost, match
        k = last_here.get(line)
        if k is not None:
            cost = _cost_delta(cur, here[k])
            if cost < best_cost:
                best_token, best, best_cost = 2 + 3 * (len(here) - k), here[k], cost
        last_here[line] = len(here)
        here.append(cur)
        refs.append(best_token)
        if best is None:
            deltas.extend(cur)
        else:
            deltas.extend(c - p for c, p in zip(cur, best))
        if best_token % 3 == 1:
            expected = best_match + 1
            base = prev_numbers[best_match]
            prior.append(base)
            trend.append(_steady(cur, base, prev_prior[best_match]))  # type: ignore[arg-type]
        else:
            prior.append(None)
            trend.append(False)
    skel_b = skeleton.encode("utf-8", "surrogatepass")
    ops, literal = _diff_lines(lines, ref)
    lit_z = _deflate("\n".join(literal).encode("utf-8", "surrogatepass"), ref.skeleton if ref else b"")
    values = [_count_ops(ops), *ops, *refs, 0, *map(_zz, deltas)]
    payload = _varints([len(lit_z)]) + lit_z + _deflate(_varints(values), b"")
    return payload, Decoded(text, skel_b, lines, numbers, prior, trend)


def _count_ops(ops: list[int]) -> int:
    n = i = 0
    while i < len(ops):
        i += 2 if ops[i] & 1 else 1
        n += 1
    return n


def _diff_lines(lines: list[str], ref: Decoded | None) -> tuple[list[int], list[str]]:
    """The skeleton as line operations on the reference's: copy runs and literal lines.

    Deflate alone pays ~2 bytes per 258 unchanged bytes; a copy op pays ~2 bytes per run.
    Ops: (n << 1) | 1, zigzag(start - expected) = copy n reference lines; (n << 1) = n literal lines.
    """
    ops: list[int] = []
    literal: list[str] = []
    ref_lines = ref.lines if ref else []
    where = ref.positions() if ref else {}
    n_ref = len(ref_lines)
    expected = i = 0
    run = -1                                  # index in ops of the open literal run, if any
    while i < len(lines):
        line = lines[i]
        if expected < n_ref and ref_lines[expected] == line:
            start = expected
        else:
            cands = where.get(line)
            if not cands:
                if run >= 0:
                    ops[run] += 2                     # one more literal line in the open run
                else:
                    run = len(ops)
                    ops.append(2)
                literal.append(line)
                i += 1
                continue
            k = bisect.bisect_left(cands, expected)
            start = cands[k] if k < len(cands) else cands[0]
        n = 1
        while i + n < len(lines) and start + n < n_ref and lines[i + n] == ref_lines[start + n]:
            n += 1
        ops.extend(((n << 1) | 1, _zz(start - expected)))
        run = -1
        expected = start + n
        i += n
    return ops, literal


def _predict(base: list[int], before: list[int] | None, steady: bool) -> list[int]:
    if steady and before is not None and len(before) == len(base):
        return [2 * b - a for b, a in zip(base, before)]
    return base


def _steady(cur: list[int], base: list[int], before: list[int] | None) -> bool:
    """Did this line move by about its previous step again (so predict the next step so too)?"""
    if before is None or cur is base or cur == base or len(before) != len(base):
        return False
    return (sum(abs(c - 2 * b + a) for c, b, a in zip(cur, base, before))
            < sum(abs(c - b) for c, b in zip(cur, base)))


def _deflate(data: bytes, zdict: bytes) -> bytes:
    comp = zlib.compressobj(LEVEL, zlib.DEFLATED, WBITS, 9, zlib.Z_DEFAULT_STRATEGY, *((zdict,) if zdict else ()))
    return comp.compress(data) + comp.flush()


# One sample's text or number stream inflated: far above any real poll, far below what would
# hurt the reader (a crafted payload must not inflate to gigabytes).
INFLATE_MAX = 64 << 20


def _inflate(data: bytes, zdict: bytes) -> bytes:
    d = zlib.decompressobj(WBITS, *((zdict,) if zdict else ()))
    out = d.decompress(data, INFLATE_MAX)
    if d.unconsumed_tail:
        raise CodecError("payload inflates past the size limit")
    out += d.flush()
    if not d.eof or d.unused_data:
        raise CodecError("truncated or overlong payload")
    return out


def _cost(nums: list[int]) -> int:
    return sum((abs(x).bit_length() + 8) // 7 for x in nums if x) * 4 + len(nums)


def _cost_delta(cur: list[int], prev: list[int]) -> int:
    return sum((abs(c - p).bit_length() + 8) // 7 for c, p in zip(cur, prev) if c != p) * 4


def _zz(v: int) -> int:
    return v * 2 if v >= 0 else -v * 2 - 1


def _unzz(v: int) -> int:
    return v >> 1 if not v & 1 else -((v + 1) >> 1)


def _varints(values) -> bytes:  # type: ignore[no-untyped-def]
    out = bytearray()
    for v in values:
        while v >= 0x80:
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        out.append(v)
    return bytes(out)


def _unvarints(data: bytes) -> list[int]:
    out: list[int] = []
    v = shift = 0
    for b in data:
        if b < 0x80 and not shift:
            out.append(b)
            continue
        v |= (b & 0x7F) << shift
        if b & 0x80:
            shift += 7
        else:
            out.append(v)
            v = shift = 0
    if shift:
        raise CodecError("truncated number")
    return out


def _pick(index: dict, key: object, used: dict) -> int | None:
    cands = index.get(key)
    if not cands:
        return None
    k = used.get(key, 0)
    used[key] = k + 1
    return cands[k] if k < len(cands) else None


def decode(payload: bytes, ref: Decoded | None) -> Decoded:
    try:
        n_lit, at = _first_varint(payload)
        literal_b = _inflate(payload[at:at + n_lit], ref.skeleton if ref else b"")
        values = _unvarints(_inflate(payload[at + n_lit:], b""))
        literal = literal_b.decode("utf-8", "surrogatepass").split("\n")
    except (zlib.error, ValueError, UnicodeDecodeError, IndexError) as exc:
        raise CodecError(str(exc) or "bad payload") from None
    lines, vi = _apply_ops(values, literal, ref.lines if ref else [])
    skeleton = "\n".join(lines)
    skel_b = skeleton.encode("utf-8", "surrogatepass")
    counts = [line.count(_MARK) for line in lines]
    n_refs = sum(1 for c in counts if c)
    if len(values) < vi + n_refs + 1 or values[vi + n_refs] != 0:   # refs, a 0, zigzag deltas
        raise CodecError("bad line references")
    refs, deltas = values[vi:vi + n_refs], values[vi + n_refs + 1:]
    prev_numbers = ref.numbers if ref else []
    prev_prior = ref.prior if ref else []
    prev_trend = ref.trend if ref else []
    numbers: list[list[int] | None] = []
    prior: list[list[int] | None] = []
    trend: list[bool] = []
    here: list[list[int]] = []
    flat: list[int] = []
    expected = pos = ri = 0
    for n in counts:
        if not n:
            numbers.append(None)
            prior.append(None)
            trend.append(False)
            continue
        token = refs[ri]
        ri += 1
        zz = deltas[pos:pos + n]
        pos += n
        if len(zz) != n:
            raise CodecError("number stream too short")
        changed = any(zz)
        delta = [(v >> 1) ^ -(v & 1) for v in zz] if changed else zz
        kind, arg = token % 3, token // 3
        if kind == 0:
            cur = delta
            prior.append(None)
            trend.append(False)
        elif kind == 2:
            base = here[-arg] if 0 < arg <= len(here) else None
            if base is None or len(base) != n:
                raise CodecError("line reference does not fit")
            cur = [a + b for a, b in zip(delta, base)] if changed else base
            prior.append(None)
            trend.append(False)
        else:
            match = expected + _unzz(arg)
            base = prev_numbers[match] if 0 <= match < len(prev_numbers) else None
            if base is None or len(base) != n:
                raise CodecError("line reference does not fit")
            expected = match + 1
            pred = _predict(base, prev_prior[match], prev_trend[match])
            cur = [a + b for a, b in zip(delta, pred)] if changed else pred
            prior.append(base)
            trend.append(_steady(cur, base, prev_prior[match]))
        numbers.append(cur)
        here.append(cur)
        flat.extend(cur)
    if pos != len(deltas):
        raise CodecError("trailing data")
    parts = skeleton.split(_MARK)
    text = "".join(chain.from_iterable(zip(parts, map(str, flat)))) + parts[-1]
    if "\x02" in text:
        text = _UNESC.sub(lambda m: _UNESC_MAP[m.group(1)], text)
    return Decoded(text, skel_b, lines, numbers, prior, trend)


def _apply_ops(values: list[int], literal: list[str], ref_lines: list[str]) -> tuple[list[str], int]:
    """Inverse of _diff_lines: the skeleton lines, and where the refs start in `values`."""
    lines: list[str] = []
    if not values:
        raise CodecError("empty payload")
    n_ops, vi = values[0], 1
    expected = li = 0
    try:
        for _ in range(n_ops):
            op = values[vi]
            vi += 1
            n = op >> 1
            if op & 1:
                start = expected + _unzz(values[vi])
                vi += 1
                if start < 0 or start + n > len(ref_lines):
                    raise CodecError("copy outside the reference")
                lines.extend(ref_lines[start:start + n])
                expected = start + n
            else:
                if li + n > len(literal):
                    raise CodecError("literal lines missing")
                lines.extend(literal[li:li + n])
                li += n
    except IndexError:
        raise CodecError("line operations truncated") from None
    if li != len(literal) and not (li == 0 and literal == [""]):
        raise CodecError("unused literal lines")
    return lines, vi


def _first_varint(data: bytes) -> tuple[int, int]:
    v = shift = 0
    for i, b in enumerate(data[:10]):
        v |= (b & 0x7F) << shift
        if not b & 0x80:
            return v, i + 1
        shift += 7
    raise CodecError("bad length")
