"""parse stays bounded on inputs built to be slow: a huge row of pipes is not a table to split
cell by cell, a huge status is not also scanned for tables, and past the size limit it refuses."""

from __future__ import annotations

import time

from mysqltop.commands.parse import MAX_BYTES
from mysqltop.core.detect import parse_any
from mysqltop.core.innodb.line_rules import MAX_LINES
from mysqltop.core.textforms import MAX_CELLS, extract


def test_a_line_of_pipes_is_not_split_into_cells() -> None:
    ext = extract("|" * 200_000)
    assert ext.tables == [] and ext.status_text is None


def test_a_wide_table_still_parses_up_to_the_cell_limit() -> None:
    header = "| " + " | ".join(f"c{i}" for i in range(MAX_CELLS - 1)) + " |"
    ext = extract(f"{header}\n| {' | '.join('1' for _ in range(MAX_CELLS - 1))} |\n")
    assert ext.tables and len(ext.tables[0].header) == MAX_CELLS - 1


def test_cost_grows_linearly_with_the_input() -> None:
    # Compare two sizes in the same process (a ratio, not a time limit): quadratic work would take
    # ~16× as long for 4× the input; linear takes ~4×.
    def cost(n: int) -> float:
        t0 = time.process_time()
        try:
            parse_any("|" * n)
        except ValueError:          # "not a … output": what it says does not matter here
            pass
        return time.process_time() - t0
    small, big = min(cost(250_000) for _ in range(3)), min(cost(1_000_000) for _ in range(3))
    assert big < 10 * max(small, 1e-3), (small, big)


def test_larger_than_the_limit_is_refused_with_one_line(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from mysqltop.cli import main

    f = tmp_path / "big.txt"
    with open(f, "wb") as out:
        out.truncate(MAX_BYTES + 1)
    assert main(["parse", str(f)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "larger than 50 MiB" in err[0]


# --- a status of any shape: cost and memory grow with the input, never faster ----------------------

def _shapes(size: int) -> dict[str, str]:
    from pathlib import Path

    from tests.support.large_status import enlarge

    src = (Path(__file__).resolve().parent / "fixtures" / "corpus" / "innodb-status"
           / "mariadb-10.11__mysqltop-lab__oltp-rw-32thr.txt").read_text()
    big = enlarge(src, size)
    head = src.find("INNODB MONITOR OUTPUT") + len("INNODB MONITOR OUTPUT\n")
    thread = src.find("\n", src.find("MariaDB thread id")) + 1
    return {
        "status": big,
        "cut short": big[: big.rfind("END OF INNODB")],
        "escaped": "Type\tName\tStatus\nInnoDB\t\t" + big.replace("\\", "\\\\").replace("\n", "\\n") + "\n",
        "one huge query": src[:thread] + "SELECT 1 /* x */\n" * (size // 17) + src[thread:],
        "short junk lines": src[:head] + "ab\n" * (size // 3) + src[head:],
        "blank line": src[:head] + " " * size + "x|",
        "prompts": "mysql> x\n-> y\n" * (size // 14),
    }


def _cpu(text: str) -> float:
    best = float("inf")
    for _ in range(2):
        t0 = time.process_time()
        try:
            parse_any(text)
        except ValueError:
            pass
        best = min(best, time.process_time() - t0)
    return max(best, 1e-3)


def test_every_shape_of_status_costs_time_linear_in_its_size() -> None:
    # 8× the input: linear work takes ~8× the CPU time, quadratic ~64×. CPU time of this process
    # only, the best of two: other work on the box does not count.
    small, big = _shapes(200_000), _shapes(1_600_000)
    ratios = {name: _cpu(big[name]) / _cpu(small[name]) for name in small}
    assert all(r < 24 for r in ratios.values()), ratios


def test_every_shape_of_status_holds_a_few_copies_at_most() -> None:
    import tracemalloc

    for name, text in _shapes(4_000_000).items():
        if name == "prompts":      # no status: a table's text is split into lines, each an object
            continue
        tracemalloc.start()
        try:
            parse_any(text)
        except ValueError:
            pass
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        # a status is cut out and parsed in slices of itself; at most MAX_LINES of a section are
        # split into lines
        assert peak < 6 * len(text) + 100 * MAX_LINES, (name, peak / len(text))
