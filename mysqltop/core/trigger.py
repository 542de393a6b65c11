"""Trigger expressions for incident capture, parsed safely (no eval). Pure.

    throughput.threads_running>32
    hotspots.0.share>0.5
    host.run_queue > 2*host.cpus
    io.pending_reads>8 and flush.checkpoint_age_pct>=75

Grammar (usual precedence; `and` binds tighter than `or`):
    expr  := conj ("or" conj)*          conj := cmp ("and" cmp)*
    cmp   := sum OP sum                 OP   := > >= < <= == = !=
    sum   := prod (("+"|"-") prod)*     prod := unary (("*"|"/") unary)*
    unary := "-" unary | NUMBER | PATH | "(" sum ")"
    PATH  := name ("." (name | index))*  — a Frame key path (docs/json.md), checked when parsed

A path whose value is missing (null, no such hotspot) makes its comparison false: a trigger never
fires on absent data. Errors carry the 1-based position of the offending character.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Union

from mysqltop.core.frame import Frame

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![A-Za-z_])"
    r"|(?P<path>[A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|\d+))*)"
    r"|(?P<op>>=|<=|==|!=|&&|\|\||[<>=+\-*/()]))"
)
_CMP: dict[str, Callable[[float, float], bool]] = {
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, "==": lambda a, b: a == b, "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}
_ARITH: dict[str, Callable[[float, float], float | None]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b if b else None,
}


class TriggerError(ValueError):
    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"{message} at position {position}")
        self.message = message
        self.position = position      # 1-based


@dataclass(frozen=True)
class Token:
    kind: str      # num | path | op | end
    text: str
    pos: int       # 1-based


# Expression tree: plain tuples keep evaluation small.
#   ("num", v) ("path", parts) ("neg", e) ("arith", op, a, b) ("cmp", op, a, b) ("and"/"or", [e…])
Node = tuple


@dataclass(frozen=True)
class TriggerResult:
    fired: bool
    value: float | None      # left-hand side of the comparison that decided (for bookmarks)


@dataclass(frozen=True)
class Trigger:
    text: str
    tree: Node

    def evaluate(self, frame: Mapping[str, Any]) -> TriggerResult:
        """Evaluate over a frame dict (`Frame.to_dict()`)."""
        return _eval_bool(self.tree, frame)


def parse_trigger(text: str) -> Trigger:
    tokens = _tokenize(text)
    p = _Parser(tokens)
    tree = p.expr()
    tok = p.peek()
    if tok.kind != "end":
        raise TriggerError(f"unexpected {tok.text!r}", tok.pos)
    return Trigger(text.strip(), tree)


def _tokenize(text: str) -> list[Token]:
    out: list[Token] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m or m.lastgroup is None:
            skip = len(text[pos:]) - len(text[pos:].lstrip())
            raise TriggerError(f"unexpected {text[pos + skip]!r}", pos + skip + 1)
        kind = m.lastgroup
        value = m.group(kind)
        start = m.start(kind) + 1
        if kind == "path" and value.lower() in ("and", "or"):
            kind, value = "op", value.lower()
        out.append(Token(kind, value, start))
        pos = m.end()
    out.append(Token("end", "end of expression", len(text) + 1))
    return out


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expr(self) -> Node:
        parts = [self.conj()]
        while self.peek().text in ("or", "||"):
            self.take()
            parts.append(self.conj())
        return parts[0] if len(parts) == 1 else ("or", parts)

    def conj(self) -> Node:
        parts = [self.cmp()]
        while self.peek().text in ("and", "&&"):
            self.take()
            parts.append(self.cmp())
        return parts[0] if len(parts) == 1 else ("and", parts)

    def cmp(self) -> Node:
        left = self.sum()
        tok = self.peek()
        if tok.kind != "op" or tok.text not in _CMP:
            raise TriggerError(f"expected a comparison (>, >=, <, <=, ==, !=) but found {_show(tok)}", tok.pos)
        self.take()
        return ("cmp", tok.text, left, self.sum())

    def sum(self) -> Node:
        node = self.prod()
        while self.peek().text in ("+", "-"):
            op = self.take().text
            node = ("arith", op, node, self.prod())
        return node

    def prod(self) -> Node:
        node = self.unary()
        while self.peek().text in ("*", "/"):
            op = self.take().text
            node = ("arith", op, node, self.unary())
        return node

    def unary(self) -> Node:
        tok = self.take()
        if tok.text == "-":
            return ("neg", self.unary())
        if tok.kind == "num":
            return ("num", float(tok.text))
        if tok.kind == "path":
            return ("path", _check_path(tok))
        if tok.text == "(":
            node = self.sum()
            close = self.take()
            if close.text != ")":
                raise TriggerError(f"expected ')' but found {_show(close)}", close.pos)
            return node
        raise TriggerError(f"expected a number or a frame field (e.g. throughput.tps) but found {_show(tok)}", tok.pos)


def _show(tok: Token) -> str:
    return tok.text if tok.kind == "end" else repr(tok.text)


def _check_path(tok: Token) -> tuple[str | int, ...]:
    """Check the path against the Frame dataclasses so a typo fails now, not silently never fires."""
    parts: list[str | int] = [int(p) if p.isdigit() else p for p in tok.text.split(".")]
    typ: Any = Frame
    offset = 0
    for part in parts:
        typ = _strip_optional(typ)
        origin = typing.get_origin(typ)
        if dataclasses.is_dataclass(typ):
            hints = typing.get_type_hints(typ)
            if not isinstance(part, str) or part not in hints:
                names = ", ".join(sorted(hints))
                raise TriggerError(f"unknown field {str(part)!r} (one of: {names})", tok.pos + offset)
            typ = hints[part]
        elif origin is list:
            if not isinstance(part, int):
                raise TriggerError(f"expected a list index (e.g. 0) instead of {part!r}", tok.pos + offset)
            typ = typing.get_args(typ)[0]
        elif origin is dict:
            typ = typing.get_args(typ)[1]
        else:
            raise TriggerError(f"{part!r} goes below a number", tok.pos + offset)
        offset += len(str(part)) + 1
    leaf = _strip_optional(typ)
    if dataclasses.is_dataclass(leaf) or typing.get_origin(leaf) in (list, dict):
        raise TriggerError(f"{tok.text!r} is not a number; name a field below it", tok.pos)
    if leaf not in (int, float, bool):
        raise TriggerError(f"{tok.text!r} is text, not a number", tok.pos)
    return tuple(parts)


def _strip_optional(typ: Any) -> Any:
    if typing.get_origin(typ) in (Union, types.UnionType):
        args = [a for a in typing.get_args(typ) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return typ


def _lookup(frame: Any, parts: tuple[str | int, ...]) -> float | None:
    cur = frame
    for part in parts:
        if isinstance(part, int) and isinstance(cur, list):
            cur = cur[part] if part < len(cur) else None
        elif isinstance(cur, Mapping):
            cur = cur.get(str(part))
        else:
            return None
        if cur is None:
            return None
    if isinstance(cur, bool):
        return float(cur)
    return float(cur) if isinstance(cur, (int, float)) else None


def _eval_num(node: Node, frame: Mapping[str, Any]) -> float | None:
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "path":
        return _lookup(frame, node[1])
    if kind == "neg":
        v = _eval_num(node[1], frame)
        return None if v is None else -v
    a, b = _eval_num(node[2], frame), _eval_num(node[3], frame)
    return None if a is None or b is None else _ARITH[node[1]](a, b)


def _eval_bool(node: Node, frame: Mapping[str, Any]) -> TriggerResult:
    kind = node[0]
    if kind == "cmp":
        a, b = _eval_num(node[2], frame), _eval_num(node[3], frame)
        return TriggerResult(a is not None and b is not None and _CMP[node[1]](a, b), a)
    results = []
    for sub in node[1]:
        r = _eval_bool(sub, frame)
        results.append(r)
        if kind == "or" and r.fired:
            return r
        if kind == "and" and not r.fired:
            return TriggerResult(False, results[0].value)
    return TriggerResult(kind == "and", results[0].value)
