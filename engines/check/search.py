"""The explicit-state check: depth-first over the runtime, one move a step, snapshots to backtrack,
a visited set of fingerprints keeping the shallowest depth searched, persistent sets to reduce. The
states it counts (and bounds) are the settled ones, where properties are judged: a point partway
through a machine's firing is visited like any other but counted as a step of the firing.

It answers whether any schedule violates a property, deadlocks or fails, and which features end
with different values on different schedules; every such claim comes with a witness that has been
replayed through the interpreter before it is reported.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, cast

from engines.check.canon import fingerprint
from engines.check.properties import Property, resolve_properties
from engines.check.reduce import Reducer
from engines.errors import EngineError, RunError
from engines.framework import (
    READY,
    BoundReport,
    Bounds,
    Choice,
    Claims,
    Hooks,
    Outcome,
    Progress,
    Question,
    QuestionKind,
    Result,
    Stats,
    Status,
    Strength,
    Violation,
    Witness,
    feature_paths,
    fixed_inputs_only,
    judge,
    stable_numbers,
)
from engines.runtime import FlatAction, NotFlat, Program
from engines.runtime.behavior import Behavior, Move, Summary, Travelled
from engines.runtime.snapshot import Snapshot
from engines.runtime.watch import BoundReached, spell_bytes, tick, watching
from engines.witness import Claim, ClaimKind, model_hash, replay, unmet
from ir.liveness import readable_after_end

if TYPE_CHECKING:
    from engines.check.parallel import Recipe

_NOTHING: frozenset[tuple[object, ...]] = frozenset()


@dataclass(slots=True)
class _Level:
    snapshot: Snapshot | None  # none is needed where one move is all there is to try
    moves: list[Move]
    enabled: list[Move]  # every move enabled here (the witness's alternatives)
    depth: int
    at: bytes  # the state's fingerprint (where each of its moves is taken)
    next: int = 0
    fresh: bool = True  # the run still stands at this level's state
    # the sleep set: moves already explored from an equivalent schedule, by canonical key
    sleep: dict[tuple[object, ...], Summary] = field(default_factory=dict)
    keys: list[tuple[object, ...]] = field(default_factory=list)
    summaries: list[Summary] = field(default_factory=list)


_OutcomeKey = tuple[tuple[tuple[str, str], ...], tuple[str, ...]]


@dataclass
class _Claim:
    """Something a schedule showed, and the schedule (moves with their choice lines) that showed it."""

    kind: str  # property, deadlock, fails, value, reached (an outcome first reached), outcome
    text: str
    path: tuple[Move, ...]
    alternatives: tuple[list[Move], ...]  # what was enabled before each move of the path
    feature: str = ""
    value: str = ""

    @property
    def choices(self) -> tuple[Choice, ...]:
        return tuple(Choice(i, move.label, tuple(m.label for m in enabled))
                     for i, (move, enabled) in enumerate(zip(self.path, self.alternatives, strict=True), start=1))


@dataclass
class _Search:
    start: Callable[[], Behavior]  # a fresh behavior, before its first move
    subject: str
    bounds: Bounds
    properties: list[Property]
    features: tuple[str, ...] | None
    reduce: bool
    interrupted: Callable[[], bool] | None
    progress: Progress | None
    readable: frozenset[str] | None
    model: str  # the model's content hash, as witnesses give it
    performer: str | None
    replayer: Callable[[], Behavior]  # a fresh interpreter's run, in which every witness is replayed
    fingerprint_bits: int = 128  # the interpreter's fingerprints (engines/check/canon.py); a flat run's 64
    visited: dict[bytes, tuple[int, frozenset[tuple[object, ...]]]] = field(default_factory=dict)
    states: int = 0
    moves: int = 0
    deepest: int = 0
    hits: set[str] = field(default_factory=set)
    stopped: str | None = None
    claims: list[_Claim] = field(default_factory=list)
    finals: dict[str, dict[str, _Claim]] = field(default_factory=dict)
    # an outcome: the final values and the properties false where it ended (two schedules to one set of
    # values may end violating different ones: a nested step's assertion, a property over a feature the
    # values leave out), each with how often it was reached
    outcome_table: dict[_OutcomeKey, int] = field(default_factory=dict)
    # each outcome's first schedule: its witness, where a value's witness took that schedule
    first_reached: dict[_OutcomeKey, _Claim] = field(default_factory=dict)
    # what that first schedule passed through (a machine's visits, an instance's objects)
    travelled: dict[_OutcomeKey, Travelled | None] = field(default_factory=dict)


def final_values(run: Behavior, features: tuple[str, ...] | None) -> dict[str, str]:
    """The values compared at a final state: the named features (`<unset>` where absent), else its own."""
    if features is None:
        return run.own_outputs()
    outputs = run.outputs()
    return {f: outputs.get(f, "<unset>") for f in features}


def check(program: Program, subject: str, bounds: Bounds | None = None, properties: tuple[str, ...] = (),
          diverge: tuple[str, ...] | None = None, reduce: bool = True,
          interrupted: Callable[[], bool] | None = None,
          progress: Progress | None = None,
          performer: str | None = None, flat: bool = True) -> Result:
    """Search every schedule of the action within the bounds; see the module docstring. `flat`: search
    the action's flat form where it covers the action (engines/check/flat.py), else the interpreter."""
    bounds = bounds or Bounds()
    action = program.action(subject)
    subject = action.qualified_name
    props = resolve_properties(program, action, properties)
    probe: Behavior = program.start_action(subject, performer, fine=True)
    diverge = feature_paths(probe, subject, diverge)
    readable = readable_after_end(program.model, diverge or ())

    def interpreted() -> Behavior:
        return program.start_action(subject, performer, fine=True)

    covered = flat_form(program, subject, probe, diverge, readable) if flat and not props and performer is None \
        else None
    if bounds.workers is not None:
        from engines.check.parallel import Recipe, SubjectKind

        recipe = Recipe(SubjectKind.ACTION, subject, performer, None, properties, diverge, readable,
                        flat=covered is not None, max_steps=probe.world.max_steps)

        def search(flat: bool) -> Result:
            return check_behavior(interpreted, subject, bounds, props, diverge, reduce, interrupted, progress,
                                  readable, model_hash(program.model), performer, program=program,
                                  recipe=replace(recipe, flat=flat))
    else:
        def search(flat: bool) -> Result:
            # the flat run offers what the search reads of a behavior; its world holds nothing
            start = cast("Callable[[], Behavior]", covered.start) if flat and covered is not None else interpreted
            return check_behavior(start, subject, bounds, props, diverge, reduce, interrupted, progress, readable,
                                  model_hash(program.model), performer, replayer=interpreted)
    if covered is not None:
        try:
            return search(flat=True)
        except NotFlat:
            pass  # the flat form met, partway, what it does not cover: the interpreter searches from the start
    return search(flat=False)


