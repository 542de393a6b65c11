"""One module per command (`HELP`, `add_arguments`, `run`), named in cli.COMMANDS.

Commands never import each other (an import-linter contract): what several of them share lives
in `checks` (flag and FILE checks), `replay_tui` (the replay TUI over a file) and `fleet` (the
fleet overview and its flags, reached from `live` when several servers are named).
"""
