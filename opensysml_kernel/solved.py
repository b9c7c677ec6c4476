"""The report of a solver's answer (smt): its verdict qualified by everything the query assumed (the
bounds k and L and whether each could be reached, the inputs and their domains, the assumptions, the
arithmetic), as text lines, the `standing:` line, HTML tables and the JSON fields."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from engines.framework import BoundReport, QuestionKind, Result, Strength, Verdict
from opensysml_kernel.results import Table

Ref = Callable[[int], str]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}es" if word.endswith("s") else f"{count} {word}s"


def _either(values: list[str]) -> str:
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]


def bound_text(bound: BoundReport) -> str:
    """`k = 40 moves`, `L = 4 unrollings`, `solver 10s per query`, or the bound's own name and value."""
    if bound.name == "depth":
        return f"k = {bound.limit} moves"
    if bound.name == "unroll":
        return f"L = {bound.limit} unrollings"
    if bound.name in ("solver", "solver timeout"):
        return f"solver {bound.limit} per query"
    return f"{bound.name} {bound.limit}"


def _reach(bound: BoundReport, result: Result) -> str:
    """Whether a schedule could run into the bound; a witnessed answer (violated, sensitive) stands
    whatever the bound, so its search never asked, and saying `cannot be reached` would claim too much."""
    if result.strength is Strength.WITNESSED and bound.name in ("depth", "unroll"):
        return "not asked: a witness needs no bound"
    return "could be reached" if bound.reached else "cannot be reached"


def _inputs(result: Result) -> str:
    if not result.inputs:
        return "none free (every input as the model binds it)"
    said = [f"{i.name} free in {i.domain}" if i.free else f"{i.name} = {i.value} (as bound, in {i.domain})"
            for i in result.inputs]
    return "; ".join(said)


def solved_lines(result: Result, ref: Ref) -> list[str]:
    """What a solver found (violations, sensitive features, each with its witness and the inputs it
    chose), why it could not decide, then what it assumed."""
    from opensysml_kernel.reports import violation_line

    lines: list[str] = []
    for violation in result.violations:
        lines.append("  " + violation_line(violation.kind, violation.text, violation.moves, ref(violation.witness)))
    for feature, values in result.divergent:
        lines.append(f"  sensitive: {feature} ends as {_either([v for v, _ in values])}")
        lines.extend(f"    {feature} = {value} (witness {ref(index)})" for value, index in values)
    for number, witness in enumerate(result.witnesses, 1):
        if witness.inputs:
            chosen = ", ".join(f"{name} = {value}" for name, value in witness.inputs)
            lines.append(f"  inputs of witness {number}: {chosen}")
    if result.reason is not None:
        lines.append(f"  not covered: {_reason(result)}")
    if not result.bounds and result.arithmetic is None:
        return lines  # nothing was asked: an engine that could not take the question
    if result.verdict is Verdict.NOT_COVERED:
        lines.append("  explore can still show what the inputs as the model binds them do: %engine explore")
    lines.append("  bounds: " + ", ".join(f"{bound_text(b)} ({_reach(b, result)})" for b in result.bounds))
    lines.append(f"  inputs: {_inputs(result)}")
    lines.append("  assumed: " + (", ".join(result.assumptions) if result.assumptions else "nothing"))
    if result.arithmetic is not None:
        lines.append(f"  arithmetic: {result.arithmetic}")
    return lines


def solved_standing(result: Result) -> str:
    """`standing: <claim> (<strength>: <over what>)` for a solver's verdict."""
    depth = result.bound("depth")
    k = depth.limit if depth is not None else "k"
    free = [i.name for i in result.inputs if i.free]
    over = f"every schedule of at most {k} moves" + (f", every value of {', '.join(free)} in its domain"
                                                     if free else "")
    reachable = [b.name for b in result.bounds if b.reached]
    replayed = _plural(len(result.witnesses), "witness") + " replayed"
    verdict, word = result.verdict, result.strength.word
    if verdict is Verdict.PROVED:
        return f"standing: holds ({word}: {over}, no bound reachable)"
    if verdict is Verdict.PROVED_UNBOUNDED:
        return f"standing: holds ({word}: every schedule of any length, by k-induction at {k})"
    if verdict is Verdict.NOT_SENSITIVE_UNBOUNDED:
        return f"standing: not sensitive ({word}: every schedule of any length, by k-induction at {k})"
    if verdict is Verdict.NOT_SENSITIVE:
        return f"standing: not sensitive ({word}: {over}, no bound reachable)"
    if verdict in (Verdict.WITHIN_MOVES, Verdict.SENSITIVITY_WITHIN):
        claim = "holds" if verdict is Verdict.WITHIN_MOVES else "not sensitive"
        return f"standing: {claim} within {k} moves ({word}: {over}; {', '.join(reachable) or 'a bound'} could be reached)"
    if verdict in (Verdict.VIOLATED, Verdict.SENSITIVE):
        return f"standing: {verdict.value} ({word}: {replayed})"
    if not result.bounds and result.arithmetic is None:
        return f"standing: undecided ({word}: not asked)"
    return f"standing: undecided ({word}: {_reason(result) or 'nothing was decided'})"


def _reason(result: Result) -> str:
    """Why nothing was decided, without the 'not covered' a refusal's reason opens with (the line says it)."""
    return (result.reason or "").removeprefix("not covered: ")