def flat_form(program: Program, subject: str, probe: Behavior, diverge: tuple[str, ...] | None,
              readable: frozenset[str] | None) -> FlatAction | None:
    """The action's flat form, or None where it does not cover the action (the reason: `why_not_flat`)."""
    try:
        return _flat_form(program, subject, probe, diverge, readable)
    except NotFlat:
        return None


def why_not_flat(program: Program, subject: str) -> str | None:
    """What the flat form does not cover in the action (None: it covers it)."""
    probe: Behavior = program.start_action(subject, None, fine=True)
    try:
        _flat_form(program, subject, probe, None, readable_after_end(program.model, ()))
    except NotFlat as refused:
        return str(refused)
    return None


def _flat_form(program: Program, subject: str, probe: Behavior, diverge: tuple[str, ...] | None,
               readable: frozenset[str] | None) -> FlatAction:
    def wording(moves: list[Move]) -> str:
        _, _, error = replay(lambda: program.start_action(subject, None, fine=True), moves)
        if error is None:
            raise NotFlat(f"a schedule the interpreter runs without failing: {_schedule_text(moves)}")
        return error

    lowered = program.flat_action(subject, readable, wording, probe.world.max_steps)
    # what the flat form holds is all the run holds: its features, and no object, message or clock
    outputs = lowered.start().outputs()
    if probe.own_outputs() != outputs or (diverge is not None and not set(diverge) <= set(outputs)) \
            or probe.world.state_key() != ((0, 1),):
        raise NotFlat("features beyond the action's own attributes, objects, messages or time")
    return lowered


