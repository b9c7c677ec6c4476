"""The workspace: the submitted documents as one model, submission all or nothing, the names the
model offers (actions, the parts performing them, node names), and the all-or-nothing scope a cell,
a command or a step of the session runs in."""

from __future__ import annotations

import dataclasses
import glob
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import ir
from engines.errors import UnknownBehaviorError
from engines.runtime import Program
from engines.runtime.objects import action_on, part_usages, performed_actions
from engines.runtime.states.layout import shape_of
from ir.lower.states import check_machines
from ir.model import Declaration, Element
from ir.notation import nonstandard, unchained, unresolved_units
from ir.source import read_source
from ir.syntax import Document
from opensysml_kernel.errors import MissingFileError, UnknownActionError

State = TypeVar("State")


class AllOrNothing(Generic[State]):
    """A scope that either completes or leaves what it guards as it found it, whatever is raised.

    The outermost scope takes the state (`begin`); an exception other than the `kept` kinds (an
    outcome, like a run that failed at runtime, which the session keeps to inspect) puts it back
    (`undo`), interrupts and the end of a cell's reading included; otherwise it is kept (`keep`).
    Scopes opened inside it (a command inside a cell) are part of it."""

    def __init__(self, begin: Callable[[], State], undo: Callable[[State], None], keep: Callable[[State], None],
                 kept: tuple[type[BaseException], ...] = ()) -> None:
        self._begin, self._undo, self._keep, self._kept = begin, undo, keep, kept
        self._depth = 0

    @contextmanager
    def __call__(self) -> Iterator[None]:
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        state = self._begin()
        self._depth = 1
        try:
            yield
        except BaseException as error:
            self._depth = 0
            if isinstance(error, self._kept):
                self._keep(state)
            else:
                self._undo(state)
            raise
        self._depth = 0
        self._keep(state)


def _node_ids(document: Document) -> frozenset[int]:
    """The identity of every syntax node of a document, to tell which document a model element came from."""
    seen: set[int] = set()
    stack: list[Any] = list(document.members)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))
        elif isinstance(node, (tuple, list)):
            stack.extend(node)
    return frozenset(seen)


@dataclass(frozen=True)
class Submitted:
    """What one submission said (`declared ...`, notes) and the names it redeclared."""

    lines: tuple[str, ...]
    redeclared: tuple[str, ...]


@dataclass(frozen=True)
class WorkspaceState:
    """The workspace's fields at one moment (all immutable, or never changed once built)."""

    documents: tuple[Document, ...]
    model: ir.Model
    program: Program | None
    ids: tuple[tuple[int, frozenset[int]], ...]


