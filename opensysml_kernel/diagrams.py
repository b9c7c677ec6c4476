"""Diagrams of a behavior: an action's graph as a Mermaid flowchart, a machine's as a Mermaid state
diagram (JupyterLab renders both from text/markdown), and the same as plain text for a terminal. A
witness's path is drawn on the action's graph: each move numbered on the edge it came in by, the node
where the witness's claim shows (a property false, a deadlock, a failure) marked."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engines.runtime import Program
from ir.errors import SysmlError
from ir.graphs import ActionGraph, NodeKind, StateGraph, StateKind, Transition, TriggerKind
from ir.lower.states import lower_state
from opensysml_kernel.errors import UsageError
from opensysml_kernel.results import Result, Tone

if TYPE_CHECKING:
    from opensysml_kernel.reports import Check
    from opensysml_kernel.session import Session

# How each kind of node is drawn: Mermaid's opening and closing brackets.
_SHAPES = {
    NodeKind.START: ("((", "))"), NodeKind.DONE: ("(((", ")))"), NodeKind.FORK: ("[[", "]]"),
    NodeKind.JOIN: ("[[", "]]"), NodeKind.MERGE: ("{", "}"), NodeKind.DECIDE: ("{", "}"),
    NodeKind.ACTION: ("(", ")"), NodeKind.STATEMENT: ("[", "]"),
}


@dataclass(frozen=True)
class Path:
    """A witness drawn on a diagram: the moves it makes (`3@valve`, in order) and the claim it ends in."""

    number: int
    moves: tuple[str, ...]
    ending: str = ""  # `property: P`, `fails: ...`; "" for a witness of an outcome


@dataclass(frozen=True)
class Diagram:
    """A behavior drawn: Mermaid source, and the text a terminal shows."""

    mermaid: str
    lines: tuple[str, ...]

    @property
    def markdown(self) -> str:
        return f"```mermaid\n{self.mermaid}\n```"


def _quote(text: str) -> str:
    return '"' + text.replace('"', "#quot;") + '"'


def _node_of(move: str) -> str:
    """`3@valve` is token 3 at node valve."""
    return move.partition("@")[2] or move


def walked(graph: ActionGraph, path: Path) -> tuple[dict[tuple[int, int], list[int]], dict[int, list[int]]]:
    """Where each move of the path was made: by the edge into its node from the node of the latest earlier
    move that has one (the token came that way), else on the node itself (the first move, a start)."""
    index = {node.name: node.index for node in graph.nodes}
    linked = {(e.source, e.target) for e in graph.edges}
    edges: dict[tuple[int, int], list[int]] = {}
    nodes: dict[int, list[int]] = {}
    made: list[int] = []
    for number, move in enumerate(path.moves, 1):
        node = index.get(_node_of(move))
        if node is None:
            continue
        came = next((m for m in reversed(made) if (m, node) in linked), None)
        if came is None:
            nodes.setdefault(node, []).append(number)
        else:
            edges.setdefault((came, node), []).append(number)
        made.append(node)
    return edges, nodes


def action_diagram(graph: ActionGraph, subject: str, path: Path | None = None) -> Diagram:
    """The action's nodes and successions (guards on their edges), with the witness's path if one is given."""
    edges, on_nodes = walked(graph, path) if path is not None else ({}, {})
    failing = None
    if path is not None and path.ending and path.moves:
        failing = next((n.index for n in graph.nodes if n.name == _node_of(path.moves[-1])), None)
    out = ["flowchart TD"]
    lines = [f"action {subject}"]
    for node in graph.nodes:
        opening, closing = _SHAPES.get(node.kind, ("[", "]"))
        label = node.name if node.kind in (NodeKind.ACTION, NodeKind.STATEMENT, NodeKind.START, NodeKind.DONE) \
            else f"{node.kind.value} {node.name}"
        if node.index in on_nodes:
            label += " · " + ", ".join(str(n) for n in on_nodes[node.index])
        if node.index == failing:
            label = f"✗ {label}"
        out.append(f"    n{node.index}{opening}{_quote(label)}{closing}")
    names = {node.index: node.name for node in graph.nodes}
    for number, edge in enumerate(graph.edges):
        said = "else" if edge.is_else else ("guarded" if edge.guard is not None else "")
        moves = edges.get((edge.source, edge.target))
        text = ", ".join(part for part in (said, ", ".join(f"{n}" for n in moves) if moves else "") if part)
        arrow = "==>" if moves else "-->"
        out.append(f"    n{edge.source} {arrow}" + (f"|{_quote(text)}|" if text else "") + f" n{edge.target}")
        if moves:
            out.append(f"    linkStyle {number} stroke-width:3px")
        lines.append(f"  {names[edge.source]} → {names[edge.target]}" + (f"  ({text})" if text else ""))
    walked_nodes = sorted({n for pair in edges for n in pair} | set(on_nodes))
    if walked_nodes:
        out.append("    classDef walked stroke-width:3px")
        out.append("    class " + ",".join(f"n{n}" for n in walked_nodes) + " walked")
    if failing is not None:
        out.append("    classDef failing stroke:#cf222e,stroke-width:3px,color:#cf222e")
        out.append(f"    class n{failing} failing")
    if path is not None:
        steps = ", ".join(f"{n} {_node_of(m)}" for n, m in enumerate(path.moves, 1))
        lines.append(f"witness {path.number}: {steps}" + (f" ✗ {path.ending}" if path.ending else ""))
    return Diagram("\n".join(out), tuple(lines))


_FIRED = re.compile(r"^transition: (\S+) -> (\S+)(?: \(event: (.*)\))?$")


def fired(trace: Sequence[str]) -> tuple[str, ...]:
    """The transitions a machine's witness fired, in order, as `source -> target (event)` (from its trace)."""
    found = (_FIRED.match(line) for line in trace)
    return tuple(f"{m.group(1)} -> {m.group(2)}" + (f" ({m.group(3)})" if m.group(3) else "")
                 for m in found if m is not None)


