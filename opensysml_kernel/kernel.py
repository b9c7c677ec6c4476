"""The Jupyter kernel: an IPython kernel with the extension loaded, where a cell that is not Python is SysML."""

from __future__ import annotations

import ast
from collections.abc import Collection
from typing import Any

from ipykernel.ipkernel import IPythonKernel
from IPython.core.inputtransformer2 import TransformerManager
from IPython.core.interactiveshell import InteractiveShell

from opensysml_kernel import __version__
from opensysml_kernel.cells import command_word, is_command_line, open_braces
from opensysml_kernel.highlight import LEXER_NAME

_PYTHON = TransformerManager()


def is_sysml_cell(text: str, python_magics: Collection[str] = ()) -> bool:
    """A cell of `%` lines none of which is one of IPython's own magics, or any text that is not Python."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or lines[0].lstrip().startswith("%%"):
        return False
    if all(is_command_line(line) for line in lines):
        from opensysml_kernel.commands import COMMANDS

        words = [command_word(line) for line in lines]
        return all(word in COMMANDS or word not in python_magics for word in words)
    try:
        source = _PYTHON.transform_cell(text)
        compile(source, "<cell>", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except (SyntaxError, ValueError):
        return True
    return False


class _SysmlCells:
    """IPython cleanup transform: a SysML cell becomes the body of a `%%sysml` cell magic."""

    def __init__(self, shell: InteractiveShell, kernel: SysmlKernel) -> None:
        self.shell = shell
        self.kernel = kernel

    def magics(self) -> Collection[str]:
        return self.shell.magics_manager.magics["line"].keys()

    def __call__(self, lines: list[str]) -> list[str]:
        self.kernel.sysml  # noqa: B018 (the commands, the magics and `session` exist before any cell runs)
        if is_sysml_cell("".join(lines), self.magics()):
            return ["%%sysml\n", *lines]
        return lines


class SysmlKernel(IPythonKernel):
    """IPython, plus SysML cells, `%` commands, and completion of commands and qualified names."""

    implementation = "opensysml-kernel"
    implementation_version = __version__
    banner = f"opensysml-kernel {__version__}: SysML v2 actions, run and stepped (%help lists the commands)"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.language_info = {
            "name": "sysml",
            "version": "2.0",
            "mimetype": "text/x-sysml",
            "file_extension": ".sysml",
            "pygments_lexer": LEXER_NAME,
            # CodeMirror has no SysML mode; Scala's (C-like comments, strings and numbers, and the
            # words def, abstract, package, import, if, else, while, true, false, null in common)
            # colours a cell more rightly than plain text; few of its other words (val, object) are SysML names.
            "codemirror_mode": "text/x-scala",
        }
        assert self.shell is not None
        self._sysml: Any = None
        self._cells = _SysmlCells(self.shell, self)
        self.shell.input_transformers_cleanup.insert(0, self._cells)

    @property
    def sysml(self) -> Any:
        """The extension (its Session, commands and magics), made at the first cell or completion: the
        kernel answers kernel_info without paying for the parser and the engines first."""
        if self._sysml is None:
            from opensysml_kernel.magics import register

            assert self.shell is not None
            self._sysml = register(self.shell)
        return self._sysml

    def do_complete(self, code: str, cursor_pos: int | None) -> Any:
        """Commands and qualified names first; IPython's completion otherwise."""
        cursor = len(code) if cursor_pos is None else cursor_pos
        from opensysml_kernel.complete import complete

        found = complete(self.sysml, code, cursor)
        if found is None:
            return super().do_complete(code, cursor_pos)
        return {"matches": list(found.matches), "cursor_start": found.start, "cursor_end": cursor,
                "metadata": {}, "status": "ok"}

    def do_inspect(self, code: str, cursor_pos: int, detail_level: int = 0, omit_sections: Any = ()) -> Any:
        """A model element's declaration, or a % command's one-line help; IPython's inspection otherwise."""
        from opensysml_kernel.inspection import inspect_at  # when first asked: a faster start

        found = inspect_at(self.sysml, code, cursor_pos)
        if found is None:
            return super().do_inspect(code, cursor_pos, detail_level, omit_sections)
        return {"status": "ok", "found": True, "data": {"text/plain": found.text, "text/html": found.html},
                "metadata": {}}

    def do_is_complete(self, code: str) -> Any:
        """Incomplete while braces are open; a SysML cell is complete otherwise."""
        depth = open_braces(code)
        if depth > 0:
            return {"status": "incomplete", "indent": "    " * depth}
        status, indent = _PYTHON.check_complete(code)
        if status == "incomplete" and "{" not in code:
            return {"status": "incomplete", "indent": " " * (indent or 0)}
        if is_sysml_cell(code, self._cells.magics()):
            return {"status": "complete"}
        return {"status": status, **({"indent": " " * (indent or 0)} if status == "incomplete" else {})}


if __name__ == "__main__":
    from ipykernel.kernelapp import IPKernelApp

    from opensysml_kernel.kernel import SysmlKernel as Kernel

    IPKernelApp.launch_instance(kernel_class=Kernel)
