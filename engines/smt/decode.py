"""A sat model read back: the inputs it chose, the moves it took, each matched to the interpreter's
enabled move at that step (the token standing at the same place), replayed, and written as a witness
in the one format (engines/witness.py) that `%replay` and `replay` follow. The replay is the verdict's
judge: a model whose replay ends elsewhere than the solver said is a disagreement, never a verdict."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from engines.errors import RunError
from engines.runtime import Move, Program, Run
from engines.runtime.types import rule_for
from engines.runtime.values import EnumValue, Value, as_declared, spell
from engines.smt.encode import Choice, State
from engines.smt.net import Act, Feature, Net
from engines.smt.unroll import Unrolled
from engines.witness import Choice as ChoiceLine
from engines.witness import Claim, Witness, fix_inputs, model_hash


class Disagreement(Exception):
    """The interpreter does not follow or does not end where the solver's model says."""


@dataclass(frozen=True)
class Ending:
    """Where a decoded schedule ends, as the solver says it does."""

    values: dict[str, str]  # every output as the run spells it (`<unset>` for a feature with no value)
    failed: bool
    deadlocked: bool


def python_value(model: Any, term: Any, feature: Feature) -> Value:
    value = model.eval(term, model_completion=True)
    sort = feature.sort
    if sort.kind == "bool":
        return z3.is_true(value)
    if sort.kind == "int":
        return int(value.as_long())
    if sort.kind == "real":
        fraction = value.as_fraction()
        return Fraction(fraction.numerator, fraction.denominator)
    if sort.kind == "str":
        return str(value.as_string())
    text = str(value)
    return EnumValue(sort.enum, text[len(sort.enum) + 1:])


def spelled(net: Net, feature: Feature, value: Value) -> str:
    rule = rule_for(net.program.model, net.action, feature.sort.type_text, net.program.type_rules)
    if rule is not None and not rule.enumeration:
        value = as_declared(rule.name, value)
    return spell(value)


def inputs_of(un: Unrolled, model: Any) -> tuple[tuple[str, str], ...]:
    first = un.copies[next(iter(un.copies))][0][0]
    return tuple((f.local, spelled(un.net, f, python_value(model, first[("val", f.index)], f))) for f in un.free)


def schedule_of(un: Unrolled, model: Any, copy: str = "") -> list[Choice]:
    out = []
    for step in un.copies[copy][1]:
        taken = [j for j, sel in enumerate(step) if z3.is_true(model.eval(sel, model_completion=True))]
        if not taken:
            break
        out.append(un.builder.choices[taken[0]])
    return out


def ending_of(un: Unrolled, model: Any, copy: str = "", step: int | None = None) -> Ending:
    st: State = un.last(copy) if step is None else un.copies[copy][0][step]
    values: dict[str, str] = {}
    for f in un.net.features:
        if f.hidden or f.slot:
            continue  # a signal payload's features are no output of the run: its object's number is
        if f.part is not None and not z3.is_true(model.eval(st[("made", f.part)], model_completion=True)):
            continue  # the run has not made the part's object yet: it reports none of its features
        has = z3.is_true(model.eval(st[("has", f.index)], model_completion=True))
        if has and f.instance:
            values[f.name] = f"instance#{python_value(model, st[('val', f.index)], f)}"  # as the run spells it
        elif has and f.payload:
            # a payload is held as the message carried it: an Integer, or a Rational (4.0) when sent as one
            value = python_value(model, st[("val", f.index)], f)
            if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
                sent_rational = z3.is_true(model.eval(st[("frac", f.index)], model_completion=True))
                value = Fraction(value) if sent_rational else int(value)  # an Integer sent is integral
            values[f.name] = spell(value)
        elif has:
            values[f.name] = spelled(un.net, f, python_value(model, st[("val", f.index)], f))
        elif f.owner is None or z3.is_true(model.eval(st.get(("begun", f.owner), z3.BoolVal(False)),
                                                      model_completion=True)):
            values[f.name] = "<unset>"
    values.update({name: spelled for name, (_, spelled) in un.net.fixed.items()})  # bound: never changes
    failed = z3.is_true(model.eval(un.failed(st), model_completion=True))
    deadlocked = z3.is_true(model.eval(un.deadlocked(st), model_completion=True))
    return Ending(values, failed, deadlocked)