def _fits(transition: Transition, event: str) -> bool:
    """Whether the transition's trigger is the event the trace names (`accept Cold`, `time`, ...)."""
    kind = transition.trigger.kind
    if event.startswith("accept "):
        return kind in (TriggerKind.SIGNAL, TriggerKind.CALL) and \
            event.removeprefix("accept ").split("(")[0] == str(transition.trigger.signal)
    if event == "time":
        return kind in (TriggerKind.AFTER, TriggerKind.AT)
    return not event or kind.value == event.split()[0]


def machine_diagram(graph: StateGraph, subject: str, path: Path | None = None) -> Diagram:
    """The machine's states (composite ones nesting theirs, parallel regions side by side) and transitions;
    a witness's path (its moves the transitions it fired, `source -> target`) numbered on them in order,
    the state it ends in marked when it ends in a violation."""
    states = graph.states
    out = ["stateDiagram-v2"]
    lines = [f"state machine {subject}"]
    ids = {state.index: f"s{state.index}" for state in states}
    numbers: dict[int, list[int]] = {}
    last: int | None = None
    for number, move in enumerate(path.moves if path is not None else (), 1):
        found = _FIRED.match(f"transition: {move.replace(' (', ' (event: ', 1)}")
        if found is None:
            continue
        left, right, event = found.group(1), found.group(2), found.group(3) or ""
        between = [t for t in graph.transitions if left in (states[t.source].name, states[t.source].path)
                   and right in (states[t.target].name, states[t.target].path)]
        match = next((t for t in between if _fits(t, event)), between[0] if between else None)
        if match is not None:
            numbers.setdefault(match.index, []).append(number)
            last = match.target

    def region(index: int, depth: int) -> None:
        pad = "    " * depth
        drawn = graph.regions[index]
        if drawn.initial is not None:
            out.append(f"{pad}[*] --> {ids[drawn.initial]}")
        for member in drawn.states:
            state = states[member]
            out.append(f"{pad}{ids[member]} : {state.name}")
            if state.kind is StateKind.FINAL:
                out.append(f"{pad}{ids[member]} --> [*]")
            if state.regions:
                out.append(f"{pad}state {ids[member]} {{")
                for number, inner in enumerate(state.regions):
                    if number:
                        out.append(f"{pad}    --")
                    region(inner, depth + 1)
                out.append(f"{pad}}}")

    for number, index in enumerate(states[0].regions):
        if number:
            out.append("    --")
        region(index, 1)
    for transition in graph.transitions:
        trigger = transition.trigger.label()
        said = trigger + (" [guard]" if transition.guard is not None else "")
        if transition.index in numbers:
            said = ", ".join(str(n) for n in numbers[transition.index]) + (f" · {said}" if said else "")
        source, target = states[transition.source], states[transition.target]
        out.append(f"    {ids[source.index]} --> {ids[target.index]}" + (f" : {said}" if said else ""))
        lines.append(f"  {source.path or source.name} → {target.path or target.name}" + (f"  ({said})" if said else ""))
    walked = sorted({i for t in graph.transitions if t.index in numbers for i in (t.source, t.target)})
    if walked:
        out.append("    classDef walked stroke-width:3px")
        out.append("    class " + ",".join(ids[i] for i in walked) + " walked")
    if path is not None:
        if path.ending and last is not None:
            out.append("    classDef failing stroke:#cf222e,stroke-width:3px,color:#cf222e")
            out.append(f"    class {ids[last]} failing")
        steps = ", ".join(f"{n} {m}" for n, m in enumerate(path.moves, 1)) or "no transition fired"
        lines.append(f"witness {path.number}: {steps}" + (f" ✗ {path.ending}" if path.ending else ""))
    return Diagram("\n".join(out), tuple(lines))


