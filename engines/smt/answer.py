"""One question put to the encoding, answered under the three rules: unknown is never unsat, a refusal
is never a proof (everything is refused before the first query), and a sat model counts only once the
interpreter has replayed it to the state the solver described."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from engines.errors import EngineError
from engines.framework import Strength
from engines.runtime import Program
from engines.witness import Witness

DEFAULT_DEPTH = 40
DEFAULT_SOLVER_SECONDS = 10.0


class InputError(EngineError):
    """An input released by name that is no feature of the action."""


class AssumptionError(EngineError):
    """An assumption named that is no constraint or requirement of the model."""


@dataclass(frozen=True)
class Answer:
    """What the smt engine says, in the model's terms, with everything it assumed."""

    kind: str  # "holds", "sensitive", "outcomes"
    subject: str
    verdict: str  # proved | no violation within k moves | violated | sensitive | not sensitive |
    # no sensitivity found within k moves | not covered | complete | incomplete
    strength: Strength
    k: int
    reached: bool = False  # a schedule could still go on after k moves (or a slot overflowed)
    induction: bool = False  # the proof is unbounded: k-induction closed
    closed: int | None = None  # the j at which the induction step closed
    reason: str | None = None
    inputs: tuple[tuple[str, str], ...] = ()  # free inputs: (name, domain)
    assumptions: tuple[str, ...] = ()
    witnesses: tuple[Witness, ...] = ()
    violations: tuple[tuple[str, str, int, int], ...] = ()  # (kind, text, moves, witness 1-based)
    divergent: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()
    outcomes: tuple[tuple[tuple[tuple[str, str], ...], str | None, int], ...] = ()  # values, error, witness
    notes: tuple[str, ...] = field(default=())
    checks: int = 0
    seconds: float = 0.0


def domain_text(sort: Any) -> str:
    written = sort.type_text or "an untyped feature's value"
    if sort.kind == "bool":
        return "Boolean"
    if sort.kind == "int":
        if sort.low is not None:
            return f"{written} ({sort.low} .. 2^63-1)"
        return f"{written} (-2^63 .. 2^63-1)"
    if sort.kind == "real":
        return f"{written} (exact; 0 or 2^-63 .. 2^63-1 in magnitude)"
    if sort.kind == "str":
        return f"{written} (any text)"
    return f"{sort.enum}::{{{', '.join(sort.literals)}}}"


def solve(program: Program, subject: str, kind: str, properties: Sequence[str] = (),
          diverge: Sequence[str] | None = None, inputs: Sequence[str] = (), assumptions: Sequence[str] = (),
          depth: int | None = None, solver_seconds: float | None = None,
          interrupted: Callable[[], bool] | None = None, induction: bool = False,
          deadline: float | None = None) -> Answer:
    """The answer to one question about one action (see the module docstring)."""
    with own_context():
        return _solve(program, subject, kind, properties, diverge, inputs, assumptions, depth, solver_seconds,
                      interrupted, induction, deadline)


@contextmanager
def own_context() -> Iterator[None]:
    """z3's terms and solvers made meanwhile (each made in z3's default context) in a context of their
    own, freed with them. In one context shared by every question, z3's search depends on the terms the
    earlier questions made: pipeline::OpenLine's witness was raw = 100 asked first, raw = 11 asked again
    after pw::Powers. Each question now answers as it does asked first in a fresh process."""
    import z3.z3 as api

    kept = api._main_ctx
    api._main_ctx = api.Context()
    try:
        yield
    finally:
        api._main_ctx = kept


