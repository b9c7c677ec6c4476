"""Session: the submitted model as one namespace, the settings, and at most one stepping run."""

from __future__ import annotations

import dataclasses
import glob
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

import ir
from engines.errors import RunError
from engines.runtime import Program, Run, parse_schedule
from ir.model import Declaration, Element
from ir.syntax import Document
from opensysml_kernel.errors import MissingFileError, NoRunError, RunFailedError, UnknownActionError
from opensysml_kernel.results import Result

DEFAULT_SCHEDULE = "reverse"
_STEP_LINE = re.compile(r"step \d+:")


@dataclass(frozen=True)
class Token:
    """Where one token stands: `token 2@a`, and what it waits for, if anything."""

    id: int
    node: str
    path: str
    waiting: str | None

    def __str__(self) -> str:
        text = f"token {self.id}@{self.node}"
        return f"{text} (waiting: {self.waiting})" if self.waiting else text


@dataclass(frozen=True)
class Progress:
    """What one `%action`, `%step` or `%continue` did to the run, and where the run now stands."""

    subject: str
    lines: tuple[str, ...]
    status: str
    step: int
    outputs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class SessionState:
    """A session's own fields at one moment, for undoing a failing cell."""

    documents: tuple[Document, ...]
    model: ir.Model
    schedule: str
    trace: bool
    run: Run | None
    subject: str | None
    program: Program | None
    ids: tuple[tuple[int, frozenset[int]], ...]


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


