"""The machine models the reduction is tested over: the reduction corpus's state-machine models (an
action and machines, or several machines, on one clock) and the machine dependence models here
(tests/engines/check/machine_dependence/, one per dependence clause of machine moves), each with
what to check written in its first line: `// check: NAME... [send=EVENT]... [advance=SECONDS]`.

One machine is checked with its environment (engines/check/machine.py); several behaviors of one
model (each action usage and state usage its package declares) are checked together on one world
as an ensemble."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import ir
from engines.check.machine import check_machine
from engines.check.search import check_behavior
from engines.framework import Bounds, Result
from engines.runtime import Program
from engines.runtime.actions import Run
from engines.runtime.behavior import Behavior
from engines.runtime.ensemble import Ensemble
from engines.runtime.schedule import make_scheduler
from engines.runtime.states.driven import Script
from engines.runtime.states.environment import parse_send
from engines.runtime.states.machine import MachineRun
from engines.runtime.world import Context
from ir.model import Element
from tests.corpus_cases import CORPUS

HERE = Path(__file__).resolve().parent
MACHINE_DEPENDENCE = HERE / "machine_dependence"
REDUCTION = CORPUS / "reduction"
# the reduction corpus's models with a state machine in them
REDUCTION_MACHINES = ("por_state_do_write", "por_state_independent", "por_state_join_exit", "por_state_send_accept",
                      "por_two_machines")
_HEADER = re.compile(r"^// check: (.+)$")


@dataclass(frozen=True)
class MachineModel:
    name: str  # `corpus/file stem`
    path: Path
    subjects: tuple[str, ...]  # machines (and actions) checked together; () = every usage of the package
    sends: tuple[str, ...] = ()
    advance: Fraction | None = None

    def program(self) -> Program:
        return Program(ir.resolve([ir.parse(self.path.read_text(encoding="utf-8"), self.path.stem)]))


def _read(corpus: str, path: Path) -> MachineModel:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    found = _HEADER.match(first)
    subjects: list[str] = []
    sends: list[str] = []
    advance = None
    if found is not None:
        for word in found.group(1).split():
            if word.startswith("send="):
                sends.append(word.removeprefix("send="))
            elif word.startswith("advance="):
                advance = Fraction(word.removeprefix("advance="))
            else:
                subjects.append(word)
    return MachineModel(f"{corpus}/{path.stem}", path, tuple(subjects), tuple(sends), advance)


def machine_dependence_models() -> list[MachineModel]:
    return [_read("machine_dependence", p) for p in sorted(MACHINE_DEPENDENCE.glob("*.sysml"))]


def reduction_machine_models() -> list[MachineModel]:
    return [_read("reduction", REDUCTION / f"{name}.sysml") for name in REDUCTION_MACHINES
            if (REDUCTION / f"{name}.sysml").exists()]


def _usages(model: ir.Model) -> list[Element]:
    """The action and state usages a package declares directly, actions first, in declaration order."""
    out: list[Element] = []
    for kind in ("action", "state"):
        for name in model.behaviors(kind):
            el = model.element(name)
            if (el is not None and not el.is_definition and el.owner is not None and el.owner.kind == "package"):
                out.append(el)
    return out


def together(program: Program, behaviors: list[Element]) -> Callable[[], Behavior]:
    """What starts `behaviors` afresh on one world, each as its own member of an ensemble."""
    def start() -> Behavior:
        world = Context(program, make_scheduler("reverse"))
        members: list[tuple[str, Behavior]] = []
        for el in behaviors:
            if el.base_kind == "action":
                members.append((el.name, Run(world, el, None, fine=True)))
            else:
                members.append((el.name, MachineRun(program, el, ctx=world)))
        return Ensemble(world, members)
    return start


def checked(m: MachineModel, reduce: bool, bounds: Bounds | None = None) -> Result:
    """The model's check, reduced or not, every feature compared (diverge None)."""
    program = m.program()
    bounds = bounds or Bounds(depth=2_000, states=50_000)
    if len(m.subjects) == 1:
        script = Script(tuple(parse_send(e) for e in m.sends), horizon=m.advance)
        return check_machine(program, m.subjects[0], script, bounds, reduce=reduce)
    model = program.model
    behaviors = [e for e in (model.element(n) for n in m.subjects) if e is not None] if m.subjects \
        else _usages(model)
    return check_behavior(together(program, behaviors), m.name, bounds, reduce=reduce)