def check_behavior(start: Callable[[], Behavior], subject: str, bounds: Bounds | None = None,
                   properties: list[Property] | None = None, diverge: tuple[str, ...] | None = None,
                   reduce: bool = True, interrupted: Callable[[], bool] | None = None,
                   progress: Progress | None = None,
                   readable: frozenset[str] | None = None, model: str = "", performer: str | None = None,
                   replayer: Callable[[], Behavior] | None = None, program: Program | None = None,
                   recipe: Recipe | None = None) -> Result:
    """The check over any behavior `start` makes afresh (engines/runtime/behavior.py): what `check`
    does for an action; `readable` the features of ended performances the compared state keeps; `model`
    (the model's hash) and `performer` as its witnesses name them. With `bounds.workers`, partitioned
    over Ray workers (engines/check/parallel.py), each making the behavior by the `recipe` from the
    `program`'s source text."""
    props = properties or []
    bounds = bounds or Bounds()
    if bounds.workers is not None:
        from engines.check.parallel import ParallelUnavailable, check_parallel

        if recipe is None or program is None:
            raise ParallelUnavailable(f"--workers: {subject} searches on one process: check it without --workers")
        return check_parallel(program, recipe, bounds, reduce, bounds.workers, model, replayer or start,
                              interrupted, progress)
    search = _Search(start, subject, bounds, props, diverge, reduce and not props, interrupted,
                     progress, readable, model, performer, replayer or start)
    started = time.monotonic()
    # what exists before the search (the model, the program, the start) is never garbage during it:
    # frozen, the collector's full passes no longer walk it
    gc.freeze()
    try:
        with watching(bounds.watch(started, interrupted)):
            try:
                _run_search(search, started)
            except BoundReached as reached:  # inside a move: the search stops where it stands
                search.stopped = reached.kind
                search.hits.add(reached.kind)
    finally:
        gc.unfreeze()
    return _result(search, time.monotonic() - started)


def _run_search(search: _Search, started: float) -> None:
    run = search.start()
    if not getattr(run, "acyclic", False):
        _search_from(search, started, run)
        return
    # a behavior whose states hold no reference cycle (a flat run's are tuples) leaves the collector
    # nothing to find, but its passes would walk the visited set again and again as it grows
    collecting = gc.isenabled()
    gc.disable()
    try:
        _search_from(search, started, run)
    finally:
        if collecting:
            gc.enable()


