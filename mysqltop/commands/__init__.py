"""One module per command (`HELP`, `add_arguments`, `run`), named in cli.COMMANDS.

Commands never import each other (an import-linter contract): what several of them share lives
in `checks` (flag and FILE checks) and `replay_tui` (the replay TUI over a file).
"""