def solved_document(result: Result) -> dict[str, Any]:
    """The JSON fields a solver's answer adds: inputs with their domains and each witness's value, the
    assumptions, the arithmetic, and the reason for a not covered."""
    inputs = []
    for given in result.inputs:
        chosen = [dict(w.inputs).get(given.name) for w in result.witnesses]
        inputs.append({"name": given.name, "domain": given.domain, "free": given.free, "value": given.value,
                       "witnesses": chosen})
    return {"inputs": inputs, "assumptions": list(result.assumptions), "arithmetic": result.arithmetic,
            "reason": result.reason}


def solved_html(result: Result) -> str:
    """The assumptions of the query as tables: bounds (could each be reached), inputs (domain, and the
    value each witness chose), then the constraints assumed, the arithmetic and the reason."""
    parts = []
    if result.bounds:
        limits = tuple((b.name, b.limit, "not asked" if _reach(b, result).startswith("not asked")
                        else "yes" if b.reached else "no") for b in result.bounds)
        parts.append(Table(("bound", "value", "could be reached"), limits, mono=(1,)).html())
    if result.inputs:
        numbers = tuple(f"witness {n}" for n in range(1, len(result.witnesses) + 1))
        rows: tuple[tuple[str, ...], ...] = tuple(
            (i.name, i.domain, "free" if i.free else f"= {i.value}",
             *(dict(w.inputs).get(i.name, "—") for w in result.witnesses)) for i in result.inputs)
        parts.append(Table(("input", "domain", "", *numbers), rows, mono=tuple(range(len(numbers) + 3))).html())
    said = ["assumed: " + (", ".join(result.assumptions) if result.assumptions else "nothing")]
    if result.arithmetic is not None:
        said.append(f"arithmetic: {result.arithmetic}")
    if result.reason is not None:
        said.append(f"not covered: {_reason(result)}")
    parts.append("<div class='opensysml-quiet'>" + "<br/>".join(html.escape(line) for line in said) + "</div>")
    return "".join(parts)


# ---------------------------------------------------------------- side by side (`all`)

_HOLDS = frozenset({Verdict.PROVED, Verdict.PROVED_UNBOUNDED, Verdict.NOT_SENSITIVE, Verdict.NOT_SENSITIVE_UNBOUNDED})
_INSENSITIVE = frozenset({Verdict.NOT_SENSITIVE, Verdict.NOT_SENSITIVE_UNBOUNDED})


def _sensitive(result: Result) -> frozenset[str]:
    return frozenset(feature for feature, _ in result.divergent)


def _answer(result: Result) -> str:
    if result.kind is QuestionKind.OUTCOMES:
        return f"{len(result.outcomes)} outcome{'s' if len(result.outcomes) != 1 else ''} ({result.said})"
    return result.said


def _run_with_no_value(solver: Result, search: Result) -> list[str]:
    """The solver's free inputs the search's outcomes show with no value."""
    return [i.name for i in solver.inputs
            if any(dict(o.values).get(i.name) == "<unset>" for o in search.outcomes)]


def answers_table(results: list[Result]) -> Table:
    """Every engine's answer in one table: engine, verdict, strength."""
    return Table(("engine", "verdict", "strength"), tuple((r.engine, _answer(r), r.strength.word) for r in results))


def solver_comparison(results: list[Result]) -> tuple[list[str], bool]:
    """Whether each solver's decided answer agrees with each explicit search that searched every
    schedule: a violation against a proof, a sensitivity one finds and the other rules out."""
    lines: list[str] = []
    disagree = False
    searched = [r for r in results if r.verdict in (Verdict.EXHAUSTIVE, Verdict.VIOLATION, Verdict.DIVERGENT)]
    for solver in (r for r in results if r.verdict.solved):
        if solver.verdict in (Verdict.NOT_COVERED, Verdict.WITHIN_MOVES, Verdict.SENSITIVITY_WITHIN):
            lines.append(f"  not compared: {solver.engine} did not decide ({solver.said})")
            continue
        for other in searched:
            unset = _run_with_no_value(solver, other)
            if unset:
                # the two answer for different inputs: the solver for every value of the domain, the search
                # for the feature as the model leaves it, with none (a value no domain holds)
                lines.append(f"  not compared: {solver.engine} answered for every value of {', '.join(unset)} in its "
                             f"domain, {other.engine} ran {'it' if len(unset) == 1 else 'them'} with no value "
                             "(give a value in the model to compare them)")
                continue
            found = {f"a violation ({other.violations[0].text})"} if other.violations else set()
            wrong = ""
            if other.verdict is Verdict.VIOLATION and solver.verdict in _HOLDS:
                wrong = f"{other.engine} finds {found.pop()}, {solver.engine} says {solver.said}"
            elif other.verdict is Verdict.EXHAUSTIVE and solver.verdict is Verdict.VIOLATED and not other.divergent:
                wrong = f"{other.engine} finds no violation in every schedule, {solver.engine} says violated"
            elif solver.verdict is Verdict.SENSITIVE and _sensitive(solver) - _sensitive(other) \
                    and other.verdict is not Verdict.VIOLATION:
                extra = ", ".join(sorted(_sensitive(solver) - _sensitive(other)))
                wrong = f"{solver.engine} finds {extra} sensitive, {other.engine} does not"
            elif solver.verdict in _INSENSITIVE and other.divergent:
                wrong = (f"{other.engine} finds {', '.join(sorted(_sensitive(other)))} sensitive,"
                         f" {solver.engine} says not sensitive")
            if wrong:
                lines.append(f"✗ disagreement: {wrong}")
                disagree = True
            else:
                lines.append(f"  agree: {other.engine} and {solver.engine} ({solver.said})")
    return lines, disagree