def _search_from(search: _Search, started: float, run: Behavior) -> None:
    bounds = search.bounds
    run.world.trace.enabled = False
    readable = search.readable
    reducer = Reducer()
    path: list[Move] = []
    choices: list[list[Move]] = []  # the moves enabled before each move of the path
    stack: list[_Level] = []
    last_progress = started

    # a behavior whose state is its own canonical key (a flat run) gives its fingerprint itself
    own: Callable[[], bytes] | None = getattr(run, "fingerprint", None)
    if own is not None:
        search.fingerprint_bits = 64

    def examine(depth: int, sleep: dict[tuple[object, ...], Summary]) -> _Level | None:
        while True:
            key = own() if own is not None else fingerprint(run, readable)
            asleep = frozenset(sleep) if sleep else _NOTHING
            seen = search.visited.get(key)
            only: frozenset[tuple[object, ...]] | None = None
            if seen is not None and seen[0] <= depth:
                if not seen[1]:
                    return None  # searched before with nothing asleep: nothing is left to try
                # Searched before: only what slept then and is awake now is left to try.
                only = seen[1] - asleep
                search.visited[key] = (seen[0], seen[1] & asleep)
                if not only:
                    return None
            else:
                if seen is None and run.settled():
                    # a state is one a property is judged at: a point partway through a machine's
                    # firing (which units run first) is a step of that firing, not a state of it
                    search.states += 1
                search.visited[key] = (depth, asleep)
            if depth > search.deepest:
                search.deepest = depth
            if search.states > bounds.states:
                search.hits.add("states")
                search.stopped = search.stopped or "states"
                return None
            # A violated property is claimed and the search goes on from the state: the schedules
            # through it still reach outcomes, which the modeler sees beside the violation.
            violated: list[str] = []
            for prop in search.properties if search.properties and run.settled() else ():
                holds, error = prop.holds(run)
                if error is not None:
                    # what cannot be evaluated is neither true nor false there: the question is refused
                    raise PropertyNotEvaluable(f"{error} (at a state reached after {depth} moves, by the "
                                               f"schedule {_schedule_text(path)}); the check is refused, not answered")
                if not holds:
                    _claim(search, "property", f"{prop.name} is false after {depth} moves", path, choices,
                           feature=prop.name)
                    violated.append(prop.name)
            if run.error is not None:
                _claim(search, "fails", str(run.error), path, choices)
                return None
            if run.finished:
                _final(search, run, path, choices, tuple(violated))
                return None
            moves = run.enabled_moves()
            if not moves:
                if run.let_time_pass():
                    continue  # time is no choice: the clock moves to the next wait's end
                stuck = run.stuck() or "deadlock"
                _claim(search, "deadlock", stuck.removeprefix("deadlock: "), path, choices)
                return None
            if depth >= bounds.depth:
                search.hits.add("depth")
                return None
            chosen = moves
            keys: list[tuple[object, ...]] = []
            summaries: list[Summary] = []
            if search.reduce and (len(moves) > 1 or sleep or only is not None):
                # one move with nothing asleep: the persistent set is that move, and no sibling sleeps
                actors = run.actors()
                chosen = reducer.persistent(run, moves, actors)
                if reducer.conflicting and not sleep and only is None:
                    # every enabled move depends on every other actor's future: all are taken, and no sleep
                    # set is kept below (what it would spare, siblings that commute, costs more to find)
                    pass
                else:
                    where = {a.id: a.place for a in actors}
                    # a move named by where its actor stands, not by its number (the sleep sets' key)
                    keys = [(where[m.actor], m.option) for m in chosen]
                    if sleep or only is not None:
                        keep = [i for i, k in enumerate(keys) if k not in sleep and (only is None or k in only)]
                        chosen = [chosen[i] for i in keep]
                        keys = [keys[i] for i in keep]
                    if len(chosen) > 1 or sleep:
                        summaries = [run.footprint(m) for m in chosen]
            if not chosen:
                return None
            snapshot = run.snapshot(allow_replay=True) if len(chosen) > 1 else None
            # `sleep` is the level's own: each move's child is given a dict made for it
            return _Level(snapshot, chosen, moves, depth, key, sleep=sleep, keys=keys, summaries=summaries)

    top = examine(0, {})
    if top is not None:
        stack.append(top)
    ticks = 0
    while stack:
        level = stack[-1]
        if level.next >= len(level.moves):
            if level.snapshot is not None and not level.snapshot.released:
                level.snapshot.release()
            stack.pop()
            continue
        if search.interrupted is not None and search.interrupted():
            search.stopped = "interrupted"
            break
        if bounds.timeout is not None and time.monotonic() - started > bounds.timeout:
            search.stopped = "time"
            search.hits.add("time")
            break
        ticks += 1
        if not ticks & 255:
            tick()  # the memory bound too, every 256 moves: a flat run's moves never consult the watch
        move = level.moves[level.next]
        index = level.next
        level.next += 1
        child_sleep: dict[tuple[object, ...], Summary] = {}
        if level.summaries:
            mine = level.summaries[index]
            dependent = reducer.dependent
            for k, summary in level.sleep.items():
                if not dependent(summary, mine):
                    child_sleep[k] = summary
            for i in range(index):
                summary = level.summaries[i]
                if not dependent(summary, mine):
                    child_sleep[level.keys[i]] = summary
        if not level.fresh:
            assert level.snapshot is not None
            level.snapshot.restore(last=level.next == len(level.moves))
        del path[level.depth:]
        del choices[level.depth:]
        level.fresh = False
        path.append(move)
        choices.append(level.enabled)
        search.moves += 1
        try:
            run.apply(move, at=level.at)
        except RunError as err:
            _claim(search, "fails", str(err), path, choices)
            continue
        if search.progress is not None and time.monotonic() - last_progress > 1.0:
            last_progress = time.monotonic()
            search.progress(search.states, search.moves, search.deepest)
        child = examine(level.depth + 1, child_sleep)
        if search.stopped is not None:
            break
        if child is not None:
            stack.append(child)
    for level in stack:
        if level.snapshot is not None and not level.snapshot.released:
            level.snapshot.release()