class Locator:
    """Which place of the net an interpreter token stands at."""

    def __init__(self, net: Net) -> None:
        self.net = net
        # a performance of a step of multiplicity (a token of its group) -> which of the step's members
        # stands for it: the group's tokens in the order of their numbers, as first seen (all of them:
        # each is enabled once the group is made). Keyed by the group (held, so its id is not reused).
        self.ranks: dict[int, tuple[list[Any], dict[int, int]]] = {}

    def flow_index(self, flow: Any) -> int:
        if flow.parent_token is None:
            return 0
        parent = self.place_of(flow.parent_token)
        for child in self.net.places[parent].children:
            if child >= 0 and self.net.flows[child].graph is flow.graph:
                return child
        raise Disagreement(f"the interpreter entered a flow of {flow.label} the encoding does not know")

    def place_of(self, token: Any) -> int:
        index = self.net.flows[self.flow_index(token.flow)].places[token.node]
        members = self.net.places[index].members
        if not members or token.group is None:
            return index
        group = token.group
        if id(group) not in self.ranks:
            self.ranks[id(group)] = (group, {t.id: r for r, t in enumerate(sorted(group, key=lambda t: t.id))})
        rank = self.ranks[id(group)][1].get(token.id)
        if rank is None or rank >= len(members):
            raise Disagreement(f"the interpreter performs {token.flow.graph.nodes[token.node].name} more often"
                               " than the encoding counts")
        return members[rank]

    def move_for(self, run: Run, choice: Choice, step: int) -> Move:
        enabled = run.enabled_moves()
        for move in enabled:
            if move.option != choice.branch:
                continue
            if self.place_of(run.token(move.actor)) == choice.place:
                return move
        place = self.net.places[choice.place]
        wanted = place.label + (f" to {choice.branch}" if choice.branch else "")
        listed = ", ".join(m.label for m in enabled) or "none"
        raise Disagreement(f"step {step}: the solver moves the token at {wanted}, which the interpreter does "
                           f"not enable (enabled: {listed})")


def replay(un: Unrolled, program: Program, subject: str, schedule: list[Choice],
           inputs: tuple[tuple[str, str], ...]) -> tuple[Run, list[ChoiceLine]]:
    """The schedule made in a fresh fine run with the inputs fixed; the choice lines it made."""
    run = program.start_action(subject, fine=True)
    fix_inputs(run, inputs)
    locate = Locator(un.net)
    lines: list[ChoiceLine] = []
    moves = [c for c in schedule if not c.clock]
    for choice in schedule:
        step = len(lines) + 1  # the move's number: time passing is none (the interpreter's replays agree)
        if run.finished:
            raise Disagreement(f"step {step}: the solver moves on, but the interpreter's run has ended")
        if choice.clock:
            enabled = run.enabled_moves()
            if enabled or not run.let_time_pass():
                listed = ", ".join(m.label for m in enabled) or "none, and nothing waits"
                raise Disagreement(f"step {step}: the solver lets time pass, where the interpreter has moves"
                                   f" enabled: {listed}")
            continue
        move = locate.move_for(run, choice, step)
        lines.append(ChoiceLine(step, move.label, tuple(m.label for m in run.enabled_moves())))
        try:
            run.apply(move)
        except RunError:
            if step != len(moves):
                raise Disagreement(f"step {step}: the interpreter fails with {run.error}, the solver goes on") \
                    from None
            break
    return run, lines


def judge(un: Unrolled, run: Run, ending: Ending, partial: bool = False) -> None:
    """Raise a Disagreement unless the replay ends as the solver says (`partial`: it stops at a state
    the solver names before the run's end, so only the values and any failure are compared)."""
    if ending.failed != (run.error is not None):
        said = "fails" if ending.failed else "does not fail"
        raise Disagreement(f"the solver's run {said}, the interpreter's {'fails with ' + str(run.error) if run.error else 'does not'}")
    if not ending.failed and not partial:
        enabled = run.enabled_moves()
        if ending.deadlocked != (not run.finished and not enabled):
            raise Disagreement("the solver's run " + ("deadlocks" if ending.deadlocked else "ends otherwise")
                               + f", the interpreter's {'has moves enabled' if enabled else 'is stuck'}")
        if not ending.deadlocked and not run.finished:
            raise Disagreement("the solver's run completes, the interpreter's has not")
    outputs = run.outputs()
    for name, value in ending.values.items():
        found = outputs.get(name, "<unset>")
        if found != value:
            raise Disagreement(f"the solver ends with {name} = {value}, the interpreter with {name} = {found}")
    extra = sorted(set(outputs) - set(ending.values))
    if extra:
        raise Disagreement(f"the interpreter's run ends with {', '.join(extra)}, which the encoding does not hold")


def witness(un: Unrolled, program: Program, subject: str, run: Run, lines: list[ChoiceLine],
            claims: tuple[Claim, ...], inputs: tuple[tuple[str, str], ...]) -> Witness:
    behavior = program.action(subject).qualified_name
    return Witness(behavior, model_hash(program.model), "smt", claims, tuple(lines), tuple(run.trace), None,
                   inputs)


def describe_choice(net: Net, choice: Choice) -> str:
    if choice.clock:
        return "time passes"
    place = net.places[choice.place]
    text = place.label
    if place.act is Act.DECIDE and choice.branch:
        text += f" to {choice.branch}"
    return text
