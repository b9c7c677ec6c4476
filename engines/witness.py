"""The one witness format: a schedule written as text (`Witness.text`), read back (`parse_witness`),
followed move by move through the interpreter (the replay policy: `next_move`, `replay_run`), and its
claim re-evaluated where the replay ends (`unreproduced`).

    opensysml witness 1
    behavior: tank::Fill
    model: sha256:3f2a9c0e51d4b7a8
    engine: check
    claim: property tank::NeverNegative = false
    step 1: 1@start first of 1@start
    step 2: 3@valve first of 2@pump, 3@valve

    <the trace of the run>
    property: tank::NeverNegative
    end of witness

The header names what the witness is of (the behavior, `on: <part>` when a part performs it, the
model's content hash, the engine that found it) and what it claims; `input x = v` lines give free
inputs. Choice lines follow (steps increase; a step with no line had one move enabled, or takes the
first), a blank line, the trace, the ending the claim implies, and the end line, without which the
witness is truncated.
"""

from __future__ import annotations

import hashlib
import json
import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING

from engines.errors import MoveNotEnabled, RunError, WitnessFormatError, WitnessInputError, WitnessMismatch
from engines.runtime import Program, Run
from engines.runtime.behavior import Behavior, Move
from engines.runtime.values import EnumValue, Value
from ir.errors import SysmlError

if TYPE_CHECKING:
    import ir
    from engines.check.properties import Property

MAGIC = "opensysml witness 1"
END = "end of witness"
REGENERATE = ("regenerate it: `opensysml-kernel check FILES --action NAME --witness-dir DIR` (or %check-witness DIR"
              " and %action NAME in a notebook) and replay the new file")
_CHOICE = re.compile(r"^step (\d+): (.+?) first of (.+)$")
_INPUT = re.compile(r"^input (\S+) = (.*)$")
_HASH = re.compile(r"^sha256:[0-9a-f]{16}$")
_KEYS = ("behavior", "on", "model", "engine", "horizon")
_HORIZON = re.compile(r"\d+(\.\d+)?(/\d+)?$")
ENDINGS = ("property: ", "fails: ")


_HASHES: weakref.WeakKeyDictionary[ir.Model, str] = weakref.WeakKeyDictionary()


def model_hash(model: ir.Model) -> str:
    """The content hash of the submitted documents, in submission order: their text with line ends,
    trailing spaces and blank lines left out, so one file or the same text over several cells agree.
    A model is immutable, so its hash is taken once (a check writes it into every witness)."""
    known = _HASHES.get(model)
    if known is None:
        known = _HASHES[model] = _hash_text(model)
    return known


def _hash_text(model: ir.Model) -> str:
    digest = hashlib.sha256()
    for document in model.documents:
        for line in document.source.splitlines():
            line = line.rstrip()
            if line:
                digest.update(line.encode("utf-8", "surrogatepass") + b"\n")
    return "sha256:" + digest.hexdigest()[:16]


class ClaimKind(Enum):
    PROPERTY = "property"  # the property has this value at the end of the witness
    DEADLOCK = "deadlock"  # at the end of the witness no move is enabled: these tokens wait
    FAILS = "fails"  # the witness's last move fails with this error
    VALUE = "value"  # the run ends with the feature at this value
    COMPLETES = "completes"  # the run ends, completed


def _name(subject: str) -> str:
    """A claim's property or feature as written: a JSON string when the name itself could be misread
    (a quoted SysML name may hold ` = `, or start or end with a space)."""
    if f"{subject} = ".find(" = ") != len(subject) or subject != subject.strip() or subject.startswith('"'):
        return json.dumps(subject, ensure_ascii=False)
    return subject


