"""The machine half of the referee set: small state-machine and part models written for it, each with
the answer derived from the semantics (never recorded from a run), and how our tool's answer is read
and judged.

A case is `states/<name>.sysml` beside `states/<name>.json`. The expectation's keys:

- `class`: which construct family (`MACHINE_CLASSES`) it is about
- `xfail`: why our tool is wrong today (one line; delete it when a fix makes the case pass)
- `unclear`: why the semantics does not settle the answer (left out of the assertions)
- `about`: what the model is and the derivation of the answer, in a line or two
- `state`: the machine to run (qualified); or `instantiate`: the part whose instance runs
- `drive`: what the environment does, in order: `send E` (the event posted, then every move due
  now), `post E` (posted only: events queued together), `advance T` (T of time passes)
- `finalState`: the configuration at rest (leaves of orthogonal regions joined by `+` in region
  name order); `stateVisits`: the states entered, in order (ours only: the peer reports none)
- `outputs`: features and their values at rest (a machine's own; of an instance, `path.feature`,
  the root object's by its bare name); `objects`: object path -> its machine's final configuration
- `status`: `terminated` when the machine must have been ended by a terminate
- `run_error`: a regular expression the run's typed error must match
- `refused`: a regular expression the submission's typed error must match
- `peer_refusal_ok`: a regular expression of the peer's refusal that counts as a defensible answer
  (the notation is an extension of the corpus's the peer refuses: `defer`), not as the peer wrong
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.runtime.states import parse_duration
from tests.referee.cases import first_line, normalize

MODELS = Path(__file__).resolve().parent / "states"

MACHINE_CLASSES = {
    "regions": "orthogonal regions",
    "nesting": "nested composite states, entry/exit order",
    "completion": "completion transitions",
    "guards": "guards and effects",
    "time": "accept after / at / when",
    "signals": "signals with payloads and new T(args)",
    "defer": "deferral",
    "history": "shallow and deep history",
    "pseudo": "junction and choice",
    "forkjoin": "fork and join pseudostates",
    "final": "final states and terminate",
    "do": "do behaviors",
    "send": "send to a part, a port, this",
    "parts": "parts exhibiting machines signalling each other",
    "mixed": "a machine performing an action, an action sending to a machine",
}

KEYS = {"class", "xfail", "unclear", "about", "state", "instantiate", "drive", "finalState", "stateVisits",
        "outputs", "objects", "status", "run_error", "refused", "peer_refusal_ok"}


@dataclass(frozen=True)
class MachineCase:
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
    def drive(self) -> list[tuple[str, str]]:
        return [(d.split(" ", 1)[0], d.split(" ", 1)[1].strip()) for d in self.spec.get("drive", [])]


def load_machine_cases() -> list[MachineCase]:
    cases = []
    for spec_path in sorted(MODELS.glob("*.json")):
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
        text = spec_path.with_suffix(".sysml").read_text(encoding="utf-8")
        cases.append(MachineCase(spec_path.stem, text, spec))
    return cases


@dataclass
class MachineSeen:
    """What one tool answered for one machine case; None where it never got there."""

    refused: str | None = None
    run_error: str | None = None
    final_state: str | None = None
    visits: list[str] | None = None  # None: the tool does not report them
    outputs: dict[str, str] = field(default_factory=dict)
    objects: dict[str, str] = field(default_factory=dict)
    status: str | None = None
    other: str | None = None


# ---------------------------------------------------------------- our tool


def run_ours(case: MachineCase) -> MachineSeen:
    """Submit as a cell (or `run FILE`) does, start the machine (or materialize the part) and drive it
    as `run FILE --state M --send E --advance T` and `%send`/`%continue`/`%advance` do."""
    from engines.runtime.states import split_target
    from engines.runtime.states.environment import parse_send
    from ir.errors import SysmlError
    from opensysml_kernel.errors import RunFailedError
    from opensysml_kernel.machines import InstanceStepping
    from opensysml_kernel.session import Session

    seen = MachineSeen()
    session = Session()
    try:  # parsed, resolved and every machine lowered, as a submitted cell is
        session.submit(case.text, case.path.name)
    except SysmlError as error:
        seen.refused = f"{type(error).__name__}: {error}"
        return seen
    driven = None
    try:
        try:
            if "instantiate" in case.spec:
                driven = session.instantiate(case.spec["instantiate"])
            else:
                driven = session.start_machine(case.spec["state"])
            if not driven.finished:
                session.debugger.continue_run()
            for verb, arg in case.drive:
                if driven.finished:
                    break  # a machine that ended takes nothing more (the session refuses to drive it)
                if verb == "advance":
                    session.debugger.advance(parse_duration(arg))
                    continue
                text, target = split_target(arg)
                session.debugger.send(parse_send(text), target)
                if verb == "send" and not driven.finished:
                    session.debugger.continue_run()
            if not driven.finished:
                session.debugger.continue_run()
        except RunFailedError as error:
            seen.run_error = f"{type(error.cause).__name__}: {error.cause}"
        if driven is None:
            return seen
        if isinstance(driven, InstanceStepping):
            for obj in driven.object_documents():
                prefix = f"{obj['path']}." if obj["path"] else ""
                seen.objects[obj["path"]] = obj["finalState"]
                for name, value in obj["slots"].items():
                    seen.outputs[prefix + name] = value
            for name, value in driven.outputs().items():
                seen.outputs.setdefault(name, value)
        else:
            seen.final_state = driven.final_state()
            seen.visits = list(driven.visits())
            seen.outputs = driven.outputs()
            seen.status = driven.machines[0].status if driven.machines else driven.status
    except SysmlError as error:
        seen.other = f"{type(error).__name__}: {error}"
    except Exception as error:  # a crash is an answer the referee reports, not a test error
        seen.other = f"crash {type(error).__name__}: {error}"
    return seen


# ---------------------------------------------------------------- judging


def leaves(config: str) -> list[str]:
    """A configuration as its sorted leaf names: `a+b`, the peer's `a | b` and `outer.a` alike."""
    parts = [p.strip() for p in re.split(r"[+|,]", config) if p.strip()]
    return sorted(p.rsplit(".", 1)[-1] for p in parts)