def parallel_search(subject: str, bounds: Bounds, diverge: tuple[str, ...] | None, reduce: bool,
                    properties: list[Property], readable: frozenset[str] | None, model: str, performer: str | None,
                    replayer: Callable[[], Behavior]) -> _Search:
    """The record a partitioned search (engines/check/parallel.py) fills in with what its workers found,
    schedule by schedule (`record_schedule`, `record_violation`), to report as this search reports
    (`parallel_result`)."""
    return _Search(replayer, subject, bounds, properties, diverge, reduce and not properties, None, None, readable,
                   model, performer, replayer)


def _replayed(replayer: Callable[[], Behavior], steps: list[int]) -> tuple[Behavior, list[Move], list[list[Move]],
                                                                          RunError | None]:
    """A schedule of a partitioned search (each move given by its place among the moves enabled where it
    is taken; TIME where the clock moved, no move being enabled) made in a fresh interpreter's run: the
    run, its moves, what was enabled before each, and the error its last move met."""
    from engines.check.parallel import TIME

    run = replayer()
    run.world.trace.enabled = False
    path: list[Move] = []
    choices: list[list[Move]] = []
    for step in steps:
        if step == TIME:
            if not run.let_time_pass():
                raise EngineError("the partitioned search's schedule is not the interpreter's: time does not "
                                  f"pass after {_schedule_text(path)}")
            continue
        enabled = run.enabled_moves()
        if not 0 <= step < len(enabled):
            raise EngineError(f"the partitioned search's schedule is not the interpreter's: move {step + 1} of "
                              f"{len(enabled)} enabled after {', '.join(m.label for m in path) or 'the start'}")
        move = enabled[step]
        path.append(move)
        choices.append(enabled)
        try:
            run.apply(move)
        except RunError as err:
            return run, path, choices, err
    return run, path, choices, None


def schedule_text(replayer: Callable[[], Behavior], steps: list[int]) -> list[str]:
    """The labels of a partitioned search's schedule's moves."""
    return [m.label for m in _replayed(replayer, steps)[1]]


def record_schedule(search: _Search, steps: list[int], reached: int = 1) -> None:
    """A schedule a partitioned search found ending in a deadlock, a failure or a final state, replayed
    in the interpreter and recorded as the sequential search records what its schedules show; a final
    state reached `reached` times."""
    run, path, choices, error = _replayed(search.replayer, steps)
    if error is not None or run.error is not None:
        _claim(search, "fails", str(error or run.error), path, choices)
        return
    if run.finished:
        violated = tuple(p.name for p in search.properties if run.settled() and not p.holds(run)[0])
        search.outcome_table[_final(search, run, path, choices, violated)] += reached - 1
        return
    stuck = run.stuck() or "deadlock"
    _claim(search, "deadlock", stuck.removeprefix("deadlock: "), path, choices)


