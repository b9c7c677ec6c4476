"""The live progress line of a long check in a terminal (the REPL's and the command line's `check`).

Its own module so that `check` on the command line needs rich only, not the REPL's prompt_toolkit.
"""

from __future__ import annotations

from rich.console import Console
from rich.status import Status


class TerminalProgress:
    """The live progress line of a long check: a rich status line, gone when the check ends."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.status: Status | None = None

    def update(self, text: str) -> None:
        if self.status is None:
            self.status = self.console.status(text)
            self.status.start()
        else:
            self.status.update(text)

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None
