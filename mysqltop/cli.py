"""Argument wiring only: pick a command module, let it parse its flags and run.

Each command lives in `mysqltop.commands.<name>` with `HELP`, `add_arguments(parser)` and
`run(args) -> int`. Command modules import heavy packages (textual, pymysql, psutil) inside
`run`, so `mysqltop --version` and `--help` stay fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from mysqltop import __version__
from mysqltop.core.safe_text import visible
from mysqltop.errors import UserError

# Order is the order shown in --help. "live" is the default when no command is named.
COMMANDS = ("live", "replay", "demo", "record", "snapshot", "report", "parse", "import", "redact", "serve")
DEFAULT_COMMAND = "live"
# A command whose name is a Python keyword lives in a module named otherwise.
MODULES = {"import": "import_collection"}


class _ExplainPoll(argparse.Action):
    """--explain-poll: print every statement a poll may send, its cap and cadence, and exit."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kw: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print every statement a poll may send, "
                         "its time cap and its cadence, and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from mysqltop.sources.explain_poll import explain

        print("\n".join(explain()))
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    """argparse that exits 2 with one `mysqltop: …` line instead of a usage dump."""

    def _parse_optional(self, arg_string: str):  # type: ignore[no-untyped-def]
        # "-10m", "-90s..-30s" are WHEN values (time before the end), never flags: no flag here
        # starts with a digit, so `--start -10m` works without the `=`.
        if len(arg_string) > 1 and arg_string[0] == "-" and arg_string[1].isdigit():
            return None
        return super()._parse_optional(arg_string)

    def error(self, message: str) -> None:  # type: ignore[override]
        stray = message.removeprefix("unrecognized arguments: ").split(" ")[0]
        if message.startswith("unrecognized arguments: ") and stray in COMMANDS:
            # `mysqltop -h db1 snapshot`: options were read as the live view's, the command came last
            raise UserError(f"the command goes first: `mysqltop {stray} [options]` "
                            f"(see `mysqltop {stray} --help`)", 2)
        raise UserError(f"{message} (see `{self.prog} --help`)", 2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mysqltop",
        description="Live InnoDB contention monitor: where InnoDB is waiting, right now, and why.",
        epilog="With no command, `mysqltop [CONN]` opens the live view. "
        "`mysqltop demo` replays a bundled incident with no server.",
        add_help=False,
    )
    parser.add_argument("--help", action="help", help="show this help and exit")
    parser.add_argument("--version", action="version", version=f"mysqltop {__version__}")
    parser.add_argument("--explain-poll", action=_ExplainPoll)
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        module = importlib.import_module(f"mysqltop.commands.{MODULES.get(name, name)}")
        # add_help=False because -h is --host, as in the mysql client.
        sub = subs.add_parser(name, help=module.HELP, description=module.HELP, add_help=False)
        sub.add_argument("--help", action="help", help="show this help and exit")
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run)
    return parser


def _with_default_command(argv: list[str]) -> list[str]:
    if argv and argv[0] in ("--help", "--version", "--explain-poll"):
        return argv
    if not argv or argv[0] not in COMMANDS:
        return [DEFAULT_COMMAND, *argv]
    return argv


def masked_argv(argv: Sequence[str]) -> list[str] | None:
    """`argv` with every password value replaced by x's, as the mysql client does; None when
    it holds no password. Covers -pSECRET, --password=SECRET, --password SECRET and the
    abbreviations argparse accepts (--pass=…)."""
    out, hidden, take_next = list(argv), False, False
    for i, arg in enumerate(argv):
        if take_next:
            take_next = False
            if not arg.startswith("-"):
                out[i], hidden = "x" * len(arg), True
            continue
        name, eq, value = arg.partition("=")
        if arg.startswith("--") and len(name) >= 4 and "--password".startswith(name):
            if eq:
                out[i], hidden = f"{name}={'x' * len(value)}", hidden or bool(value)
            else:
                take_next = True
        elif arg == "-p":
            take_next = True
        elif arg.startswith("-p") and not arg.startswith("--"):
            out[i], hidden = "-p" + "x" * (len(arg) - 2), True
        elif arg == "--":
            break
    return out if hidden else None


def hide_password_from_ps() -> None:
    """Rewrite the process title (/proc/PID/cmdline, ps, top) without the password."""
    orig = getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv]
    masked = masked_argv(orig)
    if masked is None:
        return
    try:
        import setproctitle
    except ImportError:                     # the dependency is missing: say so rather than leak silently
        print("mysqltop: setproctitle is not installed: the password stays visible in ps; "
              "prefer -p (prompt), MYSQL_PWD or an option file", file=sys.stderr)
        return
    setproctitle.setproctitle(" ".join(masked))


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        hide_password_from_ps()
    args_list = _with_default_command(list(sys.argv[1:] if argv is None else argv))
    try:
        args = build_parser().parse_args(args_list)
        return int(args._run(args) or 0)
    except UserError as exc:
        print(f"mysqltop: {visible(exc.message)}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `mysqltop snapshot … | head`
        return 0
