"""The trace recorder: the lines of the corpus's `.trace.golden` format, with their indentation."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Trace:
    """Lines of one run; `depth` is the indentation the next statement or eval line is written at."""

    lines: list[str] = field(default_factory=list)
    depth: int = 0
    enabled: bool = True

    def at(self, depth: int, text: str) -> None:
        """A statement or evaluation line, indented two spaces per level."""
        if self.enabled:
            self.lines.append("  " * depth + text)

    def flush_left(self, text: str) -> None:
        """A step, choice, enter or leave line: never indented."""
        if self.enabled:
            self.lines.append(text)

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Nothing is written while inside (a probe, an initial value the trace does not show)."""
        was = self.enabled
        self.enabled = False
        try:
            yield
        finally:
            self.enabled = was

    def mark(self) -> int:
        return len(self.lines)

    def since(self, mark: int) -> list[str]:
        return self.lines[mark:]
