"""Errors that reach the user as one line and an exit code, never a traceback."""

from __future__ import annotations


class UserError(Exception):
    """A problem the user can fix: printed as `mysqltop: <message>`, exit `code`.

    Exit codes (docs/cli.md): 1 runtime failure, 2 usage or connection/privilege error.
    """

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