def _solve(program: Program, subject: str, kind: str, properties: Sequence[str], diverge: Sequence[str] | None,
           inputs: Sequence[str], assumptions: Sequence[str], depth: int | None, solver_seconds: float | None,
           interrupted: Callable[[], bool] | None, induction: bool, deadline: float | None) -> Answer:
    import z3

    from engines.smt import queries
    from engines.smt.decode import Disagreement
    from engines.smt.net import NotCovered, build, move_bound
    from engines.smt.unroll import OutOfTime, Unrolled

    started = time.monotonic()
    k = depth if depth is not None else DEFAULT_DEPTH
    base = Answer(kind, subject, "not covered", Strength.NOT_COVERED, k)
    try:
        action = program.action(subject)
        net = build(program, action)
        bound, safe = move_bound(net)
        if bound is not None and bound <= k:
            k = max(bound, 1)
        else:
            safe = frozenset()
        known = {f.local for f in net.features if f.of_action}
        for name in inputs:
            if name not in known:
                raise InputError(f"--input {name}: the action {action.name} has no feature '{name}'"
                                 f" (its features: {', '.join(sorted(known)) or 'none'})")
        features = list(diverge) if diverge is not None else sorted(known)
        for name in features:
            if kind == "sensitive" and name not in {f.name for f in net.features}:
                raise NotCovered(action.name, f"the feature '{name}', which the action does not hold")
        timeout_ms = int((solver_seconds or DEFAULT_SOLVER_SECONDS) * 1000)

        def unrolled(copies: tuple[str, ...]) -> Unrolled:
            return Unrolled(net, program, subject, k, inputs, copies, timeout_ms, safe, deadline,
                            canonical=kind in ("outcomes", "sensitive"))

        un = unrolled(("",))
        if un.free and kind == "sensitive":  # two schedules must share the inputs: two copies
            un = unrolled(("", "B"))
        props = _properties(un, program, action, properties)
        assumed = _assumptions(un, program, action, assumptions)
        free = tuple((f.local, domain_text(f.sort)) for f in un.free)
        base = Answer(kind, subject, "not covered", Strength.NOT_COVERED, k, inputs=free,
                      assumptions=tuple(assumptions))
        if assumed and not queries._sat(un):
            return _with(base, reason="assumptions admit no initial state", started=started)
        if kind == "outcomes":
            return _outcomes(base, un, program, subject, started)
        if kind == "sensitive":
            answer = _sensitive(base, un, program, subject, features, started, interrupted)
            if induction:
                answer = _induct_ends(answer, un, program, action, features, assumptions, started,
                                      lambda: unrolled(("",)))
            return answer
        unevaluable = _unevaluable(un, program, action, properties)
        if unevaluable is not None:
            return _with(base, reason=unevaluable, started=started)
        answer = _holds(base, un, program, subject, props, started)
        if induction and kind == "holds":
            answer = _induct(answer, un, program, action, props, assumptions, started)
        if kind == "holds" and properties and answer.reason is None and features:
            # as the check engine does: the features compared between schedules are asked of too, so
            # a property that holds does not hide a final value the schedule decides
            if un.free:  # as above: two copies sharing the inputs
                un = unrolled(("", "B"))
                _assumptions(un, program, action, assumptions)
            answer = _with_sensitivity(answer, _sensitive(base, un, program, subject, features, started, interrupted),
                                       started)
        return answer
    except NotCovered as refused:
        return _with(base, reason=str(refused), started=started)
    except Disagreement as disagreement:
        return _with(base, reason=f"the interpreter disagrees with the solver: {disagreement}", started=started)
    except OutOfTime:
        return _with(base, reason="stopped: the time bound passed before the solver answered", started=started)
    except z3.Z3Exception as failed:
        return _with(base, reason=f"the solver refused the query: {failed}", started=started)
    except queries.Undecided as unknown:
        return _with(base, reason=f"solver undecided ({unknown}) within {solver_seconds or DEFAULT_SOLVER_SECONDS:g}s",
                     started=started)


def _with(answer: Answer, started: float, **changes: Any) -> Answer:
    from dataclasses import replace

    return replace(answer, seconds=time.monotonic() - started, **changes)


