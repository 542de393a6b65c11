"""The mysqltop process itself, not its views: the signals that end it as `q` does
(stop_signals.py) and its session's CPU priority (priority.py, --raise-priority). Standard
library only; views and commands import it, sources and core do not."""
