"""CLI wiring: default command, one-line usage errors, WHEN values that start with '-'."""

from __future__ import annotations

import pytest

from mysqltop.cli import _with_default_command, build_parser, main


def test_no_command_means_live_with_mysql_client_flags() -> None:
    args = build_parser().parse_args(_with_default_command(["-h", "db1", "-P", "3307", "-u", "dba", "-psecret"]))
    assert (args.command, args.host, args.port, args.user, args.password) == ("live", "db1", 3307, "dba", "secret")


@pytest.mark.parametrize("when", ["-10m", "-90s", "-1h"])
def test_negative_when_needs_no_equals_sign(when: str) -> None:
    args = build_parser().parse_args(["snapshot", "--replay", "x.mtrec", "--start", when, "--end", "-0m"])
    assert (args.start, args.end) == (when, "-0m")


def test_compare_windows_relative_to_the_end() -> None:
    args = build_parser().parse_args(["report", "f", "--compare", "-10m..-5m", "-5m..-0m"])
    assert args.compare == ["-10m..-5m", "-5m..-0m"]


def test_usage_error_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mysqltop: unrecognized arguments: --bogus") and err.count("\n") == 1


def test_command_after_options_says_it_goes_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-h", "127.0.0.1", "-P", "1", "snapshot", "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert err == "mysqltop: the command goes first: `mysqltop snapshot [options]` (see `mysqltop snapshot --help`)\n"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.startswith("mysqltop ")


# `type=float` lets "nan" and "inf" through: nan passed `<= 0` and `record` polled flat out
# (4772 samples in 30 s), inf crashed with a traceback in the socket timeout. Checked before
# connecting (port 1 would refuse), so the answer is the flag's own line.
@pytest.mark.parametrize("command", [["live"], ["record", "/nonexistent-dir/x.mtrec"], ["snapshot"]])
@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1", "1e12"])
def test_bad_interval_is_one_line_before_connecting(command: list[str], value: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command, "-h", "127.0.0.1", "-P", "1", "--interval", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mysqltop: --interval must be a number of seconds above 0") and err.count("\n") == 1


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-2", "1e9"])
def test_bad_speed_is_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--speed", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mysqltop: --speed must be a number above 0") and err.count("\n") == 1


def test_snapshot_replay_rejects_interval_instead_of_ignoring_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "--replay", "x.mtrec", "--interval", "5"]) == 2
    assert "--interval paces polls of a live server" in capsys.readouterr().err


def test_snapshot_across_a_server_freeze_says_why_and_exits_1(mariadb_factory) -> None:  # type: ignore[no-untyped-def]
    """CSV/OpenMetrics rows only said stale=true, nothing on stderr, and the exit code was 0 even
    though the last frame held no data (a cron job writing a .prom file could not tell)."""
    import subprocess
    import sys
    from pathlib import Path

    db = mariadb_factory(name="snapfrz")
    proc = subprocess.Popen([sys.executable, "-m", "mysqltop", "snapshot", *db.cli_args(), "--count", "4",
                             "--interval", "1", "--format", "csv"], cwd=Path(__file__).resolve().parents[1],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        head = [proc.stdout.readline(), proc.stdout.readline()]   # connected: header + a fresh frame
        db.pause()
        out, err = proc.communicate(timeout=60)
        out = "".join(head) + out
    finally:
        db.resume()
        if proc.poll() is None:
            proc.kill()
    rows = out.strip().splitlines()[1:]
    stale = [r.split(",")[2] for r in rows]
    assert len(rows) == 4 and stale[-1] == "true" and "false" in stale, (out, err)
    lines = err.strip().splitlines()
    assert proc.returncode == 1, err
    assert sum("no fresh data:" in line for line in lines) == 1, err       # once per outage
    assert lines[-1].startswith("mysqltop: the server gave no fresh data for the last frame (no answer for")