def _properties(un: Any, program: Program, action: Any, names: Sequence[str]) -> list[tuple[str, Any]]:
    """Each property as a term over one state, or NotCovered (before any query)."""
    import z3

    from engines.check.properties import resolve_properties
    from engines.smt.net import NotCovered

    if not names:
        return []
    out: list[tuple[str, Any]] = []
    for prop in resolve_properties(program, action, tuple(names)):
        if prop.step:
            raise NotCovered(prop.name, f"an assertion of the nested step {prop.step}, judged where each of its "
                                        "performances ends (the check engine judges it)")
        if prop.bindings or prop.defaults or prop.assumptions:
            raise NotCovered(prop.name, "a property with parameters or assumptions")
        conditions = prop.conditions

        def holds_at(st: Any, conditions: Any = conditions, name: str = prop.name) -> Any:
            terms = []
            for condition in conditions:
                term, err = un.builder.translate(st, 0, condition, name)
                if term.kind != "bool":
                    raise NotCovered(name, "a condition that is not Boolean")
                terms.append(z3.And(z3.Not(err), term.value))
            return z3.And(terms)

        holds_at(un.copies[""][0][0])  # translated now: a refusal comes before any query
        out.append((prop.name, holds_at))
    return out


def _unevaluable(un: Any, program: Program, action: Any, names: Sequence[str]) -> str | None:
    """Why a property cannot be judged, where some reachable state leaves one of its conditions with no
    value (an operand with none, a division by zero): the check engine refuses such a property rather
    than call it false, and so does this one, before asking for a violation."""
    import z3

    from engines.check.properties import resolve_properties
    from engines.smt import queries

    states = un.copies[""][0]
    for prop in resolve_properties(program, action, tuple(names)) if names else ():
        for condition in prop.conditions:
            errs = [un.builder.translate(st, 0, condition, prop.name)[1] for st in states]
            if queries._sat(un, z3.Or(errs)):
                model = un.solver.model()
                after = next(i for i, err in enumerate(errs) if z3.is_true(model.eval(err, model_completion=True)))
                return (f"{prop.name} cannot be evaluated at a state reached after {after} moves (an operand"
                        " with no value, or a run error in its condition); the check engine refuses it too")
    return None


def _assumptions(un: Any, program: Program, action: Any, names: Sequence[str]) -> bool:
    if not names:
        return False
    un.solver.add(*_assumed(un, program, action, names))
    return True


def _assumed(un: Any, program: Program, action: Any, names: Sequence[str]) -> list[Any]:
    """The named assumptions as terms over the initial state (each evaluable: no run error)."""
    import z3

    from engines.check.properties import UnknownPropertyError, resolve_properties
    from engines.smt.net import NotCovered

    try:
        found = resolve_properties(program, action, tuple(names))
    except UnknownPropertyError as missing:
        raise AssumptionError(f"--assume: {missing}") from None
    first = un.copies[""][0][0]
    out: list[Any] = []
    for prop in found:
        if prop.bindings or prop.defaults or prop.assumptions:
            raise NotCovered(prop.name, "an assumption with parameters")
        for condition in prop.conditions:
            term, err = un.builder.translate(first, 0, condition, prop.name)
            if term.kind != "bool":
                raise NotCovered(prop.name, "a condition that is not Boolean")
            out.extend((z3.Not(err), term.value))
    return out


def _holds(base: Answer, un: Any, program: Program, subject: str, props: list[tuple[str, Any]],
           started: float) -> Answer:
    from engines.smt import queries

    finding = queries.violation(un, program, subject, props)
    if finding is not None:
        text = finding.found.error if finding.kind != "property" else finding.found.witness.claims[0].subject
        return _with(base, started=started, verdict="violated", strength=Strength.WITNESSED,
                     witnesses=(finding.found.witness,),
                     violations=((finding.kind, text or finding.kind, finding.moves, 1),))
    reached = queries._sat(un, un.cut())
    if reached:
        return _with(base, started=started, verdict=f"no violation within {un.k} moves", strength=Strength.BOUNDED,
                     reached=True)
    return _with(base, started=started, verdict="proved", strength=Strength.PROVED)


