"""IPython adapter: `%load_ext opensysml_kernel` gives the session's commands as magics in any IPython."""

from __future__ import annotations

import html
from collections.abc import Callable
from types import TracebackType
from typing import Any

from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magics.code import CodeMagics
from IPython.core.magics.execution import ExecutionMagics
from IPython.display import display

from ir.errors import SysmlError
from opensysml_kernel.commands import COMMANDS, execute, run_cell
from opensysml_kernel.errors import RunFailedError
from opensysml_kernel.results import Result
from opensysml_kernel.session import Session


def error_lines(error: BaseException) -> list[str]:
    """What a modeler reads for an error: the trace lines that led to it, then its message lines."""
    lines = list(error.lines) if isinstance(error, RunFailedError) else []
    return [*lines, *str(error).splitlines()]


def _show_error(shell: InteractiveShell, kind: type[BaseException], error: BaseException,
                tb: TracebackType | None, tb_offset: int | None = None) -> list[str]:
    """IPython's handler for SysML errors: the readable message, never a Python traceback."""
    lines = error_lines(error)
    shell._showtraceback(kind, error, lines)
    return lines


@magics_class
class SysmlMagics(Magics):
    """`%sysml <command>` / `%%sysml` (a SysML cell); the commands themselves are registered by `register`."""

    def __init__(self, shell: InteractiveShell, session: Session) -> None:
        super().__init__(shell)
        self.session = session

    @line_cell_magic
    def sysml(self, line: str, cell: str | None = None) -> Result | None:
        """`%sysml step 2` runs one command; a `%%sysml` cell is SysML text with `%` command lines."""
        if cell is None:
            return execute(self.session, "%" + line.strip().removeprefix("%"))
        path = None
        if self.shell is not None:
            # IPython counts the running cell before it runs it (when it stores history).
            count = self.shell.execution_count
            path = f"<cell {count - 1 if count > 1 else count}>"
        run_cell(self.session, cell, display, path)
        return None


def _command_magic(shell: InteractiveShell, session: Session, name: str) -> Callable[[str], Any]:
    def magic(line: str) -> Any:
        if name == "load" and not _is_sysml_load(line):
            # IPython's own %load (of Python code) stays in charge of anything that is not SysML.
            ipython_load: Callable[[str], Any] = getattr(CodeMagics(shell), "load")  # noqa: B009 (mypy reads the decorator wrongly)
            return ipython_load(line)
        if name == "debug" and line.strip() not in ("on", "off"):
            # IPython's own %debug (the Python debugger) too: the session's is `%debug on|off`.
            ipython_debug: Callable[[str], Any] = getattr(ExecutionMagics(shell), "debug")  # noqa: B009
            return ipython_debug(line)
        return execute(session, f"%{name} {line}")

    magic.__doc__ = f"{COMMANDS[name].usage}: {COMMANDS[name].help}"
    return magic


def _is_sysml_load(line: str) -> bool:
    """Every argument a .sysml file or a glob."""
    words = line.split()
    return bool(words) and all(w.endswith(".sysml") or "*" in w or "?" in w for w in words)


class NotebookProgress:
    """The live progress line of a long check: one display output, updated in place, emptied at the end."""

    def __init__(self) -> None:
        self.handle: Any = None

    def update(self, text: str) -> None:
        bundle = {"text/plain": text, "text/html": f"<pre style='margin:0;opacity:0.7'>{html.escape(text)}</pre>"}
        if self.handle is None:
            self.handle = display(bundle, raw=True, display_id=True)
        else:
            self.handle.update(bundle, raw=True)

    def close(self) -> None:
        if self.handle is not None:
            self.handle.update({"text/plain": "", "text/html": ""}, raw=True)
            self.handle = None


def register(shell: InteractiveShell) -> Session:
    """Bind a Session as `session`, register the magics and the readable SysML error display; returns it."""
    existing = shell.user_ns.get("session")
    session = existing if isinstance(existing, Session) else Session()
    session.progress_sink = NotebookProgress
    shell.register_magics(SysmlMagics(shell, session))
    for name in COMMANDS:
        shell.magics_manager.register_function(_command_magic(shell, session, name), "line", name)
    shell.set_custom_exc((SysmlError,), _show_error)
    shell.push({"session": session})
    return session
