"""One module per command (`HELP`, `add_arguments`, `run`), named in cli.COMMANDS.

Commands never import each other (an import-linter contract): what several of them share lives
in lower layers (core/pacing.py: interval and speed checks; views/terminal.py; recording/target.py;
views/tui/replay_app.py: the replay TUI over a file; process/priority.py: --raise-priority;
the fleet overview under views/ and sources/).
"""
