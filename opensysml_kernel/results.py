"""Result objects: what every command returns, as text/plain always and text/html for notebooks."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from opensysml_kernel.style import STYLE, folded, mono, tone_of


class Tone(Enum):
    """How a result reads at a glance; the notebook colours the head line by it."""

    INFO = "info"
    STARTED = "started"
    PAUSED = "paused"
    COMPLETED = "completed"
    FAILED = "failed"


MARKS = {"▶": "#1f6feb", "⏸": "#9a6700", "✓": "#1a7f37", "✗": "#cf222e", "?": "#9a6700"}  # the terminal's and figures'


def container(tone: Tone, body: str) -> str:
    """A result's HTML: the stylesheet, then the body in a div its tone names."""
    return f"<div class='opensysml-result opensysml-{tone.value}'>{STYLE}{body}</div>"


@dataclass(frozen=True)
class Table:
    """Rows under a header; plain text pads the columns, HTML makes a table."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    links: tuple[tuple[str, ...], ...] = ()  # per row, per cell: where the cell links to in HTML ("" none)
    mono: tuple[int, ...] = ()  # the columns that hold values or names, shown in the code font

    def lines(self) -> list[str]:
        widths = [max(len(row[i]) for row in (self.header, *self.rows)) for i in range(len(self.header))]
        out = []
        for row in (self.header, *self.rows):
            out.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        return out

    def html(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.header)
        rows = ["<tr>" + "".join(f"<td>{self._cell(r, i)}</td>" for i in range(len(row))) + "</tr>"
                for r, row in enumerate(self.rows)]
        return folded(head, rows)

    def _cell(self, row: int, column: int) -> str:
        text = self.rows[row][column]
        shown = mono(text) if column in self.mono else html.escape(text)
        href = self.links[row][column] if row < len(self.links) else ""
        return f"<a href='{html.escape(href)}'>{shown}</a>" if href else shown


@dataclass(frozen=True)
class Result:
    """The answer to one command or submission: `lines` (then `table`, if any) is the text form."""

    lines: tuple[str, ...] = ()
    tone: Tone = Tone.INFO
    table: Table | None = None
    data: dict[str, Any] = field(default_factory=dict, compare=False)
    figure: str = field(default="", kw_only=True)  # HTML shown after the lines and table in a notebook (a machine's configuration)
    markdown: str = field(default="", kw_only=True)  # shown instead of the HTML where a notebook renders it (a diagram)

    @classmethod
    def of(cls, lines: Sequence[str], tone: Tone = Tone.INFO, table: Table | None = None, figure: str = "",
           **data: Any) -> Result:
        return cls(tuple(lines), tone, table, dict(data), figure=figure)

    @property
    def text(self) -> str:
        lines = list(self.lines)
        if self.table is not None:
            lines.extend(self.table.lines())
        return "\n".join(lines)

    def html(self) -> str:
        """The lines in a <pre>, a verdict line (one starting with a mark) bold in its colour."""
        rendered = []
        for line in self.lines:
            tone = tone_of(line)
            text = html.escape(line)
            rendered.append(f"<b class='opensysml-{tone}'>{text}</b>" if tone else text)
        parts = ["<pre>" + "\n".join(rendered) + "</pre>"] if rendered else []
        if self.table is not None:
            parts.append(self.table.html())
        if self.figure:
            parts.append(self.figure)
        return container(self.tone, "".join(parts))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        if self.markdown:  # no HTML beside it: JupyterLab would rank the HTML first and draw no diagram
            return {"text/plain": self.text, "text/markdown": self.markdown}
        return {"text/plain": self.text, "text/html": self.html()}

    def __str__(self) -> str:
        return self.text
