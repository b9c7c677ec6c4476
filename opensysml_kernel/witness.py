"""Witnesses as the faces use them: a witness file read and checked against the model, a witness
followed by the session (named for its refusals), witness files written under their folder, and the
steps of a witness tabulated (move taken, alternatives, values changed) for the notebook."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

from engines import witness as engine_witness
from engines.errors import RunError
from engines.runtime import Move, Program, Run
from engines.witness import Witness
from opensysml_kernel.errors import MissingFileError, ReplayRefusedError, WitnessWriteError

if TYPE_CHECKING:
    from opensysml_kernel.history import Stepped

ROWS_SHOWN = 500


@dataclass(frozen=True)
class WitnessPlan:
    """A witness the session follows, with the name its refusals give it (the file, or `witness k of <action>`)."""

    name: str
    witness: Witness

    @property
    def last_step(self) -> int:
        return self.witness.last_step

    @property
    def ending(self) -> str:
        return self.witness.ending

    def taken_at(self, step: int) -> str | None:
        return self.witness.taken_at(step)

    @classmethod
    def of(cls, witness: Witness, name: str) -> WitnessPlan:
        return cls(name, witness)


def parse_witness(text: str, name: str) -> WitnessPlan:
    """A witness text read with the engines' one parser, named for the refusals."""
    return WitnessPlan(name, engine_witness.parse_witness(text, name))


def read_plan(path: str) -> WitnessPlan:
    """The witness file at `path` (refused when it is missing, unreadable or not a witness)."""
    if not os.path.isfile(path):
        raise MissingFileError(path, "no witness file")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise MissingFileError(path, f"cannot read the witness file ({error.strerror}):") from None
    return WitnessPlan(path, engine_witness.read_witness(data, path))


# ---------------------------------------------------------------- witness files

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
STEM_BYTES = 96  # the name part of a witness file; the whole name stays far below 255 bytes


def file_stem(subject: str, tag: str = "") -> str:
    """The file name stem of `subject`'s witnesses: `race.Race`, or, when the name has characters a file
    name must not (separators, `..`, a leading dot, anything not a letter, digit, `_`, `.` or `-`) or is
    too long, its sanitized and capped form with a short hash of the name, so two names never share one."""
    name = subject.replace("::", ".") + (f"-{tag}" if tag else "")
    safe = re.sub(r"\.{2,}", ".", _UNSAFE.sub("_", name)).lstrip(".-")
    if safe == name and len(safe) <= STEM_BYTES:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{safe[:STEM_BYTES] or 'witness'}-{digest}"


def write_witnesses(directory: str, subject: str, witnesses: Sequence[Witness], tag: str = "") -> tuple[str, ...]:
    """Write each witness as `<directory>/<stem>-<n>.witness`, created exclusively with mode 0600 (then
    moved onto its name, replacing an older witness of that name, never following a link there); the
    paths; WitnessWriteError when the directory cannot hold them or a path would leave it."""
    stem = file_stem(subject, tag)
    paths = []
    try:
        os.makedirs(directory, exist_ok=True)
        root = os.path.realpath(directory)
        for index, witness in enumerate(witnesses, 1):
            path = os.path.join(directory, f"{stem}-{index}.witness")
            where = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
            if os.path.dirname(where) != root:
                raise WitnessWriteError(directory, f"{path} would be written outside {directory}")
            handle, temporary = tempfile.mkstemp(prefix=".witness-", suffix=".tmp", dir=root)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(witness.text())
                os.replace(temporary, where)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
            paths.append(path)
    except OSError as error:
        raise WitnessWriteError(directory, error.strerror or str(error)) from None
    return tuple(paths)


def next_move(run: Stepped, plan: WitnessPlan | None) -> Move | None:
    """The move a replay of `plan` makes next (see engines.witness.next_move, which reads only the
    behavior protocol of the run: its enabled moves, the moves taken, time let pass)."""
    behavior = cast(Run, run)
    if plan is None:
        return engine_witness.next_move(behavior, None)
    return engine_witness.next_move(behavior, plan.witness, plan.name)


@dataclass(frozen=True)
class StepRow:
    """One move of a replayed witness: its number, the move, the moves it was taken over, what it changed;
    at the step where the witness's claim shows (a property false, a deadlock, a failure), that ending
    and the whole state there."""

    step: int
    taken: str
    alternatives: tuple[str, ...]
    changed: tuple[tuple[str, str, str], ...]  # (feature, before, after)
    ending: str = ""  # `property: P`, `fails: ...`: the claim this step shows
    state: tuple[tuple[str, str], ...] = ()  # every feature's value after the step, where it ends

    def changes(self) -> str:
        return ", ".join(f"{feature}: {before} → {after}" for feature, before, after in self.changed)

    def state_text(self) -> str:
        return ", ".join(f"{feature} = {value}" for feature, value in self.state)


def diff(before: dict[str, str], after: dict[str, str]) -> tuple[tuple[str, str, str], ...]:
    keys = sorted(set(before) | set(after))
    return tuple((k, before.get(k, "<unset>"), after.get(k, "<unset>")) for k in keys
                 if before.get(k) != after.get(k))


def witness_steps(program: Program, subject: str, plan: WitnessPlan, performer: str | None = None) -> tuple[StepRow, ...]:
    """Replay `plan` on a fine run through its last recorded step, then, for a witness that claims how the
    run ends (values, completion), while one move only is enabled; every move with the values it changed
    (the run's outputs before and after it). A witness of a violation stops where the file does, at the
    step its claim shows, marked with the claim and the state there. Empty if it does not replay."""
    run = program.start_action(subject, performer, fine=True)
    run.ctx.trace.enabled = False
    rows: list[StepRow] = []
    ending = plan.ending
    try:
        while not run.finished and len(rows) < ROWS_SHOWN:
            enabled = run.enabled_moves()
            while not enabled and run.let_time_pass():
                enabled = run.enabled_moves()
            step = len(run.moves_taken) + 1
            if not enabled or (step > plan.last_step and (len(enabled) > 1 or ending)):
                break
            move = next_move(run, plan)
            assert move is not None
            before = run.outputs()
            failed = False
            try:
                run.apply(move)
            except RunError:
                failed = True
            alternatives = tuple(m.label for m in enabled if m != move)
            rows.append(StepRow(step, move.label, alternatives, diff(before, run.outputs())))
            if failed:
                break
    except ReplayRefusedError:
        return ()
    if ending and rows and rows[-1].step == plan.last_step:
        rows[-1] = replace(rows[-1], ending=ending, state=tuple(sorted(run.outputs().items())))
    return tuple(rows)
