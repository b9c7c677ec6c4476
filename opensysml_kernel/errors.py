"""Typed errors of the faces: a request the session cannot carry out, said so a modeler can act on it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engines.errors import MoveNotEnabled
from engines.errors import WitnessFormatError as WitnessFormatError  # the faces name it from here too
from ir.errors import SysmlError, close_names


class KernelError(SysmlError):
    """Root of the errors the session, its commands and its faces raise."""


class UnknownCommandError(KernelError, LookupError):
    """A `%` command that does not exist; names the closest commands."""

    def __init__(self, name: str, commands: Iterable[str]) -> None:
        self.name = name
        self.suggestions = close_names(name, commands)
        text = f"unknown command '%{name}'"
        if self.suggestions:
            text += "; did you mean " + ", ".join(f"'%{s}'" for s in self.suggestions) + "?"
        text += " (%help lists the commands)"
        super().__init__(text)


class UsageError(KernelError, ValueError):
    """A command given arguments it does not take; the message ends with its usage."""

    def __init__(self, message: str, usage: str) -> None:
        self.message = message
        self.usage = usage
        super().__init__(f"{message}\nusage: {usage}")


class MissingFileError(KernelError, FileNotFoundError):
    """A `%load` argument that names no file."""

    def __init__(self, pattern: str, reason: str = "no file matches") -> None:
        self.pattern = pattern
        super().__init__(f"{reason} '{pattern}'")


class UnknownActionError(KernelError, LookupError):
    """An action name the model does not declare (or declares more than once, unqualified)."""

    def __init__(self, name: str, candidates: Iterable[str], ambiguous: Sequence[str] = ()) -> None:
        self.name = name
        self.ambiguous = tuple(ambiguous)
        if self.ambiguous:
            self.suggestions = list(self.ambiguous)
            text = f"action name '{name}' is ambiguous: " + ", ".join(self.ambiguous) + "; give the qualified name"
        else:
            self.suggestions = close_names(name, candidates)
            text = f"no action named '{name}'"
            if self.suggestions:
                text += "; did you mean " + ", ".join(f"'{s}'" for s in self.suggestions) + "?"
            elif not list(candidates):
                text += "; the model declares no action yet"
        super().__init__(text)


class NoRunError(KernelError, RuntimeError):
    """A command that needs a stepping run when there is none (or it has ended)."""


class RunFailedError(KernelError, RuntimeError):
    """A run that stopped on a runtime error; keeps the last trace lines the failing command produced."""

    SHOWN = 40

    def __init__(self, subject: str, step: int, cause: Exception, lines: Sequence[str] = (),
                 unit: str = "step", what: str = "Action") -> None:
        self.subject = subject
        self.step = step
        self.cause = cause
        shown = list(lines)
        if len(shown) > self.SHOWN:
            left = len(shown) - self.SHOWN
            shown = [f"... {left} earlier trace lines (%trace shows them all)", *shown[-self.SHOWN:]]
        self.lines = tuple(shown)
        super().__init__(f"✗ {what} {subject} failed at {unit} {step}: {cause}")


# A witness move the replay cannot make: the engines' refusal, named as the faces always named it.
ReplayRefusedError = MoveNotEnabled


class WitnessWriteError(KernelError, OSError):
    """Witness files that could not be written (an unwritable or missing folder, a full disk): the
    check's report stands, and this is said after it."""

    def __init__(self, directory: str, reason: str) -> None:
        self.directory = directory
        self.reason = reason
        super().__init__(f"witness files not written to {directory}: {reason}")


class NoWitnessError(KernelError, LookupError):
    """`%replay last` or `%replay <n>` with no such witness in the last check, or a missing witness file."""


class EngineUnavailableError(KernelError, RuntimeError):
    """An engine the selection names that this installation does not have (yet)."""


class SettingNotReadError(KernelError, ValueError):
    """A check setting the selected engine does not read: names the setting and the engine that reads it."""


class InternalError(KernelError, RuntimeError):
    """A failure of the tool itself, not of the model: said in one line, asking for a bug report; the
    Python traceback only when asked for (`%debug on`). What failed changed nothing."""

    def __init__(self, cause: BaseException, traceback: Sequence[str] = ()) -> None:
        self.cause = cause
        self.traceback = tuple(traceback)
        kind = type(cause).__name__
        what = f"{kind}: {cause}" if str(cause) else kind
        text = (f"internal error: {what}\n"
                "this is a bug of opensysml-kernel, not of your model, and it changed nothing in the session;"
                " please report it with the cell that caused it and its traceback")
        if self.traceback:
            text += ":\n" + "".join(self.traceback).rstrip("\n")
        else:
            text += " (%debug on shows it)"
        super().__init__(text)


class CellInterrupted(KernelError):
    """Ctrl-C during a cell or a command: what it had done is undone."""

    def __init__(self, what: str = "the cell") -> None:
        super().__init__(f"interrupted: {what} changed nothing")