def _induct(answer: Answer, un: Any, program: Program, action: Any, props: list[tuple[str, Any]],
            assumptions: Sequence[str], started: float) -> Answer:
    """A bounded `no violation within k moves` made unbounded by k-induction, or said why not."""
    from engines.smt import induction

    if answer.verdict == "proved":
        return _with(answer, started=started, notes=(*answer.notes, "k-induction not needed: every schedule"
                                                     f" ends within {un.k} moves, so the bounded proof covers them all"))
    if not answer.verdict.startswith("no violation within"):
        return answer
    from engines.smt.unroll import OutOfTime

    try:
        found = induction.prove(un, program, action, props, assumptions)
    except OutOfTime:
        return _with(answer, started=started, notes=(*answer.notes, "k-induction: the time bound passed before"
                                                     " the step was decided"))
    if found.closed is None:
        return _with(answer, started=started, notes=(*answer.notes, f"k-induction: {found.why}"))
    return _with(answer, started=started, verdict=f"proved, unbounded (k-induction at {un.k})",
                 strength=Strength.PROVED, induction=True, closed=found.closed,
                 notes=(*answer.notes, *found.notes))


MAX_RUN_MOVES = 100_000  # the one run that gives the final values k-induction proves of every schedule
MAX_VALUATIONS = 16  # the valuations of free inputs over which non-sensitivity's step is asked, one by one

Fixed = tuple[tuple[tuple[str, str], ...], tuple[tuple[int, Any, Any], ...]]  # inputs as spelled; as endings


def _induct_ends(answer: Answer, un: Any, program: Program, action: Any, features: Sequence[str],
                 assumptions: Sequence[str], started: float, alone: Callable[[], Any]) -> Answer:
    """A bounded `no sensitivity found within k moves` made unbounded. With every input fixed, one run
    of the interpreter to its end gives each feature's final value v; the base showed no schedule of at
    most k moves fails, deadlocks or completes otherwise (they all end alike), so k-induction of `a
    completed run holds v` over the same step as a property's proves every schedule of any length ends
    with v: none can end differently from another. With free inputs v is a function of the inputs, which
    one step cannot state; where their domains and the assumptions admit at most MAX_VALUATIONS
    valuations, the same is asked of each (on one copy, `alone`, the inputs fixed), and otherwise the
    answer stays the bounded one, and says so."""
    from engines.smt.unroll import OutOfTime

    def noted(why: str) -> Answer:
        return _with(answer, started=started, notes=(*answer.notes, f"k-induction: {why}"))

    if answer.verdict == "not sensitive":
        return noted(f"not needed: every schedule ends within {un.k} moves, so the bounded proof covers them all")
    if not answer.verdict.startswith("no sensitivity found within"):
        return answer
    valuations: list[Fixed] = [((), ())]
    one = un
    try:
        if "B" in un.copies:
            one = alone()
            _assumptions(one, program, action, assumptions)
            found = _valuations(one, program, action, assumptions)
            if found is None:
                return noted(f"the free inputs admit more than {MAX_VALUATIONS} valuations"
                             f"{' under the assumptions' if assumptions else ''}, and the final value is a function"
                             " of them, which one step cannot state: the answer stays the bounded one (fix the"
                             f" inputs, or assume them to at most {MAX_VALUATIONS} values, for an unbounded proof)")
            valuations = found
        proofs = []
        for fixed in valuations:
            proof = _ends_proved(one, program, action, features, assumptions, fixed)
            if isinstance(proof, str):
                given = ", ".join(f"{n} = {v}" for n, v in fixed[0])
                return noted(f"with {given}: {proof}" if given else proof)
            proofs.append(proof)
    except OutOfTime:
        return noted("the time bound passed before the step was decided")
    closed = max(found.closed or 0 for _, found in proofs)
    if len(proofs) == 1 and not valuations[0][0]:
        ((spelled, found),) = proofs
        return _with(answer, started=started, verdict=f"not sensitive, unbounded (k-induction at {un.k})",
                     strength=Strength.PROVED, induction=True, closed=closed,
                     notes=(*answer.notes, f"every schedule that completes ends with {spelled} (the interpreter's"
                            " run ended so; k-induction proves no schedule of any length ends otherwise)",
                            *found.notes))
    per_input = tuple(f"with {', '.join(f'{n} = {v}' for n, v in fixed[0])}: every schedule that completes ends"
                      f" with {spelled}" for fixed, (spelled, _) in zip(valuations, proofs, strict=True))
    steps = tuple(dict.fromkeys(n for _, found in proofs for n in found.notes if not n.startswith("k-induction closed")))
    return _with(answer, started=started, verdict=f"not sensitive, unbounded (k-induction at {un.k})",
                 strength=Strength.PROVED, induction=True, closed=closed,
                 notes=(*answer.notes, f"the free inputs admit {len(valuations)} valuation"
                        f"{'s' if len(valuations) != 1 else ''}: k-induction was asked of each, its final values"
                        " those the interpreter's run with it ended with", *per_input,
                        f"k-induction closed for every valuation, at {closed} moves at most: from any state the"
                        " structural invariant allows (the inputs no move writes as fixed), that many moves that"
                        " keep a completed run's final values cannot be followed by one that breaks them", *steps))