@dataclass(frozen=True)
class Claim:
    """What a witness shows: `subject` is the property, the feature, the error or the waiting tokens."""

    kind: ClaimKind
    subject: str = ""
    value: str = ""

    def line(self) -> str:
        if self.kind in (ClaimKind.PROPERTY, ClaimKind.VALUE):
            return f"{self.kind.value} {_name(self.subject)} = {self.value}"
        if self.kind is ClaimKind.COMPLETES:
            return self.kind.value
        return f"{self.kind.value} {self.subject}"

    @property
    def ending(self) -> str:
        """The last trace line the claim gives its witness: `property: P`, `fails: E`, or none."""
        if self.kind is ClaimKind.PROPERTY:
            return f"property: {self.subject}"
        if self.kind is ClaimKind.DEADLOCK:
            return f"fails: deadlock: {self.subject}"
        if self.kind is ClaimKind.FAILS:
            return f"fails: {self.subject}"
        return ""

    @classmethod
    def read(cls, text: str) -> Claim | None:
        """The claim a `claim:` line's text states, or None when it states none."""
        word, _, rest = text.partition(" ")
        kind = next((k for k in ClaimKind if k.value == word), None)
        if kind is ClaimKind.COMPLETES:
            return cls(kind) if not rest else None
        if kind in (ClaimKind.PROPERTY, ClaimKind.VALUE):
            if rest.startswith('"'):
                try:
                    subject, end = json.JSONDecoder().raw_decode(rest)
                except ValueError:
                    return None
                if not isinstance(subject, str) or not subject or not rest.startswith(" = ", end):
                    return None
                value = rest[end + 3:]
            else:
                subject, equals, value = rest.partition(" = ")
                if not equals or not subject.strip() or subject != subject.strip():
                    return None
            if kind is ClaimKind.PROPERTY and value not in ("true", "false"):
                return None
            return cls(kind, subject, value)
        if kind is not None and rest.strip():
            return cls(kind, rest)
        return None


@dataclass(frozen=True)
class Choice:
    """One choice a schedule made: at move `step`, the move taken among the enabled ones."""

    step: int
    taken: str
    enabled: tuple[str, ...]

    def line(self) -> str:
        return f"step {self.step}: {self.taken} first of {', '.join(self.enabled)}"


@dataclass(frozen=True)
class Witness:
    """A schedule as a modeler replays it: what it is of, what it claims, its choices and trace."""

    behavior: str
    model: str  # model_hash of the model it was found in
    engine: str
    claims: tuple[Claim, ...]
    choices: tuple[Choice, ...]
    trace: tuple[str, ...]
    performer: str | None = None  # the part usage performing the behavior, if one does
    inputs: tuple[tuple[str, str], ...] = ()  # free inputs the schedule was run with (name, value)
    horizon: str | None = None  # the instant (seconds) time stopped at for the machine (`--advance T`)

    @property
    def ending(self) -> str:
        """`property: <name>`, `fails: <error>`, or "" for an outcome: the trace's last line."""
        endings = [c.ending for c in self.claims if c.ending]
        failing = [c.ending for c in self.claims if c.kind in (ClaimKind.DEADLOCK, ClaimKind.FAILS)]
        return (failing or endings or [""])[0]

    def text(self) -> str:
        lines = [MAGIC, f"behavior: {self.behavior}"]
        if self.performer is not None:
            lines.append(f"on: {self.performer}")
        lines.extend([f"model: {self.model}", f"engine: {self.engine}"])
        if self.horizon is not None:
            lines.append(f"horizon: {self.horizon}")
        lines.extend(f"claim: {claim.line()}" for claim in self.claims)
        lines.extend(f"input {name} = {value}" for name, value in self.inputs)
        lines.extend(c.line() for c in self.choices)
        lines.append("")
        lines.extend(self.trace)
        if self.ending:
            lines.append(self.ending)
        lines.append(END)
        return "\n".join(lines) + "\n"

    @property
    def last_step(self) -> int:
        return self.choices[-1].step if self.choices else 0

    def taken_at(self, step: int) -> str | None:
        for choice in self.choices:
            if choice.step == step:
                return choice.taken
        return None

    def describe(self) -> str:
        """`witness of tank::Fill (check): property tank::NeverNegative = false`."""
        on = f" on {self.performer}" if self.performer else ""
        return f"witness of {self.behavior}{on} ({self.engine}): " + "; ".join(c.line() for c in self.claims)


# ---------------------------------------------------------------- reading