def record_violation(search: _Search, steps: list[int], name: str) -> None:
    """A schedule a partitioned search found to a state where the property `name` is false."""
    _, path, choices, _ = _replayed(search.replayer, steps)
    _claim(search, "property", f"{name} is false after {len(path)} moves", path, choices, feature=name)


def parallel_result(search: _Search, seconds: float) -> Result:
    """The report of a partitioned search's record, as the sequential search reports."""
    return _result(search, seconds)


class PropertyNotEvaluable(EngineError):
    """A property that cannot be evaluated at a state the search reached (a condition that is not a
    Boolean, an operator over an unset feature): it is neither violated nor holding there."""


def _schedule_text(path: list[Move]) -> str:
    return ", ".join(m.label for m in path) if path else "of no move"


def _claim(search: _Search, kind: str, text: str, path: list[Move], choices: list[list[Move]],
           feature: str = "") -> None:
    key = (kind, text if kind != "property" else feature)
    for c in search.claims:
        if (c.kind, c.text if c.kind != "property" else c.feature) == key:
            return
    search.claims.append(_Claim(kind, text, tuple(path), tuple(choices), feature))


def _final(search: _Search, run: Behavior, path: list[Move], choices: list[list[Move]],
           violated: tuple[str, ...] = ()) -> _OutcomeKey:
    """A final state reached: its values and outcome counted, a schedule kept for each; its outcome."""
    values = final_values(run, search.features)
    for feature, value in values.items():
        per = search.finals.setdefault(feature, {})
        if value not in per:
            per[value] = _Claim("value", "", tuple(path), tuple(choices), feature, value)
    key = (tuple(sorted(values.items())), tuple(sorted(set(violated))))
    search.outcome_table[key] = search.outcome_table.get(key, 0) + 1
    if key not in search.first_reached:
        # an outcome that ends violating properties is named with them, and its witness claims them
        search.first_reached[key] = _Claim("outcome" if violated else "reached", "", tuple(path), tuple(choices))
        search.travelled[key] = run.travelled()
    return key


def _claims(claim: _Claim, violates: tuple[str, ...] = (),
            values: tuple[tuple[str, str], ...] = ()) -> tuple[Claim, ...]:
    """What a witness of `claim` states in its header (of an outcome reached, its every value)."""
    if claim.kind == "reached":
        return tuple(Claim(ClaimKind.VALUE, feature, value) for feature, value in values)
    if claim.kind == "fails":
        return (Claim(ClaimKind.FAILS, claim.text),)
    if claim.kind == "deadlock":
        return (Claim(ClaimKind.DEADLOCK, claim.text),)
    if claim.kind == "property":
        return (Claim(ClaimKind.PROPERTY, claim.feature, "false"),)
    if claim.kind == "value":
        return (Claim(ClaimKind.VALUE, claim.feature, claim.value),)
    return (Claim(ClaimKind.COMPLETES), *(Claim(ClaimKind.PROPERTY, name, "false") for name in violates))


def _witness(search: _Search, claim: _Claim, violates: tuple[str, ...] = (),
             values: tuple[tuple[str, str], ...] = ()) -> tuple[Witness, str | None]:
    """The claim's schedule replayed in a fresh interpreter; the disagreement when it does not hold
    (the claim re-evaluated as every replay of the witness re-evaluates it)."""
    run, trace, _ = replay(search.replayer, claim.path)
    witness = Witness(search.subject, search.model, "check", _claims(claim, violates, values), claim.choices, tuple(trace),
                      search.performer)
    by_name = {p.name: p for p in search.properties}
    return witness, unmet(run, witness, lambda name: by_name.get(name) or f"no property {name} is checked")


