"""The default run of a state, object or instance case, and how it departs from its expectation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import ir
from engines.errors import RunError
from engines.runtime import Program
from engines.runtime.states import events_from_json, start_machine
from engines.runtime.states.instances import Instantiation
from tests.corpus_cases import Case, entry, same_value


@dataclass
class MachineResult:
    final_state: str = ""
    visits: list[str] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    trace: list[str] = field(default_factory=list)
    error: str | None = None
    objects: dict[str, tuple[str, list[str], dict[str, str]]] = field(default_factory=dict)


def default_run(case: Case) -> MachineResult:
    """The case's machine under its schedule (the default unless pinned), its events in the pool."""
    out = MachineResult()
    try:
        model = ir.resolve([ir.parse(case.text, case.name)])
        if case.kind == "instance" or "instantiate" in case.expected:
            return _instance_run(case, model)
        run = start_machine(Program(model), entry(case, model), case.expected.get("schedule") or "reverse")
        for event in events_from_json(case.expected.get("events") or []):
            run.send(event)
    except ir.SysmlError as err:
        out.error = str(err)
        return out
    try:
        run.run_to_end()
    except RunError as err:
        out.error = str(err)
    out.final_state = run.final_state()
    out.visits = list(run.visits)
    out.outputs = run.outputs()
    out.trace = list(run.trace)
    return out


def _instance_run(case: Case, model: ir.Model) -> MachineResult:
    """An instance case: the part materialized, its machines run; each object's machine and slots."""
    out = MachineResult()
    try:
        world = Instantiation(Program(model), str(case.expected["instantiate"]))
        for spec in case.expected.get("objects") or []:
            for event in events_from_json(spec.get("events") or []):
                world.send(spec.get("path", ""), event)
        world.run()
    except (ir.SysmlError, RunError) as err:
        out.error = str(err)
        return out
    out.trace = list(world.ctx.trace.lines)
    for obj in world.objects:
        prefix = f"{obj.path}." if obj.path else ""
        for name, value in world.slots(obj).items():
            out.outputs[prefix + name] = value
        if obj.machines:
            out.objects[obj.path] = (obj.machines[0].final_state(), list(obj.machines[0].visits),
                                     world.slots(obj))
    return out


def _instance_problems(expected: dict[str, Any], got: MachineResult) -> list[str]:
    problems: list[str] = []
    for key, value in (expected.get("slots") or {}).items():
        if not same_value(value, got.outputs.get(key)):
            problems.append(f"slot {key}: expected {value.get('value')!r}, got {got.outputs.get(key)!r}")
    for spec in expected.get("objects") or []:
        path = spec.get("path", "")
        if path not in got.objects:
            problems.append(f"object {path!r}: no machine ran on it")
            continue
        final, visits, slots = got.objects[path]
        problems.extend(f"object {path!r}: {p}" for p in _matches(
            {k: v for k, v in spec.items() if k in ("finalState", "stateVisits")},
            MachineResult(final, visits, slots)))
        for key, value in (spec.get("slots") or {}).items():
            if value.get("type") == "Instance":
                ok = key in slots and slots[key] != "<unset>"
            else:
                ok = same_value(value, slots.get(key))
            if not ok:
                problems.append(f"object {path!r} slot {key}: expected {value.get('value')!r}, got {slots.get(key)!r}")
    return problems


def _matches(expected: dict[str, Any], got: MachineResult) -> list[str]:
    problems: list[str] = []
    if "finalState" in expected and expected["finalState"] != got.final_state:
        problems.append(f"finalState: expected {expected['finalState']!r}, got {got.final_state!r}")
    if "stateVisits" in expected and expected["stateVisits"] != got.visits:
        problems.append(f"stateVisits: expected {expected['stateVisits']}, got {got.visits}")
    for key, value in (expected.get("outputs") or {}).items():
        if not same_value(value, got.outputs.get(key)):
            problems.append(f"{key}: expected {value.get('value')!r}, got {got.outputs.get(key)!r}")
    return problems


def older_form(trace: list[str]) -> list[str]:
    """A trace as the corpus's older executor wrote it: a body run as one anonymous action without its
    `stmt action body` line (the lines it held one level less indented), and a sent type name without
    the line evaluating it."""
    out: list[str] = []
    lifted: list[int] = []  # the indents of the `stmt action body` lines still open
    for line in trace:
        indent = len(line) - len(line.lstrip(" "))
        while lifted and indent <= lifted[-1]:
            lifted.pop()
        if line.strip() == "stmt action body":
            lifted.append(indent)
            continue
        shown = line[2 * len(lifted):] if line.startswith(" " * (2 * len(lifted))) else line.lstrip(" ")
        if out and out[-1].strip() == "stmt send" and _evaluates_a_type(shown):
            continue
        out.append(shown)
    return out


def _evaluates_a_type(line: str) -> bool:
    """`eval feature Ping -> test::Ping()`: a type named where a value is sent."""
    m = re.fullmatch(r"\s*eval feature (\w+) -> ([\w:]+)\(\)", line)
    return m is not None and m.group(2).rsplit("::", 1)[-1] == m.group(1)


def verdict(case: Case, older_golden: bool = False) -> list[str]:
    """Every way the default run departs from the case's expectation; empty when it conforms. With
    `older_golden`, the trace is compared as the older executor that recorded the golden wrote it."""
    got = default_run(case)
    if older_golden:
        got.trace = older_form(got.trace)
    expected = case.expected
    if "error" in expected:
        if got.error is None or expected["error"] not in got.error:
            return [f"expected the error {expected['error']!r}, got {got.error!r}"]
        return []
    if got.error is not None:
        return [f"the run failed: {got.error}"]
    problems: list[str] = []
    if case.kind == "instance" or "instantiate" in expected:
        problems.extend(_instance_problems(expected, got))
    elif "outcomes" in expected:
        matches = [i for i, o in enumerate(expected["outcomes"], start=1) if not _matches(o, got)]
        if len(matches) != 1:
            problems.append(f"the default run matches outcomes {matches} (finalState {got.final_state!r}, "
                            f"visits {got.visits}, outputs {got.outputs})")
    else:
        problems.extend(_matches(expected, got))
    if case.golden is not None and case.golden != "\n".join(got.trace) + "\n":
        problems.append("the trace differs from the golden trace")
    return problems