def read_witness(data: bytes, name: str) -> Witness:
    """A witness file's bytes read (UTF-8, a bad byte refused by its offset) and parsed."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as bad:
        raise WitnessFormatError(name, 0, f"not UTF-8 text: byte {bad.start} is {data[bad.start]:#04x}") from None
    return parse_witness(text, name)


def parse_witness(text: str, name: str = "witness") -> Witness:
    """The witness `text` says (`name` is how refusals call it: the file, or `witness k of <action>`);
    raises WitnessFormatError saying what is wrong and where."""
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise WitnessFormatError(name, 0, "the witness is empty: there is nothing to replay")
    first = lines[0]
    if first != MAGIC:
        if first.startswith("opensysml witness "):
            raise WitnessFormatError(name, 1, f"witness format '{first}': this tool reads '{MAGIC}'")
        if _CHOICE.match(first.strip()) or _INPUT.match(first) or not first.strip():
            raise WitnessFormatError(name, 1, "a witness without a header, written before witnesses named their"
                                     " model, behavior and claim: it cannot be checked against this model; "
                                     + REGENERATE)
        raise WitnessFormatError(name, 1, f"not a witness: it begins {first[:60]!r}, not '{MAGIC}'")
    if lines[-1] != END:
        raise WitnessFormatError(name, len(lines), f"truncated: the witness stops at line {len(lines)}"
                                 f" without its last line '{END}'")
    return _body(lines[1:-1], name)


def _body(lines: list[str], name: str) -> Witness:
    keys: dict[str, str] = {}
    claims: list[Claim] = []
    inputs: list[tuple[str, str]] = []
    choices: list[Choice] = []
    number = 1
    index = 0
    while index < len(lines) and lines[index].strip():
        line = lines[index]
        number = index + 2
        index += 1
        key, colon, value = line.partition(": ")
        if not choices and colon and key in _KEYS:
            if key in keys:
                raise WitnessFormatError(name, number, f"a second '{key}:' line", line)
            keys[key] = value
        elif not choices and colon and key == "claim":
            claim = Claim.read(value)
            if claim is None:
                raise WitnessFormatError(name, number, "not a claim (property P = true|false, deadlock ...,"
                                         " fails ..., value F = V, completes)", line)
            claims.append(claim)
        elif not choices and _INPUT.match(line):
            given = _INPUT.match(line)
            assert given is not None
            inputs.append((given.group(1), given.group(2)))
        else:
            choices.append(_choice(line, name, number, choices))
    for key in ("behavior", "model", "engine"):
        if not keys.get(key, "").strip():
            raise WitnessFormatError(name, 0, f"the header has no '{key}:' line")
    if not _HASH.match(keys["model"]):
        raise WitnessFormatError(name, 0, f"the model hash {keys['model']!r} is not sha256:<16 hex digits>")
    if not claims:
        raise WitnessFormatError(name, 0, "the header has no 'claim:' line: the witness claims nothing")
    kinds = [c.kind for c in claims]
    ends = [k for k in kinds if k in (ClaimKind.DEADLOCK, ClaimKind.FAILS)]
    if len(ends) > 1 or (ends and (ClaimKind.VALUE in kinds or ClaimKind.COMPLETES in kinds)):
        raise WitnessFormatError(name, 0, "the claims contradict each other: a run ends one way ("
                                 + "; ".join(c.line() for c in claims) + ")")
    rest = lines[index + 1:]
    horizon = keys.get("horizon")
    if horizon is not None and not _HORIZON.match(horizon):
        raise WitnessFormatError(name, 0, f"the horizon {horizon!r} is not a number of seconds (3, 2.5, 7/2)")
    witness = Witness(keys["behavior"], keys["model"], keys["engine"], tuple(claims), tuple(choices), (),
                      keys.get("on"), tuple(inputs), horizon)
    if witness.ending:
        if not rest or rest[-1] != witness.ending:
            found = repr(rest[-1]) if rest else "nothing"
            raise WitnessFormatError(name, len(lines) + 1, f"the trace ends with {found}, not the"
                                     f" '{witness.ending}' its claim implies")
        rest = rest[:-1]
    return replace(witness, trace=tuple(rest))


def _choice(line: str, name: str, number: int, before: list[Choice]) -> Choice:
    match = _CHOICE.match(line.strip())
    if match is None:
        raise WitnessFormatError(name, number, "not a header or choice line (expected"
                                 " 'step N: <move> first of <move>, ...')", line)
    step = int(match.group(1))
    if step < 1 or (before and step <= before[-1].step):
        raise WitnessFormatError(name, number, "steps must increase", line)
    enabled = tuple(match.group(3).split(", "))
    if match.group(2) not in enabled:
        raise WitnessFormatError(name, number, "the move taken is not among the moves it is chosen from", line)
    return Choice(step, match.group(2), enabled)


# ---------------------------------------------------------------- the replay policy


def _enabled(run: Behavior) -> list[Move]:
    """The moves enabled now, letting time pass while none is (a schedule waits for its timers)."""
    enabled = run.enabled_moves()
    while not enabled and not run.finished and run.let_time_pass():
        enabled = run.enabled_moves()
    return enabled


def next_move(run: Behavior, witness: Witness | None, name: str = "witness") -> Move | None:
    """The move a replay of `witness` makes next (the first enabled one where the witness says nothing),
    or None when no move is enabled; refuses a witness move that is not enabled."""
    enabled = _enabled(run)
    step = len(run.moves_taken) + 1
    wanted = witness.taken_at(step) if witness is not None else None
    if wanted is None:
        return enabled[0] if enabled else None
    for move in enabled:
        if move.label == wanted:
            return move
    raise MoveNotEnabled(name, step, wanted, [m.label for m in enabled])


_INTEGER = re.compile(r"^-?\d+$")
_RATIONAL = re.compile(r"^-?\d+(/\d+|\.\d+)$")


def input_value(text: str) -> Value:
    """An input line's value as the notation spells it: a Boolean, an integer, a rational (`-1/3`,
    `2.5`), a string as spell() quotes it (`"admin"`), or an enumeration literal (`Mode::fast`)."""
    from fractions import Fraction

    if text in ("true", "false"):
        return text == "true"
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return re.sub(r'\\(["\\])', r"\1", text[1:-1])
    if _INTEGER.match(text):
        return int(text)
    if _RATIONAL.match(text):
        return Fraction(text)
    enum, sep, literal = text.rpartition("::")
    if sep and enum and literal.isidentifier():
        return EnumValue(enum.rsplit("::", 1)[-1], literal)
    raise WitnessInputError(f"input value {text!r} is not a Boolean, number, string or enumeration literal")


def fix_inputs(run: Run, inputs: Sequence[tuple[str, str]]) -> None:
    """The witness's inputs fixed on the action's own features before its first move, checked against
    their declared types as a value the model gave them would be."""
    frame = run.root.frame
    for name, text in inputs:
        if name not in frame.values:
            raise WitnessInputError(f"input {name}: the action {run.element.name} has no feature '{name}'")
        value = input_value(text)
        frame.values[name] = run.evaluator.store(frame, name, frame.types.get(name, ""), value, "input")


def replay_run(program: Program, subject: str, witness: Witness | str, performer: str | None = None,
               name: str = "witness") -> Behavior:
    """A fine run that has made the witness's moves through its last step (each refused unless it is
    enabled), its inputs fixed first; a move that fails ends it there, as the witness does."""
    if isinstance(witness, str):
        witness = parse_witness(witness, name)
    started = program.start_action(subject, performer, fine=True)
    fix_inputs(started, witness.inputs)
    run: Behavior = started
    while len(run.moves_taken) < witness.last_step:
        move = next_move(run, witness, name)
        if move is None:
            wanted = witness.taken_at(len(run.moves_taken) + 1) or "a move"
            raise MoveNotEnabled(name, len(run.moves_taken) + 1, wanted, [])
        try:
            run.apply(move)
        except RunError:
            break  # the failure the witness ends in
    return run


def replay_moves(program: Program, subject: str, moves: Sequence[Move],
                 performer: str | None = None) -> tuple[Behavior, list[str], str | None]:
    """Replay a search's path in a fresh run with the trace on: the run, its trace, its error."""
    return replay(lambda: program.start_action(subject, performer, fine=True), moves)