def _valuations(un: Any, program: Program, action: Any, assumptions: Sequence[str]) -> list[Fixed] | None:
    """Every valuation of the free inputs their domains and the assumptions admit, or None when there
    are more than MAX_VALUATIONS (an Integer or Real input nothing bounds has endlessly many)."""
    import z3

    from engines.smt.decode import inputs_of
    from engines.smt.queries import Undecided

    first = un.copies[""][0][0]
    solver = z3.Solver()
    solver.add(*un.builder.initial(first, un.values, un.free), *_assumed(un, program, action, assumptions))
    out: list[Fixed] = []
    while len(out) <= MAX_VALUATIONS:
        left = un.left_ms()
        if left is not None:
            solver.set("timeout", left)
        answer = solver.check()
        if answer == z3.unknown:
            raise Undecided(solver.reason_unknown())
        if answer == z3.unsat:
            return sorted(out, key=lambda fixed: [_ordered(text) for _, text in fixed[0]])
        model = solver.model()
        values = [model.eval(first[("val", f.index)], model_completion=True) for f in un.free]
        out.append((inputs_of(un, model), tuple((f.index, z3.BoolVal(True), v) for f, v in zip(un.free, values,
                                                                                              strict=True))))
        solver.add(z3.Or([first[("val", f.index)] != v for f, v in zip(un.free, values, strict=True)]))
    return None


def _ordered(text: str) -> tuple[int, Fraction, str]:
    """A value's spelling ordered as a modeler reads a domain: numbers by value, then the rest by text."""
    try:
        return 0, Fraction(text), ""
    except ValueError:
        return 1, Fraction(0), text


def _ends_proved(un: Any, program: Program, action: Any, features: Sequence[str], assumptions: Sequence[str],
                 fixed: Fixed) -> tuple[str, Any] | str:
    """The final values one run of the interpreter ends with (its inputs fixed), spelled, and their
    k-induction over `un` with the same inputs fixed; or why there is none."""
    import z3

    from engines.errors import RunError
    from engines.smt import induction, queries
    from engines.smt.encode import constant, default_of
    from engines.smt.net import NotCovered
    from engines.smt.unroll import held_values
    from engines.witness import fix_inputs

    run = program.start_action(action.qualified_name, fine=True)
    try:
        fix_inputs(run, fixed[0])
        for _ in range(MAX_RUN_MOVES):
            if run.finished:
                break
            moves = run.enabled_moves()
            if moves:
                run.apply(moves[0])
            elif not run.let_time_pass():
                break
    except RunError as failed:
        return f"a run of the interpreter fails ({failed}), so no schedule's end is proved"
    if not run.finished or run.error is not None:
        why = f"fails ({run.error})" if run.error is not None else \
            (run.stuck() or f"has not ended after {MAX_RUN_MOVES:,} moves")
        return f"a run of the interpreter {why}, so no final value to prove"
    try:
        held = held_values(un.net, run)
    except NotCovered as refused:
        return f"a final value the encoding cannot state: {refused}"
    ends = []
    for name in features:
        f = un.net.feature(name)
        if f.index not in held:
            return f"{f.name} is a nested step's feature, whose final value the step does not state"
        value = held[f.index]
        has = z3.BoolVal(value is not None)
        ends.append((f.index, has, constant(value if value is not None else None, f.sort, un.builder.enums)
                     if value is not None else default_of(f.sort, un.builder.enums)))
    st = un.last()
    first = un.copies[""][0][0]
    given = [first[("val", i)] == value for i, _, value in fixed[1]]
    otherwise = [z3.And(un.completed(st), z3.Not(st["ovf"]),
                        z3.Or(st[("has", i)] != has, z3.And(has, st[("val", i)] != value))) for i, has, value in ends]
    if queries._sat(un, z3.And(*given, z3.Or(otherwise))):  # the base: a schedule of at most k moves ends otherwise
        return ("a schedule of at most k moves ends otherwise than the interpreter's run, which the"
                " bounded query did not compare with it; ask again with a larger depth")
    found = induction.prove(un, program, action, (), assumptions, ends, fixed[1])
    if found.closed is None:
        return f"{found.why}"
    return ", ".join(f"{n} = {run.outputs().get(un.net.feature(n).name, '<unset>')}" for n in features), found


