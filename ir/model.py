"""The resolved model: every element by qualified name, with its owner, members, imports and types."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ir import syntax as s


@dataclass(frozen=True, eq=False)
class Element:
    """One named (or anonymous) element of the model; `members` keeps declaration order."""

    kind: str  # "package", "action def", "action", "part", "attribute", "state def", ...
    name: str
    qualified_name: str
    decl: s.Member | None
    owner: Element | None
    path: str = ""
    members: dict[str, Element] = field(default_factory=dict)
    imports: list[s.Import] = field(default_factory=list)
    library: bool = False
    # members by short name (`<x>`), the first in declaration order; filled once the namespace is built
    short_names: dict[str, Element] = field(default_factory=dict)

    @property
    def is_definition(self) -> bool:
        return self.kind.endswith(" def")

    @property
    def base_kind(self) -> str:
        """`action` for both `action def` and `action`."""
        return self.kind.removesuffix(" def")

    @property
    def type_names(self) -> tuple[str, ...]:
        """The names this element is typed by or specializes, as written."""
        if isinstance(self.decl, s.Usage):
            return self.decl.types
        if isinstance(self.decl, s.Definition):
            return self.decl.specializes
        return ()

    def __repr__(self) -> str:
        return f"<{self.kind} {self.qualified_name}>"


@dataclass(frozen=True)
class Declaration:
    """One line of `%list`: what kind of element, its qualified name, where it was written."""

    kind: str
    qualified_name: str
    path: str
    line: int


@dataclass(frozen=True, eq=False)
class Model:
    """Every document submitted, resolved into one namespace."""

    documents: tuple[s.Document, ...]
    root: Element
    by_name: dict[str, Element]

    def element(self, qualified_name: str) -> Element | None:
        return self.by_name.get(qualified_name)

    def walk(self, include_library: bool = False) -> Iterator[Element]:
        """Every element, depth first in declaration order."""
        stack = list(reversed(self.root.members.values()))
        while stack:
            el = stack.pop()
            if el.library and not include_library:
                continue
            yield el
            stack.extend(reversed(el.members.values()))

    def declarations(self) -> list[Declaration]:
        """The user's declarations in document order (anonymous and feature-level ones left out)."""
        out = []
        for el in self.walk():
            if el.name.startswith("$") or el.decl is None:
                continue
            line = el.decl.span.line
            out.append(Declaration(el.kind, el.qualified_name, el.path, line))
        return out

    def qualified_names(self) -> list[str]:
        return sorted(el.qualified_name for el in self.walk() if not el.name.startswith("$"))

    def behaviors(self, kind: str = "action") -> list[str]:
        """Qualified names of the actions (or state machines) a modeler can run."""
        return [el.qualified_name for el in self.walk()
                if el.base_kind == kind and not el.name.startswith("$")]
