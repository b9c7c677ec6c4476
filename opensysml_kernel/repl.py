"""The terminal REPL: prompt_toolkit input (multi-line while braces are open), rich output, one Session."""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator
from contextlib import suppress

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.output import Output
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ir.errors import SysmlError
from opensysml_kernel.cells import open_braces
from opensysml_kernel.commands import run_cell
from opensysml_kernel.complete import complete
from opensysml_kernel.errors import InternalError
from opensysml_kernel.highlight import SysmlLexer
from opensysml_kernel.magics import error_lines
from opensysml_kernel.progress import TerminalProgress
from opensysml_kernel.results import Result
from opensysml_kernel.session import Session

HISTORY_FILE = "~/.opensysml_history"
BANNER = "opensysml-kernel REPL: SysML text or %commands (%help lists them); Ctrl-D leaves"
_STYLES = {"▶": "bold blue", "⏸": "bold yellow", "✓": "bold green", "✗": "bold red", "?": "bold yellow"}


class _TolerantHistory(FileHistory):
    """History in a file, silently in memory only when the file cannot be read or written."""

    def load_history_strings(self) -> Iterable[str]:
        with suppress(OSError):
            yield from super().load_history_strings()

    def store_string(self, string: str) -> None:
        with suppress(OSError):
            super().store_string(string)


def history(path: str = HISTORY_FILE) -> History:
    full = os.path.expanduser(path)
    if full.startswith("~"):
        return InMemoryHistory()  # no home to keep it in
    return _TolerantHistory(full)


class SysmlCompleter(Completer):
    """Command names, their settings and qualified names, as the kernel offers them."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        found = complete(self.session, document.text, document.cursor_position)
        if found is not None:
            for match in found.matches:
                yield Completion(match, start_position=found.start - document.cursor_position)


def render(result: Result) -> RenderableType:
    """A Result for the terminal: verdict lines coloured by their mark, tables as rich tables."""
    parts: list[RenderableType] = [Text(line, style=_STYLES.get(line[:1], "")) for line in result.lines]
    if result.table is not None:
        # every cell as Text: a usage's `[n]` or `[on <part>]` is text, not rich markup
        table = Table(*(escape(h) for h in result.table.header), box=None, show_edge=False, pad_edge=False,
                      header_style="bold")
        for row in result.table.rows:
            table.add_row(*(Text(cell) for cell in row))
        parts.append(table)
    return Group(*parts)


def hint(text: str) -> str | None:
    """The line under the prompt while an entry has braces open: Enter goes on, Esc-Enter submits."""
    depth = open_braces(text)
    if depth <= 0:
        return None
    braces = "1 brace" if depth == 1 else f"{depth} braces"
    return f" {braces} open: Enter adds a line; Esc-Enter (or Alt-Enter) submits the entry as it is"


def submit_anyway() -> KeyBindings:
    """Esc-Enter (Alt-Enter) submits the entry whatever its braces: an unbalanced one then says its error."""
    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    def _(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    return bindings


class Repl:
    """Reads entries (SysML text or `%` lines), runs them in the Session, prints what they answer."""

    def __init__(self, session: Session | None = None, console: Console | None = None) -> None:
        self.session = session if session is not None else Session()
        self.console = console if console is not None else Console(highlight=False)
        if self.session.progress_sink is None:
            self.session.progress_sink = lambda: TerminalProgress(self.console)

    def process(self, text: str) -> bool:
        """Run one entry; False when it failed (the error is printed, the session unchanged).

        Whatever goes wrong, the REPL goes on: a typed error is printed as it reads, Ctrl-C undoes the
        entry, and anything else (a bug) is printed as an internal error."""
        try:
            run_cell(self.session, text, lambda result: self.console.print(render(result)))
        except SysmlError as error:
            self._error(error)
            return False
        except KeyboardInterrupt:  # outside the cell's reach (as it ended, say): what it did may stand
            self.console.print(Text("interrupted", style="bold yellow"))
            return False
        except Exception as error:
            self._error(InternalError(error))
            return False
        return True

    def _error(self, error: SysmlError) -> None:
        try:
            self.console.print(Text("\n".join(error_lines(error)), style="red"))
        except Exception:  # a console that cannot print it: the plain text, not a crash of the REPL
            print("\n".join(error_lines(error)))

    def prompt_session(self, input: Input | None = None, output: Output | None = None) -> PromptSession[str]:
        def braces_open() -> bool:
            return open_braces(get_app().current_buffer.text) > 0

        return PromptSession(
            "sysml> ", multiline=Condition(braces_open), prompt_continuation="  ...  ",
            history=history(), completer=SysmlCompleter(self.session), complete_while_typing=False,
            key_bindings=submit_anyway(), bottom_toolbar=lambda: hint(get_app().current_buffer.text),
            lexer=PygmentsLexer(SysmlLexer), input=input, output=output)

    def loop(self, prompt: PromptSession[str] | None = None) -> None:
        """Read and run entries until Ctrl-D; Ctrl-C drops the entry being typed."""
        prompt = prompt if prompt is not None else self.prompt_session()
        self.console.print(BANNER)
        while True:
            try:
                text = prompt.prompt()
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if text.strip():
                try:
                    self.process(text)
                except KeyboardInterrupt:  # a second Ctrl-C while the first one's message was printed
                    continue


def transcript(entries: Iterable[str], session: Session | None = None, width: int = 100) -> str:
    """What the REPL prints for `entries`, without a terminal (plain text, no colour)."""
    buffer = io.StringIO()
    repl = Repl(session, Console(file=buffer, width=width, color_system=None, highlight=False))
    for entry in entries:
        repl.process(entry)
    return buffer.getvalue()