def replay(start: Callable[[], Behavior], moves: Sequence[Move]) -> tuple[Behavior, list[str], str | None]:
    """Replay a path in the fresh behavior `start` makes, trace on: the behavior, its trace, its error."""
    run = start()
    error = None
    for index, wanted in enumerate(moves, start=1):
        enabled = run.enabled_moves()
        while not enabled and run.let_time_pass():
            enabled = run.enabled_moves()
        move = next((m for m in enabled if m.label == wanted.label), None)
        if move is None:
            raise MoveNotEnabled("the search's schedule", index, wanted.label, [m.label for m in enabled])
        try:
            # just listed among the enabled moves: not looked up again; a firing it leaves in progress is
            # keyed by its step (no state of this replay is compared with another)
            run.apply(move, at=index.to_bytes(8, "little"))
        except RunError as err:
            error = str(err)
            break
    if error is None and run.error is not None:
        error = str(run.error)
    if error is None and not run.finished:
        enabled = run.enabled_moves()
        while not enabled and run.let_time_pass():
            enabled = run.enabled_moves()
    return run, list(run.world.trace.lines), error


# ---------------------------------------------------------------- the claim, re-evaluated


def unreproduced(program: Program, run: Behavior, witness: Witness) -> str | None:
    """Each claim of `witness` evaluated on `run`, a replay of it that stands at the witness's end (or,
    for value and completes claims, at the end of the run): None when all hold, else the first that
    does not, said as what the replay found instead. A property is the action's, resolved by name."""
    return unmet(run, witness, lambda name: _action_property(program, witness, name))


