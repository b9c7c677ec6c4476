"""A cell or REPL entry cut into its parts: `%` command lines and the SysML text between them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CommandLine:
    """One `%` line of a cell, with its 1-based line number."""

    text: str
    line: int


@dataclass(frozen=True)
class Submission:
    """SysML text between commands; `text` is padded with newlines so positions match the cell."""

    text: str
    line: int


Chunk = CommandLine | Submission


def _scan(text: str) -> list[int]:
    """The brace depth at the start of every line of `text` (and at its end), outside strings and comments."""
    depths = [0]
    depth = 0
    i = 0
    n = len(text)
    in_block = False
    while i < n:
        c = text[i]
        if in_block:
            if text.startswith("*/", i):
                in_block = False
                i += 2
                continue
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif text.startswith("/*", i):
            in_block = True
            i += 2
            continue
        elif c in "\"'":
            end = i + 1
            while end < n and text[end] != c and text[end] != "\n":
                end += 2 if text[end] == "\\" else 1
            i = end + 1 if end < n and text[end] == c else end
            continue
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "\n":
            depths.append(depth)
        i += 1
    depths.append(depth)
    return depths


def open_braces(text: str) -> int:
    """How many `{` are still open at the end of `text` (strings and comments left out)."""
    return _scan(text)[-1]


def is_command_line(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("%") and not stripped.startswith("%%")


def split_cell(text: str) -> list[Chunk]:
    """The commands and submissions of a cell, in order; blank submissions are left out."""
    lines = text.split("\n")
    depths = _scan(text)
    chunks: list[Chunk] = []
    pending: list[str] = []
    start = 0

    def flush() -> None:
        if any(p.strip() for p in pending):
            chunks.append(Submission("\n" * start + "\n".join(pending), start + 1))

    for index, line in enumerate(lines):
        if depths[index] == 0 and is_command_line(line):
            flush()
            pending = []
            start = index + 1
            chunks.append(CommandLine(line.strip(), index + 1))
        else:
            if not pending:
                start = index
            pending.append(line)
    flush()
    return chunks


def command_word(line: str) -> str:
    """`step` for `%step 3`."""
    stripped = line.strip().lstrip("%")
    return stripped.split(None, 1)[0] if stripped else ""