class Session:
    """One modeler's session: `submit` SysML text, run `command` lines; every failure leaves it unchanged."""

    def __init__(self) -> None:
        self.documents: tuple[Document, ...] = ()
        self.model: ir.Model = ir.resolve([])
        self.schedule: str = DEFAULT_SCHEDULE
        self.trace: bool = False
        self.run: Run | None = None
        self.subject: str | None = None
        self._program: Program | None = None
        self._cells = 0
        self._ids: dict[int, frozenset[int]] = {}

    # ------------------------------------------------------------ model

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

    def _next_path(self) -> str:
        self._cells += 1
        return f"<cell {self._cells}>"

    def submit(self, text: str, path: str | None = None) -> Result:
        """Parse and resolve `text` into the model; on any error raise and change nothing."""
        path = path if path is not None else self._next_path()
        return self._submit([ir.parse(text, path)], [])

    def submit_many(self, texts: Sequence[tuple[str, str]], heads: Sequence[str] = ()) -> Result:
        """Submit several texts (text, path) as one atomic change."""
        return self._submit([ir.parse(text, path) for text, path in texts], heads)

    def _submit(self, documents: list[Document], heads: Sequence[str]) -> Result:
        merged, model, redeclared = self._merge(documents)
        lines = list(heads)
        declared = [el for doc in documents for el in self._declared_by(model, doc)
                    if el.owner is None or el.owner.kind in ("package", "root")]
        if declared:
            lines.append("declared " + ", ".join(f"{el.kind} {el.qualified_name}" for el in declared))
        elif not heads:
            lines.append("declared nothing new")
        shown = {el.qualified_name for el in declared}
        lines.extend(f"note: {name} redeclared" for name in redeclared if name in shown)
        # Commit: nothing above changed the session.
        self.documents, self.model, self._program = merged, model, None
        self._ids = {id(doc): self._ids[id(doc)] for doc in merged if id(doc) in self._ids}
        if redeclared and self.run is not None:
            lines.append(f"note: the run of {self.subject} was dropped because its model changed;"
                         f" %action {self.subject} starts it again")
            self.run, self.subject = None, None
        return Result.of(lines)

    def load(self, patterns: Sequence[str]) -> Result:
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
            with open(file, encoding="utf-8") as handle:
                texts.append((handle.read(), file))
        return self.submit_many(texts, [f"loaded {file}" for file in paths])

    def declarations(self) -> list[Declaration]:
        return self.model.declarations()

    def clear(self) -> None:
        """Drop every declaration and the run; the settings stay."""
        self.documents, self.model, self._program = (), ir.resolve([]), None
        self.run, self.subject = None, None
        self._ids = {}

    def set_schedule(self, text: str) -> str:
        self.schedule = parse_schedule(text)
        return self.schedule

    # ------------------------------------------------------------ runs

    def action_name(self, name: str) -> str:
        """The qualified name of a runnable action, given qualified or (when unique) by its last part."""
        actions = self.model.behaviors("action")
        if name in actions:
            return name
        name = name.removeprefix("::")
        hits = [qn for qn in actions if qn.endswith("::" + name) or qn == name]
        if len(hits) == 1:
            return hits[0]
        raise UnknownActionError(name, actions, hits if len(hits) > 1 else ())

    def program(self) -> Program:
        if self._program is None:
            self._program = Program(self.model)
        return self._program

    def start_action(self, name: str, performer: str | None = None) -> Progress:
        subject = self.action_name(name)
        run = self.program().start_action(subject, performer=performer, schedule=self.schedule)
        self.run, self.subject = run, subject
        return self._progress(run, list(run.trace))

    def _require_run(self) -> Run:
        if self.run is None:
            raise NoRunError("no run to step: start one with %action <name>")
        if self.run.finished:
            raise NoRunError(f"the run of {self.subject} has {self.run.status}:"
                             f" start another with %action {self.subject}")
        return self.run

    def step(self, count: int = 1) -> Progress:
        """`count` steps of the run, fewer if it completes first."""
        run = self._require_run()
        start = len(run.trace)
        with self._failing(run, start):
            for _ in range(count):
                run.step()
                if run.finished:
                    break
        return self._progress(run, run.trace[start:])

    def continue_run(self) -> Progress:
        """Run to completion (or to a runtime error)."""
        run = self._require_run()
        start = len(run.trace)
        with self._failing(run, start):
            run.run_to_end()
        return self._progress(run, run.trace[start:])

    @contextmanager
    def _failing(self, run: Run, start: int) -> Iterator[None]:
        """Turn the engine's runtime failure into a RunFailedError with the trace lines of the failing command."""
        try:
            yield
        except RunError as error:
            lines = self.filter_trace(run.trace[start:])
            raise RunFailedError(self.subject or "", run.step_number, error, lines) from error

    def filter_trace(self, lines: Sequence[str]) -> list[str]:
        """All of `lines` with trace on; only the `step N:` lines with it off."""
        return list(lines) if self.trace else [line for line in lines if _STEP_LINE.match(line)]

    def _progress(self, run: Run, lines: Sequence[str]) -> Progress:
        outputs = tuple(sorted(run.outputs().items())) if run.status == "completed" else ()
        return Progress(self.subject or "", tuple(lines), run.status, run.step_number, outputs)

    def tokens(self) -> list[Token]:
        if self.run is None:
            raise NoRunError("no run: start one with %action <name>")
        return [Token(t.id, t.node, t.path, t.waiting) for t in self.run.tokens()]

    def full_trace(self) -> list[str]:
        """Every trace line of the current run so far."""
        return list(self.run.trace) if self.run is not None else []

    def outputs(self) -> dict[str, str]:
        """The feature values of the current run (or its last state), by path."""
        return dict(sorted(self.run.outputs().items())) if self.run is not None else {}

    def snapshot(self) -> SessionState:
        return SessionState(self.documents, self.model, self.schedule, self.trace, self.run, self.subject,
                            self._program, tuple(self._ids.items()))

    def restore(self, state: SessionState) -> None:
        """Put back what `snapshot` saw (a run's own steps in between are not undone)."""
        self.documents, self.model, self.schedule, self.trace = state.documents, state.model, state.schedule, state.trace
        self.run, self.subject, self._program, self._ids = state.run, state.subject, state.program, dict(state.ids)

    # ------------------------------------------------------------ commands

    def command(self, line: str) -> Result:
        """Carry out one `%` command line."""
        from opensysml_kernel.commands import execute

        return execute(self, line)

    def cell(self, text: str, path: str | None = None) -> Iterator[Result]:
        """The results of a cell's commands and submissions in order; stops at (raises) the first failure."""
        from opensysml_kernel.commands import execute_cell

        return execute_cell(self, text, path if path is not None else self._next_path())

