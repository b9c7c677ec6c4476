"""What inspecting a name shows (Shift-Tab in a notebook): a model element's declaration (its kind,
type, features with their types and values, `file:line`) as text and HTML, or a `%` command's one-line
help."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from ir import syntax as s
from ir.model import Element, Model
from opensysml_kernel.commands import COMMANDS
from opensysml_kernel.results import Tone, container
from opensysml_kernel.session import Session

_TOKEN = re.compile(r"%?[\w:-]+")
SHOWN = 3  # declarations shown when a short name is several elements' name


@dataclass(frozen=True)
class Inspection:
    text: str
    html: str


def token_at(code: str, cursor: int) -> str:
    """The name (or `%command`) the cursor is in or just after."""
    for match in _TOKEN.finditer(code):
        if match.start() <= cursor <= match.end():
            return match.group(0)
    return ""


def inspect_at(session: Session, code: str, cursor: int) -> Inspection | None:
    """What to show for the name at the cursor, or None when it names nothing of this tool's."""
    token = token_at(code, cursor).strip(":-")
    found = elements(session.model, token) if token and not token.startswith("%") else []
    if not found:
        # on a command, or on an argument of one that names nothing in the model: the command's help
        line = code[:cursor].rsplit("\n", 1)[-1].lstrip()
        word = token if token.startswith("%") else line.split(" ", 1)[0] if line.startswith("%") else ""
        command = COMMANDS.get(word[1:]) if word else None
        if command is None:
            return None
        text = f"{command.usage}: {command.help}"
        return Inspection(text, container(Tone.INFO, f"<code>{html.escape(command.usage)}</code>: {html.escape(command.help)}"))
    shown = [declaration(session.model, el) for el in found[:SHOWN]]
    more = len(found) - SHOWN
    text = "\n\n".join(lines for lines, _ in shown) + (f"\n\n({more} more named {token})" if more > 0 else "")
    page = "".join(page for _, page in shown) + (f"<p>({more} more named {html.escape(token)})</p>" if more > 0 else "")
    return Inspection(text, container(Tone.INFO, f"<div class='opensysml-inspect'>{page}</div>"))


def elements(model: Model, name: str) -> list[Element]:
    """The element of that qualified name, or those whose qualified name ends with it, in declaration order."""
    exact = model.element(name)
    if exact is not None and not exact.library:
        return [exact]
    return [el for el in model.walk() if not el.name.startswith("$") and el.decl is not None
            and (el.qualified_name.endswith("::" + name) or el.qualified_name == name)]


def _source(model: Model, path: str, expr: s.Expr) -> str:
    """An expression as it was written, from its document's text."""
    document = next((d for d in model.documents if d.path == path), None)
    if document is None or not expr.span.line:
        return "…"
    lines = document.source.splitlines()
    span = expr.span
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1:span.end_column]
    picked = [lines[span.line - 1][span.column - 1:], *lines[span.line:span.end_line - 1],
              lines[span.end_line - 1][:span.end_column]]
    return " ".join(part.strip() for part in picked)


def features(model: Model, el: Element) -> list[tuple[str, str, str, str]]:
    """Each feature the element declares: (name, kind with its direction, type, value as written)."""
    rows = []
    for member in el.members.values():
        decl = member.decl
        if not isinstance(decl, s.Usage) or member.name.startswith("$"):
            continue
        kind = f"{decl.direction} {decl.kind}" if decl.direction else decl.kind
        value = ""
        if decl.value is not None:
            said = decl.value_kind.value if decl.value_kind is not None else "="
            value = f"{said} {_source(model, member.path, decl.value)}"
        rows.append((member.name, kind, ", ".join(decl.types), value))
    return rows


def declaration(model: Model, el: Element) -> tuple[str, str]:
    """The element's declaration as text and HTML."""
    typed = f" : {', '.join(el.type_names)}" if el.type_names and not el.is_definition else ""
    specializes = f" :> {', '.join(el.type_names)}" if el.type_names and el.is_definition else ""
    where = f"{el.path}:{el.decl.span.line}" if el.decl is not None else el.path
    value = ""
    if isinstance(el.decl, s.Usage) and el.decl.value is not None:
        said = el.decl.value_kind.value if el.decl.value_kind is not None else "="
        value = f" {said} {_source(model, el.path, el.decl.value)}"
    head = f"{el.kind} {el.qualified_name}{typed}{specializes}{value}"
    rows = features(model, el)
    lines = [head, f"  declared at {where}"]
    if rows:
        lines.append("  features:")
        lines.extend("    " + " ".join(part for part in (f"{kind} {name}", f": {typed}" if typed else "", value)
                                      if part) for name, kind, typed, value in rows)
    page = [f"<div><b>{html.escape(el.kind)}</b> <code>{html.escape(el.qualified_name)}</code>"
            f"{html.escape(typed + specializes + value)} <span style='opacity:0.7'>({html.escape(where)})</span></div>"]
    if rows:
        cells = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" if i == 1 or not c
                                         else f"<td><code>{html.escape(c)}</code></td>" for i, c in enumerate(row))
                        + "</tr>" for row in rows)
        page.append("<table><thead><tr><th>feature</th><th>kind</th><th>type</th><th>value</th></tr></thead>"
                    f"<tbody>{cells}</tbody></table>")
    return "\n".join(lines), "".join(page)