class Workspace:
    """The documents submitted so far and the model resolved from them; a submission that fails changes nothing."""

    def __init__(self) -> None:
        self.documents: tuple[Document, ...] = ()
        self.model: ir.Model = ir.resolve([])
        self._program: Program | None = None
        self._cells = 0
        self._ids: dict[int, frozenset[int]] = {}

    # ------------------------------------------------------------ undo

    def state(self) -> WorkspaceState:
        return WorkspaceState(self.documents, self.model, self._program, tuple(self._ids.items()))

    def restore(self, state: WorkspaceState) -> None:
        self.documents, self.model, self._program = state.documents, state.model, state.program
        self._ids = dict(state.ids)

    # ------------------------------------------------------------ submission

    def next_path(self) -> str:
        """`<cell n>`: cells are numbered as they are entered, failing ones included (as IPython counts)."""
        self._cells += 1
        return f"<cell {self._cells}>"

    def _declared_by(self, model: ir.Model, document: Document) -> list[Element]:
        ids = self._ids.get(id(document))
        if ids is None:
            ids = self._ids[id(document)] = _node_ids(document)
        return [el for el in model.walk() if el.kind != "package" and el.decl is not None
                and id(el.decl) in ids and not el.name.startswith("$")]

    def _merge(self, new: Sequence[Document]) -> tuple[tuple[Document, ...], ir.Model, list[str]]:
        """The documents and model after submitting `new`, and the names `new` redeclared; raises, changes nothing."""
        before = {id(doc): {el.qualified_name for el in self._declared_by(self.model, doc)}
                  for doc in self.documents}
        documents = (*self.documents, *new)
        model = ir.resolve(documents)
        redeclared: set[str] = set()
        for element in (el for doc in new for el in self._declared_by(model, doc)):
            if any(element.qualified_name in names for names in before.values()):
                redeclared.add(element.qualified_name)
        # An older document all of whose declarations were redeclared is replaced whole.
        stale = [doc for doc in self.documents if before[id(doc)] and not self._declared_by(model, doc)]
        if stale:
            gone = {id(doc) for doc in stale}
            kept = tuple(doc for doc in documents if id(doc) not in gone)
            # When something still leans on the old text, keep it: the later declarations win anyway.
            with suppress(ir.SysmlError):
                model, documents = ir.resolve(kept), kept
        return documents, model, sorted(redeclared)

    def submit(self, text: str, path: str | None = None) -> Submitted:
        """Parse and resolve `text` into the model; on any error raise and change nothing."""
        path = path if path is not None else self.next_path()
        return self._submit([ir.parse(text, path)], [])

    def submit_many(self, texts: Sequence[tuple[str, str]], heads: Sequence[str] = ()) -> Submitted:
        """Submit several texts (text, path) as one atomic change."""
        return self._submit([ir.parse(text, path) for text, path in texts], heads)

    def _submit(self, documents: list[Document], heads: Sequence[str]) -> Submitted:
        merged, model, redeclared = self._merge(documents)
        lines = list(heads)
        declared = [el for doc in documents for el in self._declared_by(model, doc)
                    if el.owner is None or el.owner.kind in ("package", "root")]
        if declared:
            lines.append("declared " + ", ".join(f"{el.kind} {el.qualified_name}" for el in declared))
        elif not heads:
            lines.append("declared nothing new")
        # A machine no run could start (no initial transition, a path to no state) is refused now.
        check_machines(model, declared)
        shown = {el.qualified_name for el in declared}
        lines.extend(f"note: {name} redeclared" for name in redeclared if name in shown)
        lines.extend(f"note: {said}" for doc in documents for said in nonstandard(doc))
        lines.extend(f"note: {said}" for doc in documents for said in unchained(doc))
        lines.extend(f"note: {said}" for doc in documents for said in unresolved_units(model, doc))
        # Commit: nothing above changed the workspace.
        self.documents, self.model, self._program = merged, model, None
        self._ids = {id(doc): self._ids[id(doc)] for doc in merged if id(doc) in self._ids}
        return Submitted(tuple(lines), tuple(redeclared))

    def load(self, patterns: Sequence[str]) -> Submitted:
        """Submit the files the patterns name (globs expanded, sorted), all or nothing."""
        paths: list[str] = []
        for pattern in patterns:
            matches = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
            if not matches:
                raise MissingFileError(pattern)
            for match in matches:
                if os.path.isdir(match):
                    raise MissingFileError(match, "not a file:")
                if not os.path.isfile(match):
                    raise MissingFileError(match, "no such file")
                if match not in paths:
                    paths.append(match)
        texts = []
        for file in paths:
            try:
                texts.append((read_source(file), file))
            except OSError as error:
                raise MissingFileError(file, f"cannot read ({error.strerror or error})") from None
        return self.submit_many(texts, [f"loaded {file}" for file in paths])

    def clear(self) -> None:
        """Drop every declaration."""
        self.documents, self.model, self._program = (), ir.resolve([]), None
        self._ids = {}

    # ------------------------------------------------------------ the model's names

    def declarations(self) -> list[Declaration]:
        return self.model.declarations()

    def program(self) -> Program:
        if self._program is None:
            self._program = Program(self.model)
        return self._program

    def action_name(self, name: str, performer: str | None = None) -> str:
        """The qualified name of a runnable action, given qualified or (when unique) by its last part;
        with a performer, first among the actions that part performs (`%action prime on pump`)."""
        actions = self.model.behaviors("action")
        if name in actions:
            return name
        if performer is not None:
            performed = action_on(self.model, name, performer)
            if performed is not None:
                return performed.qualified_name
        name = name.removeprefix("::")
        hits = [qn for qn in actions if qn.endswith("::" + name) or qn == name]
        if len(hits) == 1:
            return hits[0]
        raise UnknownActionError(name, actions, hits if len(hits) > 1 else ())

    def parts_performing(self, action: str) -> list[str]:
        """The part usages that perform the named action (for completion), or every one if it is unknown."""
        parts = part_usages(self.model)
        try:
            subject = self.program().action(action)
        except ir.SysmlError:
            return parts
        out = []
        for name in parts:
            part = self.model.element(name)
            if part is not None and any(a is subject for a in performed_actions(self.model, part)):
                out.append(name)
        return out

    def part_name(self, name: str) -> str:
        """The qualified name of a part (definition or usage), given qualified or (when unique) by its
        last part, for `%instantiate`."""
        parts = self.model.behaviors("part")
        if name in parts:
            return name
        hits = [q for q in parts if q.endswith("::" + name.removeprefix("::"))]
        if len(hits) == 1:
            return hits[0]
        raise UnknownBehaviorError(name, "part", hits or parts)

    def state_names(self) -> list[str]:
        """`state S` for every state of every machine, `transition A->B` and `transition <name>` for
        every transition (for breakpoints)."""
        names: set[str] = set()
        with suppress(ir.SysmlError):
            program = self.program()
            for qualified in self.model.behaviors("state"):
                with suppress(ir.SysmlError, KeyError, ValueError):
                    el = self.model.element(qualified)
                    assert el is not None
                    shape = shape_of(program.model, el)
                    names.update(f"state {v.name}" for v in shape.vertices if v.is_state)
                    names.update(f"transition {t.label()}" for t in shape.transitions)
                    names.update(f"transition {t.name}" for t in shape.transitions if t.name)
        return sorted(names)

    def node_names(self) -> list[str]:
        """The node names of every action graph of the model (for breakpoints and completion)."""
        names: set[str] = set()
        with suppress(ir.SysmlError):
            program = self.program()
            for qualified in self.model.behaviors("action"):
                with suppress(ir.SysmlError, KeyError, ValueError):
                    names.update(node.name for node in program.graph(program.action(qualified)).nodes)
        return sorted(names)