def _result(search: _Search, seconds: float) -> Result:
    witnesses: list[Witness] = []
    notes: list[str] = []
    violations: list[Violation] = []
    for claim in search.claims:
        witness, disagreement = _witness(search, claim)
        if disagreement is not None:
            notes.append(f"not covered: {claim.kind} {claim.text}: {disagreement}")
            continue
        witnesses.append(witness)
        kind = claim.kind
        text = claim.text
        violations.append(Violation(kind, text, len(claim.path), len(witnesses)))
    divergent: list[tuple[str, tuple[tuple[str, int], ...]]] = []
    replayed: dict[tuple[Move, ...], int] = {}  # a schedule already given as a witness: its number
    for feature in sorted(search.finals):
        per = search.finals[feature]
        if len(per) < 2:
            continue
        entries = []
        for value in sorted(per, key=_value_order):
            witness, disagreement = _witness(search, per[value])
            if disagreement is not None:
                notes.append(f"not covered: {feature} = {value}: {disagreement}")
                continue
            witnesses.append(witness)
            entries.append((value, len(witnesses)))
            replayed[per[value].path] = len(witnesses)
        divergent.append((feature, tuple(entries)))
    outcomes = []
    for key in sorted(search.outcome_table, key=lambda k: ([(f, _value_order(v)) for f, v in k[0]], k[1])):
        values, violates = key
        reached = search.first_reached[key]
        index = replayed.get(reached.path, 0)
        if (violates and not index) or (not index and len(search.outcome_table) > 1):
            # an outcome no value's witness ends in: a witness of its own, claiming the properties it ends
            # violating, else its every value
            witness, disagreement = _witness(search, reached, violates, () if violates else values)
            if disagreement is not None:
                notes.append(f"not covered: outcome {', '.join(f'{k} = {v}' for k, v in values)}: {disagreement}")
            else:
                witnesses.append(witness)
                index = len(witnesses)
        outcomes.append(Outcome(values, search.outcome_table[key], index, violates=violates,
                                travelled=search.travelled[key]))
    incomplete = None
    if search.stopped in ("interrupted", "time", "memory"):
        incomplete = search.stopped
    asked = QuestionKind.HOLDS if search.properties else QuestionKind.SENSITIVE
    verdict, strength = judge(Claims(asked, len(violations), len(divergent), len(notes), incomplete is not None,
                                     bool(search.hits)))
    b = search.bounds
    bounds: tuple[BoundReport, ...] = (
        BoundReport("depth", str(b.depth), "depth" in search.hits),
        BoundReport("states", str(b.states), "states" in search.hits),
        BoundReport("timeout", f"{b.timeout:g}s" if b.timeout is not None else "none", "time" in search.hits),
    )
    if "memory" in search.hits:
        bounds += (BoundReport("memory", spell_bytes(b.memory_limit or 0), True),)
    return stable_numbers(Result("check", search.subject, verdict, strength,
                                 Stats(search.states, search.moves, search.deepest, 0, search.fingerprint_bits),
                                 tuple(outcomes),
                                 tuple(violations), tuple(divergent), tuple(witnesses), bounds, incomplete,
                                 tuple(notes)))


def _value_order(value: str) -> tuple[int, object]:
    """Numbers by value, then everything else by spelling: the canonical order values are listed in."""
    from fractions import Fraction

    try:
        return (0, Fraction(value))
    except (ValueError, ZeroDivisionError):
        return (1, value)


class Check:
    """The check engine: whether any schedule violates the properties, deadlocks or fails, and which
    features end differently on different schedules, by explicit-state search."""

    name = "check"
    answers = (QuestionKind.HOLDS, QuestionKind.SENSITIVE)
    strength = Strength.BOUNDED
    reads = frozenset({"properties", "diverge", "depth", "states", "timeout", "memory", "witness_dir", "workers"})

    def status(self) -> Status:
        return READY

    def answer(self, program: Program, question: Question, bounds: Bounds, hooks: Hooks) -> Result:
        fixed_inputs_only(self.name, question)
        return check(program, question.subject, bounds, properties=question.properties, diverge=question.diverge,
                     performer=question.performer, interrupted=hooks.interrupted, progress=hooks.progress)


ENGINE = Check()