def diagram_of(program: Program, name: str, kind: str, path: Path | None = None) -> Diagram:
    """The diagram of the action (kind "action") or machine (kind "state") the modeler named."""
    if kind == "state":
        element = program.state(name)
        return machine_diagram(lower_state(program.model, element), element.qualified_name, path)
    element = program.action(name)
    return action_diagram(program.graph(element), element.qualified_name, path)


def witness_path(check: Check, number: int) -> Path:
    """Witness `number` of a check as a path: its moves as the step table replayed them (every move), else
    as its choice lines give them."""
    witness = check.result.witnesses[number - 1]
    steps = check.steps[number - 1] if number - 1 < len(check.steps) else ()
    moves: Sequence[str] = [row.taken for row in steps] if steps else [c.taken for c in witness.choices]
    return Path(number, tuple(moves), witness.ending)


def chosen_witness(check: Check, given: str | None) -> int | None:
    """The witness `%show` draws: the one given, else the first violation's, else the first; None if none."""
    count = len(check.result.witnesses)
    if given is not None:
        return int(given) if given.isdigit() and 1 <= int(given) <= count else None
    if not count:
        return None
    violations = check.result.violations
    return check.number(violations[0].witness) or 1 if violations else 1


def show_command(session: Session, args: list[str]) -> Result:
    """`%show NAME [witness N]`: the action's graph (or the machine's states) as a diagram; after a check
    of that behavior, its witness's path drawn on it (the violation's, unless another is named)."""
    from opensysml_kernel.commands import COMMANDS

    usage = COMMANDS["show"].usage
    if len(args) not in (1, 3) or (len(args) == 3 and args[1] != "witness"):
        raise UsageError("%show needs an action or a state machine, and at most `witness <n>`", usage)
    program = session.program()
    kind = "action"
    try:
        subject = program.action(args[0]).qualified_name
    except SysmlError:
        if args[0] not in (n.rsplit("::", 1)[-1] for n in program.model.behaviors("state")) \
                and program.model.element(args[0]) is None:
            raise
        subject, kind = program.state(args[0]).qualified_name, "state"
    given = args[2] if len(args) == 3 else None
    report = session.last_check
    check = report.checks[0] if report is not None and report.checks else None
    path = None
    if check is not None and check.subject == subject:
        number = chosen_witness(check, given)
        if given is not None and number is None:
            raise UsageError(f"the last check of {subject} has {len(check.result.witnesses)} witnesses, not {given}",
                             usage)
        if number is not None and kind == "state":
            witness = check.result.witnesses[number - 1]
            path = Path(number, fired(witness.trace), witness.ending)
        elif number is not None:
            path = witness_path(check, number)
    elif given is not None:
        raise UsageError(f"no check of {subject} to take witness {given} from: check it first", usage)
    drawn = diagram_of(program, subject, kind, path)
    return Result(drawn.lines, Tone.INFO, markdown=drawn.markdown)
