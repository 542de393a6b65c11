"""Hostile inputs for the fuzz test and bench/fuzz: four families, each seeded and bounded by count.

- parse:      mutated corpus texts (every kind) through parse_any, its JSON and its text summary;
- derive:     pairs of real samples with mutated status texts, counters and rows through derive
              and every headless format;
- recordings: damaged recordings (fields, blobs, bytes, not a recording at all) through
              `snapshot --replay` and `report`;
- cli:        command lines of hostile files and arguments through `mysqltop` itself.

A failure is an exception that escapes (a traceback), "Traceback" in what was printed, or a raw
control character (C0/C1/ESC other than newline and tab) in any output.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import random
import re
import shutil
import sqlite3
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
INCIDENT = ROOT / "mysqltop" / "data" / "incident.mtrec"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
ESC = "\x1b]0;PWNED\x07\x1b[2J\x1b[31m\x9b2J\x00\r\x85"
JUNK = [ESC, "9" * 400, "F" * 5000, "\n---\nLOG\n---\n", "\x00", "|", "\u202e", "1e999", "-nan", "nan",
        "inf", "-1", "18446744073709551616", "0x" + "f" * 30, "[@click=app.quit]", "[/oops]",
        "\n------------\nTRANSACTIONS\n------------\nTrx id counter 999\nHistory list length 987654321\n",
        "----------------------------\nEND OF INNODB MONITOR OUTPUT\n============================",
        "mysql> SELECT 1;", "1 row in set (0.00 sec)", "\\n" * 50, "\t" * 20]


@dataclasses.dataclass
class Tally:
    tried: int = 0
    failed: int = 0
    examples: list[str] = dataclasses.field(default_factory=list)

    def fail(self, family: str, what: str) -> None:
        self.failed += 1
        if len(self.examples) < 5:
            self.examples.append(f"{family}: {what[:300]}")


def corpus_texts() -> list[str]:
    return [p.read_text(errors="replace") for p in sorted(CORPUS.rglob("*"))
            if p.is_file() and p.suffix in (".txt", ".tsv")]


def mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    for _ in range(rng.randrange(1, 12)):
        k = rng.randrange(len(lines))
        op = rng.randrange(6)
        if op == 0:
            lines[k] = rng.choice(JUNK)
        elif op == 1:
            lines[k] = re.sub(r"\d+", lambda m: rng.choice([*JUNK[1:4], m[0]]), lines[k])
        elif op == 2:
            lines.insert(k, rng.choice(lines))
        elif op == 3:
            lines[k] = lines[k][: rng.randrange(len(lines[k]) + 1)]
        elif op == 4:                                   # a statement line carrying escapes
            lines.insert(k, "UPDATE t SET v = '" + rng.choice(JUNK) + "' /* " + rng.choice(JUNK) + " */")
        else:
            del lines[k: k + rng.randrange(1, 30)]
            if not lines:
                lines = [""]
    return "\n".join(lines)


def clean(out: str) -> str | None:
    """What is wrong with this output, or None."""
    if "Traceback" in out:
        return "traceback printed: " + out[out.index("Traceback"):][:200]
    m = RAW.search(out.replace("\n", "").replace("\t", ""))
    return None if m is None else f"raw control character {m[0]!r} in {out[max(0, m.start() - 40): m.start() + 40]!r}"


def _check(tally: Tally, family: str, what: str, fn: Callable[[], str]) -> None:
    tally.tried += 1
    try:
        problem = clean(fn())
    except Exception as exc:  # noqa: BLE001 — every escaping exception is the finding
        problem = f"{type(exc).__name__}: {exc}"
    if problem is not None:
        tally.fail(family, f"{what}: {problem}")


# --- parse --------------------------------------------------------------------------------------

def parse_family(n: int, seed: int, tally: Tally) -> None:
    from mysqltop.core.detect import UnknownOutput, parse_any
    from mysqltop.core.safe_text import json_text
    from mysqltop.views.parse_text import render

    rng, texts = random.Random(seed), corpus_texts()

    def one(text: str) -> str:
        try:
            obj = parse_any(text)
        except UnknownOutput as exc:
            return str(exc)
        return json_text(obj) + render("f", obj)

    for _ in range(n):
        text = mutate(rng.choice(texts), rng)
        _check(tally, "parse", repr(text[:80]), lambda text=text: one(text))


# --- derive -------------------------------------------------------------------------------------

def real_samples(count: int = 6) -> list[Any]:
    from mysqltop.recording.reader import RecordingReader

    with RecordingReader(INCIDENT) as r:
        return [r.sample(i) for i in range(min(count, len(r)))]


def _hostile_value(v: Any, rng: random.Random) -> Any:
    if isinstance(v, dict):
        return {k: (_hostile_value(x, rng) if rng.random() < 0.2 else x) for k, x in v.items()}
    if isinstance(v, list):
        return [(_hostile_value(x, rng) if rng.random() < 0.2 else x) for x in v]
    return rng.choice([*JUNK, None, -1, 10**400 if rng.random() < 0.5 else 2**70, 1e308, float("inf"),
                       float("nan"), -0.0, True, [], {}])


def hostile_sample(raw: Any, rng: random.Random) -> Any:
    changes: dict[str, Any] = {}
    if raw.innodb_status:
        changes["innodb_status"] = mutate(raw.innodb_status, rng)
    for name in ("global_status", "ps_waits", "innodb_mutex", "innodb_metrics", "lock_waits", "transactions",
                 "sessions", "session_states", "timings_ms", "errors"):
        if rng.random() < 0.3:
            changes[name] = _hostile_value(getattr(raw, name) or {"x": 1}, rng)
    if rng.random() < 0.2:
        changes["server"] = dataclasses.replace(raw.server, version=rng.choice(JUNK), address=rng.choice(JUNK))
    if rng.random() < 0.1:
        changes["wall"] = rng.choice([1e12, -1.0, 0.0, raw.wall])
    return dataclasses.replace(raw, **changes)


def derive_family(n: int, seed: int, tally: Tally) -> None:
    from mysqltop.timeline.polled import PolledTimeline
    from mysqltop.views.headless import FORMATS, writer_for

    rng, samples = random.Random(seed), real_samples()
    for _ in range(n):
        i = rng.randrange(len(samples) - 1)
        prev, cur = hostile_sample(samples[i], rng), hostile_sample(samples[i + 1], rng)
        fmt = rng.choice(FORMATS)

        def one(prev: Any = prev, cur: Any = cur, fmt: str = fmt) -> str:
            pipe = PolledTimeline()
            pipe.push(prev)
            frame = pipe.push(cur)
            w = writer_for(fmt, width=100)
            return w.header() + w.frame(frame) + w.footer()
        _check(tally, "derive", fmt, one)


# --- recordings and command lines -----------------------------------------------------------------

def run_cli(argv: list[str]) -> str:
    """`mysqltop ARGV` in this process; what it printed, and its exit code."""
    from mysqltop.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:          # argparse: bad usage (2) or --help (0)
            code = exc.code if isinstance(exc.code, int) else 2
    if code not in (0, 1, 2):
        raise AssertionError(f"exit {code}")
    return out.getvalue() + err.getvalue()


def small_recording(path: Path, keep: int = 5) -> Path:
    shutil.copyfile(INCIDENT, path)
    with contextlib.closing(sqlite3.connect(path)) as db:
        for table in ("samples", "state", "dicts"):
            db.execute(f"DELETE FROM {table} WHERE seq >= ?", (keep,))
        db.execute("DELETE FROM bookmarks")
        db.commit()
        db.execute("VACUUM")
    return path


_DAMAGE = [
    "UPDATE samples SET t = :big WHERE seq = :seq",
    "UPDATE samples SET t = -:big WHERE seq = :seq",
    "UPDATE samples SET mono = :big WHERE seq = :seq",
    "UPDATE samples SET ref = :seq WHERE seq = :seq",
    "UPDATE samples SET ref = 999 WHERE seq = :seq",
    "UPDATE samples SET crc = 0 WHERE seq = :seq",
    "UPDATE samples SET data = substr(data, 1, length(data) / 2) WHERE seq = :seq",
    "UPDATE samples SET data = :junk WHERE seq = :seq",
    "UPDATE samples SET t = 'x' WHERE seq = :seq",
    "DELETE FROM samples WHERE seq = :seq",
    "UPDATE segments SET interval = :big",
    "UPDATE segments SET interval = 0",
    "UPDATE segments SET started = :big",
    "UPDATE segments SET first_seq = 99",
    "UPDATE segments SET mysqltop_version = :text, recorder_host = :text, trigger = :text",
    "UPDATE meta SET value = :text WHERE key = 'created_by'",
    "UPDATE meta SET value = '1e999' WHERE key = 'created'",
    "UPDATE state SET data = :state",
    "UPDATE state SET data = :junk",
    "UPDATE dicts SET data = :junk",
    "INSERT INTO bookmarks (seq, t, trigger, value, note) VALUES (:seq, :big, :text, :big, :text)",
    "INSERT INTO bookmarks (seq, t, trigger, value, note) VALUES (1, 1763777670.0, :text, 1e308, :text)",
    "DELETE FROM segments",
    "DROP TABLE bookmarks",
]


def damaged_recording(base: Path, path: Path, rng: random.Random) -> Path:
    shutil.copyfile(base, path)
    kind = rng.randrange(10)
    if kind == 0:                                       # bytes flipped anywhere in the file
        data = bytearray(path.read_bytes())
        for _ in range(rng.randrange(1, 40)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        path.write_bytes(bytes(data))
    elif kind == 1:                                     # cut short
        data = path.read_bytes()
        path.write_bytes(data[: rng.randrange(len(data))])
    elif kind == 2:                                     # not a recording at all
        path.write_bytes(rng.choice([b"", b"\x1b[2J" * 100, Path("/etc/passwd").read_bytes()
                                     if Path("/etc/passwd").is_file() else b"root:x:0:0",
                                     bytes(rng.randrange(256) for _ in range(4096)),
                                     b"SQLite format 3\x00" + b"\x00" * 200]))
    else:
        state = {"server": {"version": ESC, "flavor": ESC, "address": ESC}, "variables": {ESC: ESC}}
        with contextlib.closing(sqlite3.connect(path)) as db:
            for _ in range(rng.randrange(1, 4)):
                with contextlib.suppress(sqlite3.Error):
                    db.execute(rng.choice(_DAMAGE), {
                        "seq": rng.randrange(5), "big": rng.choice([1e12, 1e308, 2.0**63, 1e18]),
                        "text": rng.choice(JUNK), "junk": bytes(rng.randrange(256) for _ in range(rng.randrange(64))),
                        "state": zlib.compress(repr(state).encode() if rng.random() < 0.5
                                               else __import__("json").dumps(state).encode())})
            db.commit()
    return path


def recording_family(n: int, seed: int, tally: Tally, tmp: Path) -> None:
    rng = random.Random(seed)
    base = small_recording(tmp / "base.mtrec")
    for k in range(n):
        path = damaged_recording(base, tmp / f"d{k % 4}.mtrec", rng)
        for sidecar in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            sidecar.unlink(missing_ok=True)
        if rng.random() < 0.6:
            argv = ["snapshot", "--replay", str(path), "--count", "3",
                    "--format", rng.choice(["text", "json", "csv", "openmetrics"])]
        else:
            argv = ["report", str(path), "--format", rng.choice(["text", "json", "md"])]
        _check(tally, "recording", " ".join(argv[:2]), lambda argv=argv: run_cli(argv))


def _hostile_file(tmp: Path, rng: random.Random, texts: list[str]) -> str:
    path = tmp / f"in{rng.randrange(4)}.txt"
    choice = rng.randrange(5)
    if choice == 0:
        path.write_text(mutate(rng.choice(texts), rng))
    elif choice == 1:
        path.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(2000))))
    elif choice == 2:
        path.write_text(rng.choice(JUNK) * rng.randrange(1, 200))
    elif choice == 3:
        return rng.choice(["/etc/passwd", "/nonexistent/" + ESC, str(tmp), "/dev/null"])
    else:
        path.write_bytes(b"\xff\xfe" + mutate(rng.choice(texts), rng).encode("utf-16-le", errors="replace"))
    return str(path)


def cli_family(n: int, seed: int, tally: Tally, tmp: Path) -> None:
    rng, texts = random.Random(seed), corpus_texts()
    base = small_recording(tmp / "cli-base.mtrec")
    whens = ["+5m", "-10m", "33658-01-01", "-1e12", ESC, "99:99", "00:00", "2026-11-22T02:14:00", "", "now",
             "+" + "9" * 400 + "s", "nan", "1e999"]
    for _ in range(n):
        cmd = rng.randrange(4)
        if cmd == 0:
            argv = ["parse", *[_hostile_file(tmp, rng, texts) for _ in range(rng.randrange(1, 3))],
                    "--format", rng.choice(["text", "json"])]
        elif cmd == 1:
            argv = ["snapshot", "--replay", rng.choice([str(base), _hostile_file(tmp, rng, texts)]),
                    "--start", rng.choice(whens), "--count", rng.choice(["1", "2", "0", "-1", "9" * 30, ESC])]
        elif cmd == 2:
            argv = ["report", rng.choice([str(base), _hostile_file(tmp, rng, texts)]),
                    "--start", rng.choice(whens), "--end", rng.choice(whens),
                    "--format", rng.choice(["text", "json", "md"])]
        else:
            argv = [rng.choice(["parse", "report", "snapshot", ESC, "--" + ESC]), rng.choice(JUNK[:6]),
                    rng.choice(["--format", "--start", "--count", "--interval", "-p"]), rng.choice(JUNK[:6])]
            if argv[0] == "snapshot":
                argv[1:1] = ["--replay", str(base)]        # never a live connection
        _check(tally, "cli", repr(argv)[:120], lambda argv=argv: run_cli(argv))


FAMILIES = ("parse", "derive", "recordings", "cli")


def run_all(counts: dict[str, int], seed: int, tmp: Path) -> Iterator[tuple[str, Tally]]:
    for family in FAMILIES:
        tally = Tally()
        n = counts.get(family, 0)
        if not n:
            continue
        if family == "parse":
            parse_family(n, seed, tally)
        elif family == "derive":
            derive_family(n, seed, tally)
        elif family == "recordings":
            recording_family(n, seed, tally, tmp)
        else:
            cli_family(n, seed, tally, tmp)
        yield family, tally
