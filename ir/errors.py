"""Typed diagnostics of the static layer: where (path:line:col), what, and what to do."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence


class SysmlError(Exception):
    """Root of every diagnostic this tool reports about a model or a request."""


def caret_context(source: str, line: int, column: int) -> str:
    """The source line at `line` with a caret under `column` (both 1-based); empty when out of range."""
    lines = source.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    text = lines[line - 1].expandtabs(4)
    raw = lines[line - 1]
    # The caret sits under the same character once tabs are expanded.
    prefix = raw[: max(column - 1, 0)].expandtabs(4)
    return f"  {text}\n  {' ' * len(prefix)}^"


def close_names(name: str, candidates: Iterable[str], limit: int = 3) -> list[str]:
    """The existing names closest to `name`, best first, for a "did you mean" hint."""
    pool = sorted(set(candidates))
    short = name.rsplit("::", 1)[-1].rsplit(".", 1)[-1]
    by_last = {c.rsplit("::", 1)[-1]: c for c in pool}
    hits = difflib.get_close_matches(name, pool, n=limit, cutoff=0.6)
    for h in difflib.get_close_matches(short, sorted(by_last), n=limit, cutoff=0.6):
        full = by_last[h]
        if full not in hits:
            hits.append(full)
    return hits[:limit]


class SysmlSyntaxError(SysmlError, SyntaxError):
    """Text that is not in the grammar: path, line, column, the line with a caret, what was expected."""

    def __init__(self, path: str, line: int, column: int, message: str, source: str = "",
                 expected: Sequence[str] = ()) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        self.expected = tuple(expected)
        self.context = caret_context(source, line, column)
        super().__init__(str(self))
        # SyntaxError's own fields, so Python's and IPython's renderers show the same place.
        lines = source.splitlines()
        self.msg = message
        self.filename = path
        self.lineno = line
        self.offset = column
        self.text = lines[line - 1] if 1 <= line <= len(lines) else None

    def __str__(self) -> str:
        head = f"{self.path}:{self.line}:{self.column}: syntax error: {self.message}"
        return f"{head}\n{self.context}" if self.context else head


class ResolveError(SysmlError, LookupError):
    """A name the model does not declare, reported on the element that refers to it."""

    def __init__(self, name: str, referrer: str, candidates: Iterable[str] = (), path: str = "",
                 line: int = 0, column: int = 0, what: str = "name") -> None:
        self.name = name
        self.referrer = referrer
        self.suggestions = close_names(name, candidates)
        self.path = path
        self.line = line
        self.column = column
        self.what = what
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.column}: " if self.path and self.line else ""
        if self.what in ("succession source", "succession target"):
            # the words a lowering error used for it, which the corpus's expectation quotes
            text = f'{where}undefined {self.what.split()[1]} node "{self.name}" in {self.referrer}'
        else:
            text = f"{where}unknown {self.what} '{self.name}' in {self.referrer}"
        if self.suggestions:
            text += "; did you mean " + ", ".join(f"'{s}'" for s in self.suggestions) + "?"
        return text


class PlacedError(SysmlError, ValueError):
    """An error with a message and, where known, the file:line:column it points at."""

    def __init__(self, message: str, path: str = "", line: int = 0, column: int = 0) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.column}: " if self.path and self.line else ""
        return f"{where}{self.message}"


class PortMismatchError(PlacedError):
    """Ports that cannot be connected as written (both ends send one feature), or a conjugate of
    what is no port definition."""


class FixedValueError(PlacedError):
    """A redefinition giving its own value to a feature whose value is fixed: declared with `=` or `:=`,
    not `default`, which holds for every redefinition (KerML's FeatureValue, isDefault false)."""


class LoweringError(PlacedError):
    """A behavior whose structure cannot be made into a graph (a succession to nothing, ...)."""


class StateMachineError(LoweringError):
    """A machine a run cannot follow as written; `hint` says what to do."""

    def __init__(self, message: str, hint: str = "", path: str = "", line: int = 0, column: int = 0) -> None:
        self.hint = hint
        super().__init__(message, path, line, column)

    def __str__(self) -> str:
        text = super().__str__()
        return f"{text} ({self.hint})" if self.hint else text


class NoInitialTransitionError(StateMachineError):
    """A machine (or a composite state entered by default) that does not say which state it starts in."""


class UnknownStateError(StateMachineError):
    """A transition naming a state the machine does not hold."""


class UnknownSignalError(StateMachineError):
    """A signal sent to a machine none of whose transitions accepts it."""
