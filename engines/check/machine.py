"""Check and explore a state machine driven by an environment (engines/runtime/states/driven.py):
every schedule of its moves and of the environment's sends, searched as any behavior is. An instance
(a part's objects, the machines they exhibit and the actions they perform, on one world:
engines/runtime/states/instance_run.py) is checked the same way, `part=True`."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from engines.check.parallel import Recipe, SubjectKind
from engines.check.properties import resolve_properties
from engines.check.search import check_behavior
from engines.errors import MoveNotEnabled, RunError
from engines.explore import explore_behavior
from engines.framework import BoundReport, Bounds, Progress, Result, Strength, Verdict, feature_paths
from engines.runtime import Program, Script, replay_script, time_constants
from engines.runtime.behavior import Behavior
from engines.runtime.watch import BoundReached, watching
from engines.witness import Witness, admit, model_hash, next_move, parse_witness, unmet
from ir.errors import SysmlError
from ir.model import Element


def machine_start(program: Program, name: str, script: Script, part: bool = False) -> tuple[Callable[[], Behavior], str]:
    """What makes the machine `name` (or, `part`, the instance of the part `name`) afresh with its
    environment, and its qualified name; an unknown signal of the script is refused now, before any
    search."""
    start = program.start_instance if part else program.start_driven
    qualified = start(name, script).subject

    return (lambda: start(qualified, script)), qualified


def _probed(program: Program, name: str, script: Script, part: bool, bounds: Bounds,
            interrupted: Callable[[], bool] | None) -> tuple[Callable[[], Behavior], str, Behavior | None]:
    """`machine_start`, and a run made by it (whose features the search compares), under the bounds: a
    machine's start runs its first firing as far as no choice stops it, which may loop. Where a bound
    stops it, the run is None and what is returned starts by raising that bound again, so the engine
    reports the search stopped at its start, with nothing searched, as a bound reached inside a move."""
    try:
        with watching(bounds.watch(time.monotonic(), interrupted)):
            start, subject = machine_start(program, name, script, part)
            return start, subject, start()
    except BoundReached as reached:
        kind = reached.kind

    def stopped() -> Behavior:
        raise BoundReached(kind)
    return stopped, name, None


def _subject(program: Program, name: str, part: bool) -> Element:
    """The machine, or the part, a check is of (where its properties are looked up)."""
    return program.part(name) if part else program.state(name)


def is_part(program: Program, name: str) -> bool:
    """Whether the qualified name `name` is a part's (a check of it is an instance's)."""
    el = program.model.element(name)
    return el is not None and el.base_kind == "part"


def check_machine(program: Program, name: str, script: Script | None = None, bounds: Bounds | None = None,
                  properties: tuple[str, ...] = (), diverge: tuple[str, ...] | None = None, reduce: bool = True,
                  interrupted: Callable[[], bool] | None = None,
                  progress: Progress | None = None, part: bool = False) -> Result:
    """Every schedule of the machine (or the part's instance) and its environment within the bounds:
    properties at every stable state, deadlocks, failures, and the features (with `finalState`) that
    end differently."""
    bounds = bounds or Bounds()
    start, subject, probe = _probed(program, name, script or Script(), part, bounds, interrupted)
    if probe is None:  # the start stopped by a bound: the search stops there, on this process
        return check_behavior(start, subject, replace(bounds, workers=None), model=model_hash(program.model))
    props = resolve_properties(program, _subject(program, subject, part), properties)
    paths = feature_paths(probe, subject, diverge)
    recipe = Recipe(SubjectKind.PART if part else SubjectKind.MACHINE, subject, script=script or Script(),
                    properties=properties, features=paths)
    return _horizon(check_behavior(start, subject, bounds, props, paths, reduce, interrupted, progress,
                                   model=model_hash(program.model), program=program, recipe=recipe), script, program)


def explore_machine(program: Program, name: str, script: Script | None = None, bounds: Bounds | None = None,
                    diverge: tuple[str, ...] | None = None,
                    interrupted: Callable[[], bool] | None = None, part: bool = False) -> Result:
    """Every linearization of the machine's (or the instance's) and the environment's moves, within
    the runs budget."""
    bounds = bounds or Bounds()
    start, subject, probe = _probed(program, name, script or Script(), part, bounds, interrupted)
    if probe is None:
        return explore_behavior(start, subject, bounds, None, interrupted, (subject, model_hash(program.model), None))
    paths = feature_paths(probe, subject, diverge)
    features = None if paths is None else (lambda out: {k: v for k, v in out.items() if k in paths})
    return _horizon(explore_behavior(start, subject, bounds, features, interrupted,
                                     (subject, model_hash(program.model), None)), script, program)


def _horizon(result: Result, script: Script | None, program: Program | None = None) -> Result:
    """The witnesses of a search whose environment stopped time at an instant say so (`horizon:`), so
    that their replay stops time there too; where the model gives no grid of send instants (a time
    trigger's value is no literal: instants.py), the result says what was searched."""
    if script is None or script.horizon is None:
        return result
    spelled = str(script.horizon)
    result = replace(result, witnesses=tuple(replace(w, horizon=spelled) for w in result.witnesses))
    if program is not None and (script.events or script.max_events) and time_constants(program.model) is None:
        return _sends_at_own_instants(result)
    return result


def _sends_at_own_instants(result: Result) -> Result:
    """A search whose sends came only where the machine's time stops: what it did not find is not shown
    absent, so an exhaustive answer (or a complete set of outcomes) is one within that bound, named
    among the bounds as reached; a violation or divergence found stands."""
    note = ("sends were searched only where the machine's time stops (t=0 and its timers' dues): a time "
            "trigger's value is no literal, so no grid of the instants between is known, and an outcome "
            "a send between them reaches may be missing")
    bound = BoundReport("send instants", "t=0 and the timers' dues", True)
    lowered = {Verdict.EXHAUSTIVE: Verdict.WITHIN_BOUNDS, Verdict.COMPLETE: Verdict.INCOMPLETE}
    verdict, strength, incomplete = result.verdict, result.strength, result.incomplete
    if verdict in lowered:
        verdict, strength = lowered[verdict], min(strength, Strength.OBSERVED)
    if verdict is Verdict.INCOMPLETE and incomplete is None:
        incomplete = "sends only where the machine's time stops"
    return replace(result, verdict=verdict, strength=strength, bounds=(*result.bounds, bound),
                   incomplete=incomplete, notes=(*result.notes, note))


def replay_machine(program: Program, witness: Witness | str, subject: str | None = None,
                   name: str = "witness") -> Behavior:
    """The machine of a witness with the environment its moves name, having made the witness's moves
    through its last step (each refused unless enabled); a witness of another model or another
    machine is refused (WitnessMismatch)."""
    if isinstance(witness, str):
        witness = parse_witness(witness, name)
    part = is_part(program, witness.behavior)
    admit(witness, program.model, name,
          _subject(program, subject, part).qualified_name if subject is not None else None)
    start = program.start_instance if part else program.start_driven
    run = start(witness.behavior, replay_script([c.taken for c in witness.choices], witness.horizon))
    while len(run.moves_taken) < witness.last_step:
        move = next_move(run, witness, name)
        if move is None:
            raise MoveNotEnabled(name, len(run.moves_taken) + 1, witness.taken_at(len(run.moves_taken) + 1) or "a move", [])
        try:
            run.apply(move)
        except RunError:
            break  # the failure the witness ends in
    return run


def unreproduced_machine(program: Program, run: Behavior, witness: Witness) -> str | None:
    """The witness's claims re-evaluated on its replay; a property is the machine's, by name."""
    def property_of(prop: str) -> object:
        try:
            subject = _subject(program, witness.behavior, is_part(program, witness.behavior))
            (found,) = resolve_properties(program, subject, (prop,))
        except SysmlError as missing:
            return str(missing)
        return found
    return unmet(run, witness, property_of)  # type: ignore[arg-type]
