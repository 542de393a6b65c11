"""parse stays bounded on inputs built to be slow: a huge row of pipes is not a table to split
cell by cell, a huge status is not also scanned for tables, and past the size limit it refuses."""

from __future__ import annotations

import time

from mysqltop.commands.parse import MAX_BYTES
from mysqltop.core.detect import parse_any
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