def _sensitive(base: Answer, un: Any, program: Program, subject: str, features: Sequence[str], started: float,
               interrupted: Callable[[], bool] | None) -> Answer:
    from engines.smt import queries

    witnesses: list[Witness] = []
    divergent = []
    notes = []
    for name in features:
        if interrupted is not None and interrupted():
            return _with(base, started=started, reason="interrupted")
        found = queries.diverges(un, program, subject, name)
        if found is None:
            continue
        witnesses.extend((found.first.witness, found.second.witness))
        one = dict(found.first.values).get(found.feature, "<unset>")
        two = dict(found.second.values).get(found.feature, "<unset>")
        divergent.append((found.feature, ((one, len(witnesses) - 1), (two, len(witnesses)))))
        notes.append(f"{found.feature}: the schedules part at step {found.step}: {found.moves[0]} against"
                     f" {found.moves[1]}")
    if divergent:
        return _with(base, started=started, verdict="sensitive", strength=Strength.WITNESSED,
                     witnesses=tuple(witnesses), divergent=tuple(divergent), notes=tuple(notes))
    finding = queries.violation(un, program, subject)
    if finding is not None:
        return _with(base, started=started, verdict="violated", strength=Strength.WITNESSED,
                     witnesses=(finding.found.witness,),
                     violations=((finding.kind, finding.found.error or finding.kind, finding.moves, 1),))
    if queries._sat(un, un.cut()):
        return _with(base, started=started, verdict=f"no sensitivity found within {un.k} moves",
                     strength=Strength.BOUNDED, reached=True)
    return _with(base, started=started, verdict="not sensitive", strength=Strength.PROVED)


def _with_sensitivity(held: Answer, asked: Answer, started: float) -> Answer:
    """A property's answer with the sensitivity of the compared features beside it: each divergence
    found (its witnesses after the property's), the sensitivity then the verdict unless a property is
    violated; a sensitivity query stopped (interrupted) stops the answer."""
    if asked.reason is not None:
        return _with(held, started=started, verdict="not covered", strength=Strength.NOT_COVERED,
                     reason=asked.reason)
    if not asked.divergent:
        return held
    offset = len(held.witnesses)
    divergent = tuple((feature, tuple((value, index + offset) for value, index in values))
                      for feature, values in asked.divergent)
    verdict, strength = (held.verdict, held.strength) if held.violations else (asked.verdict, asked.strength)
    # what the properties' query showed stays said where the sensitivity decides the verdict
    said = () if held.violations else (f"the properties: {held.verdict}",)
    return _with(held, started=started, verdict=verdict, strength=strength,
                 witnesses=(*held.witnesses, *asked.witnesses), divergent=divergent,
                 notes=(*held.notes, *said, *asked.notes))


def _outcomes(base: Answer, un: Any, program: Program, subject: str, started: float) -> Answer:
    from engines.smt import queries

    found = queries.outcomes(un, program, subject)
    witnesses = tuple(f.witness for f in found.found)
    outcomes = tuple((f.values, f.error, i) for i, f in enumerate(found.found, start=1))
    verdict, strength = ("incomplete", Strength.BOUNDED) if found.cut else ("complete", Strength.PROVED)
    return _with(base, started=started, verdict=verdict, strength=strength, reached=found.cut,
                 witnesses=witnesses, outcomes=outcomes, checks=found.checks)
