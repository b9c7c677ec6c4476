"""The referee set: small action models written for it, each with the answer derived from the
semantics (never recorded from a run), and how our tool's answer is read and judged.

A case is `models/<name>.sysml` beside `models/<name>.json`. The expectation's keys:

- `class`: which of issue 7's sixteen classes (or `construct`, a row of CONSTRUCTS.md) it is about
- `xfail`: why our tool is wrong today (one line; delete it when a fix makes the case pass)
- `unclear`: why the semantics does not settle the answer (the case is then left out of the assertions)
- `about`: what the model is and why the answer is what it is
- `action`: the action to run (qualified); `performer`: the part usage performing it
- `outputs`: features and their values after the default run (a subset of the outputs; a name
  `a|b` may be reported either way); `only_outputs: true` also requires no other output
- `names_in_model: true`: every output is named by names the model writes (no internal names)
- `run_error`: a regular expression the default run's typed run error must match
- `refused`: a regular expression the submission's typed error (parse or resolve) must match;
  `refused_kind`: the error's class name when it matters (`ResolveError`)
- `check`: the check engine's answer over every schedule: `verdict` (holds, divergent,
  violation, or refused: the question names what the model does not hold, a ResolveError), `property` and `diverge` (what is asked), `values` (feature -> every final value
  the schedules reach, for a divergent feature), `outcomes` (outcomes that must be among those
  reported, each a dict of feature -> value)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

MODELS = Path(__file__).resolve().parent / "models"

CLASSES = {
    "inout": "1 inout/out write-back of performed actions",
    "accept-then": "2 statements after a named accept",
    "payload": "3 constructor arguments and payload features",
    "types": "4 type enforcement",
    "operators": "5 operators",
    "library": "6 sequences and the standard library",
    "constraint-calc": "7 constraint and calc usages with bound parameters",
    "flows": "8 flows between typed usages' parameters",
    "parts": "9 parts and this",
    "terminate": "10 terminate in a fork branch",
    "granularity": "11 loop-pass granularity",
    "ports": "12 conjugated ports",
    "reserved": "13 reserved words refused as names",
    "resolve": "14 names resolved at submission",
    "after-violation": "15 other outcomes reported after a violation",
    "names": "16 no internal names in outputs",
    "construct": "CONSTRUCTS.md action rows",
}

# Words of the notation: an output segment spelled like one is a name the tool made up, not the model's.
_NOTATION = """
about accept action actor after alias all and as assign assume at attribute bind binding by calc case
connect connection constraint decide def default do else end entry enum event exhibit exit first flow
for fork from if implies import in include individual inout interface item join loop merge message new
not objective occurrence or out package parallel part perform port private protected public redefines
ref render rendering requirement return satisfy send snapshot specializes state subject succession
subsets then timeslice to transition until use usage variant verification via view when while xor
"""
KEYWORDS = frozenset(_NOTATION.split())

VERDICTS = {"holds": "no violation, exhaustive", "divergent": "divergent", "violation": "violation"}


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    spec: dict[str, Any]

    @property
    def path(self) -> Path:
        return MODELS / f"{self.name}.sysml"

    @property
    def klass(self) -> str:
        return str(self.spec["class"])

    @property
    def action(self) -> str | None:
        return self.spec.get("action")


def load_cases() -> list[Case]:
    cases = []
    for spec_path in sorted(MODELS.glob("*.json")):
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
        text = spec_path.with_suffix(".sysml").read_text(encoding="utf-8")
        cases.append(Case(spec_path.stem, text, spec))
    return cases


@dataclass
class Observed:
    """What one tool answered for one case; None where it was not asked or never got there."""

    refused: str | None = None  # "<ErrorClass>: message" of a refused submission
    run_error: str | None = None
    outputs: dict[str, str] | None = None
    verdict: str | None = None  # one of VERDICTS' keys, or the tool's own word
    values: dict[str, list[str]] = field(default_factory=dict)  # divergent feature -> values
    outcomes: list[dict[str, str]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    other: str | None = None  # anything else that stopped the tool (a crash, a refused command)


# ---------------------------------------------------------------- our tool


def run_ours(case: Case) -> Observed:
    """Submit, run the default schedule and, when asked, check, as the CLI does."""
    import ir
    from engines.errors import RunError
    from engines.framework import Bounds, Question, QuestionKind, ask
    from engines.runtime import Program
    from ir.errors import SysmlError

    seen = Observed()
    try:
        model = ir.resolve([ir.parse(case.text, case.path.name)])
    except SysmlError as error:
        seen.refused = f"{type(error).__name__}: {error}"
        return seen
    program = Program(model)
    performer = case.spec.get("performer")
    if case.action is None:
        return seen
    wants_run = any(k in case.spec for k in ("outputs", "run_error")) or "check" not in case.spec
    try:
        if wants_run:
            run = program.start_action(case.action, performer=performer)
            try:
                run.run_to_end()
            except RunError as error:
                seen.run_error = f"{type(error).__name__}: {error}"
            if seen.run_error is None and run.error is not None:
                seen.run_error = f"{type(run.error).__name__}: {run.error}"
            seen.outputs = run.outputs()
        wanted = case.spec.get("check")
        if wanted is not None:
            props = tuple(wanted.get("property", ()))
            diverge = tuple(wanted["diverge"]) if "diverge" in wanted else None
            kind = QuestionKind.HOLDS if props else QuestionKind.SENSITIVE
            result = ask(program, Question(kind, case.action, props, diverge, performer), "check", Bounds())
            word = result.verdict.value
            seen.verdict = next((k for k, v in VERDICTS.items() if v == word), word)
            seen.values = {name: sorted(v for v, _ in vals) for name, vals in result.divergent}
            seen.outcomes = [dict(o.values) for o in result.outcomes]
            seen.violations = [v.text for v in result.violations]
    except SysmlError as error:
        seen.other = f"{type(error).__name__}: {error}"
    except Exception as error:  # a crash is an answer the referee reports, not a test error
        seen.other = f"crash {type(error).__name__}: {error}"
    return seen


# ---------------------------------------------------------------- judging


def _number(text: str) -> Fraction | None:
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def normalize(value: str) -> str:
    """A value spelled by either tool, as one spelling: `[5]` and `5` alike, numbers by their value."""
    text = value.strip()
    if len(text) >= 2 and text[0] in "[(" and text[-1] in "])":
        inner = text[1:-1].strip()
        parts = [p.strip() for p in inner.split(",")] if inner else []
        if len(parts) == 1:
            return normalize(parts[0])
        return "(" + ", ".join(normalize(p) for p in parts) + ")"
    number = _number(text)
    if number is not None:
        return str(number)
    return text


def judge(case: Case, seen: Observed, exact: bool = True) -> list[str]:
    """How `seen` differs from the case's expected answer; [] when it meets it. Values compare by
    `normalize` (the peer spells `[5]`, `5.5`); `exact` (ours) also holds error messages to what
    they must name, and refuses a submission refusal where a run error is expected."""
    spec, problems = case.spec, []

    def same(a: str, b: str) -> bool:
        return normalize(a) == normalize(b)

    if seen.other is not None and spec.get("check", {}).get("verdict") != "refused":
        problems.append(f"stopped: {seen.other}")  # (a check expected refused is judged below)
    if "refused" in spec:
        if seen.refused is None:
            problems.append(f"submission accepted; expected refused matching /{spec['refused']}/")
        else:
            # the peer's wording is its own: any refusal meets the expectation; ours must name the cause
            if exact and not re.search(spec["refused"], seen.refused, re.IGNORECASE | re.DOTALL):
                problems.append(f"refused with {first_line(seen.refused)!r}, expected /{spec['refused']}/")
            kind = spec.get("refused_kind")
            if exact and kind and not seen.refused.startswith(kind):
                problems.append(f"refused as {seen.refused.split(':')[0]}, expected {kind}")
        return problems
    wanted = spec.get("check")
    if seen.refused is not None and wanted is not None and wanted["verdict"] == "refused":
        # refusing at submission a property that names what the model does not hold is refusing it too
        if exact and not seen.refused.startswith(wanted.get("kind", "ResolveError")):
            problems.append(f"refused as {first_line(seen.refused)!r}, expected {wanted.get('kind', 'ResolveError')}")
        return problems
    if seen.refused is not None:
        # A tool that type-checks when a model is submitted may refuse what this one reports when it runs.
        if not exact and "refusal_ok" in spec and re.search(spec["refusal_ok"], seen.refused, re.IGNORECASE):
            return problems
        return [*problems, f"refused: {first_line(seen.refused)}"]
    if "run_error" in spec:
        if seen.run_error is None:
            problems.append(f"run completed; expected a run error matching /{spec['run_error']}/")
        elif not re.search(spec["run_error"], seen.run_error, re.IGNORECASE | re.DOTALL):
            problems.append(f"run error {first_line(seen.run_error)!r}, expected /{spec['run_error']}/")
    elif "outputs" in spec and seen.run_error is not None:
        problems.append(f"run failed: {first_line(seen.run_error)}")
    if "outputs" in spec and seen.outputs is not None and ("run_error" not in spec or seen.run_error):
        for name, value in spec["outputs"].items():
            # `a|b`: the output may be spelled either way (an object's feature as this.x or by the part's path)
            got = next((seen.outputs[n] for n in name.split("|") if n in seen.outputs), None)
            if got is None:
                problems.append(f"{name}: no such output (outputs: {', '.join(sorted(seen.outputs)) or 'none'})")
            elif not same(got, value):
                problems.append(f"{name} = {got}, expected {value}")
        if spec.get("names_in_model"):
            words = (set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", case.text)) - KEYWORDS) | {"this"}
            invented = sorted(k for k in seen.outputs if not set(k.split(".")) <= words)
            if invented:
                problems.append(f"outputs named by names the model does not write: {', '.join(invented)}")
        if spec.get("only_outputs"):
            extra = sorted(set(seen.outputs) - set(spec["outputs"]))
            if extra:
                problems.append(f"outputs not named by the model: {', '.join(extra)}")
    wanted = spec.get("check")
    if wanted is not None and wanted["verdict"] == "refused":
        # the check itself must be refused (a name the question holds does not resolve), never answered
        if seen.other is None:
            problems.append(f"check answered {seen.verdict}; expected it refused")
        elif exact and not seen.other.startswith(wanted.get("kind", "ResolveError")):
            problems.append(f"check refused as {first_line(seen.other)!r}, expected {wanted.get('kind', 'ResolveError')}")
        return problems
    if wanted is not None and seen.other is None:
        if seen.verdict != wanted["verdict"]:
            problems.append(f"check verdict {seen.verdict}, expected {wanted['verdict']}")
        unevaluable = re.compile(r"cannot be evaluated|evaluation failed|unresolved", re.IGNORECASE)
        if wanted["verdict"] == "violation" and seen.violations and all(map(unevaluable.search, seen.violations)):
            problems.append("a property that cannot be evaluated is reported as violated: "
                            + first_line(seen.violations[0]))
        for name, values in wanted.get("values", {}).items():
            got = seen.values.get(name)
            if got is None or sorted(map(normalize, got)) != sorted(map(normalize, values)):
                problems.append(f"{name} ends as {got}, expected {sorted(values)}")
        for outcome in wanted.get("outcomes", []):
            if not any(all(k in o and same(o[k], v) for k, v in outcome.items()) for o in seen.outcomes):
                problems.append(f"outcome {outcome} not reported (reported: {seen.outcomes})")
    return problems


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text