def judge_machine(case: MachineCase, seen: MachineSeen, exact: bool = True) -> list[str]:
    """How `seen` differs from the case's expected answer; [] when it meets it. `exact` (ours) also
    compares the visits and the configuration's spelling; the peer's configuration compares by its leaves."""
    spec, problems = case.spec, []
    if seen.other is not None:
        return [f"stopped: {seen.other}"]
    if "refused" in spec:
        if seen.refused is None:
            return [f"submission accepted; expected refused matching /{spec['refused']}/"]
        if exact and not re.search(spec["refused"], seen.refused, re.IGNORECASE | re.DOTALL):
            return [f"refused with {first_line(seen.refused)!r}, expected /{spec['refused']}/"]
        return []
    if seen.refused is not None:
        if not exact and "peer_refusal_ok" in spec and re.search(spec["peer_refusal_ok"], seen.refused):
            return []
        return [f"refused: {first_line(seen.refused)}"]
    if "run_error" in spec:
        if seen.run_error is None:
            problems.append(f"run completed; expected a run error matching /{spec['run_error']}/")
        elif exact and not re.search(spec["run_error"], seen.run_error, re.IGNORECASE | re.DOTALL):
            problems.append(f"run error {first_line(seen.run_error)!r}, expected /{spec['run_error']}/")
    elif seen.run_error is not None:
        problems.append(f"run failed: {first_line(seen.run_error)}")
    if "finalState" in spec and seen.final_state is not None:
        want, got = spec["finalState"], seen.final_state
        if (got != want) if exact else (leaves(got) != leaves(want)):
            problems.append(f"finalState {got!r}, expected {want!r}")
    if "stateVisits" in spec and seen.visits is not None and seen.visits != spec["stateVisits"]:
        problems.append(f"stateVisits {seen.visits}, expected {spec['stateVisits']}")
    for name, value in spec.get("outputs", {}).items():
        got_value = seen.outputs.get(name)
        if got_value is None:
            problems.append(f"{name}: no such output (outputs: {', '.join(sorted(seen.outputs)) or 'none'})")
        elif normalize(got_value.strip('"')) != normalize(str(value).strip('"')):
            problems.append(f"{name} = {got_value}, expected {value}")
    for path, want in spec.get("objects", {}).items():
        config = seen.objects.get(path)
        if config is None:
            problems.append(f"object {path!r}: no machine reported")
        elif (config != want) if exact else (leaves(config) != leaves(want)):
            problems.append(f"object {path!r} in {config!r}, expected {want!r}")
    if spec.get("status") == "terminated" and seen.status is not None and seen.status != "terminated":
        problems.append(f"status {seen.status}, expected terminated")
    return problems