def _action_property(program: Program, witness: Witness, name: str) -> Property | str:
    from engines.check.properties import resolve_properties  # the check engine's properties

    try:
        (prop,) = resolve_properties(program, program.action(witness.behavior), (name,))
    except SysmlError as missing:
        return str(missing)
    return prop


def unmet(run: Behavior, witness: Witness, property_of: Callable[[str], Property | str]) -> str | None:
    """`unreproduced` over any behavior, its properties given by `property_of` (a property, or why
    there is none by that name)."""
    for claim in witness.claims:
        found = _found(run, claim, property_of)
        if found is not None:
            return f"the witness claims {claim.line()}, but {found}"
    return None


def _found(run: Behavior, claim: Claim, property_of: Callable[[str], Property | str]) -> str | None:
    if claim.kind is ClaimKind.FAILS:
        if run.error is None:
            return f"the replay {'completes' if run.finished else 'goes on'} without failing"
        return None if str(run.error) == claim.subject else f"the replay fails with {str(run.error)!r}"
    if run.error is not None:
        return f"the replay fails with {str(run.error)!r} after {len(run.moves_taken)} moves"
    if claim.kind is ClaimKind.DEADLOCK:
        if run.finished:
            return "the replay completes"
        if _enabled(run):
            return f"moves are still enabled after {len(run.moves_taken)} moves"
        stuck = (run.stuck() or "deadlock").removeprefix("deadlock: ")
        return None if stuck == claim.subject else f"the replay stops with {stuck}"
    if claim.kind is ClaimKind.PROPERTY:
        prop = property_of(claim.subject)
        if isinstance(prop, str):
            return prop
        holds, error = prop.holds(run)
        if error is not None:
            return f"{claim.subject} cannot be evaluated: {error}"
        now = "true" if holds else "false"
        return None if now == claim.value else f"{claim.subject} is {now} after {len(run.moves_taken)} moves"
    if not run.finished:
        return f"the replay has not ended after {len(run.moves_taken)} moves"
    if claim.kind is ClaimKind.VALUE:
        value = run.outputs().get(claim.subject, "<unset>")
        return None if value == claim.value else f"the replay ends with {claim.subject} = {value}"
    return None


def admit(witness: Witness, model: ir.Model, name: str, behavior: str | None = None,
          performer: str | None = None) -> None:
    """Refuse (WitnessMismatch) a witness that is not of this model, of `behavior` (when given) or of the
    run `performer` performs (when given)."""
    current = model_hash(model)
    if witness.model != current:
        raise WitnessMismatch(f"witness refused: {name} was written for another model ({witness.model}; the"
                              f" model submitted now is {current}): the model changed since; " + REGENERATE)
    if model.element(witness.behavior) is None:
        raise WitnessMismatch(f"witness refused: {name} is a witness of {witness.behavior}, which the model does"
                              " not declare")
    if behavior is not None and behavior != witness.behavior:
        raise WitnessMismatch(f"witness refused: {name} is a witness of {witness.behavior}, not {behavior}:"
                              f" replay it with the action {witness.behavior}")
    if performer is not None and witness.performer is not None and performer != witness.performer:
        raise WitnessMismatch(f"witness refused: {name} is a witness of the run {witness.performer} performs,"
                              f" not {performer}")
