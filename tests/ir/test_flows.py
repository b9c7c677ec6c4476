"""ir.lower.flows.ModelGraphs: every graph a run enters comes finished from lowering (a node's
statements unordered, a branch's statements unordered but for declarations, a typed usage's statements beside the action
it performs, a terminate usage's implicit terminate), and the runtime builds none itself."""

from __future__ import annotations

import ast
from pathlib import Path

import ir
from ir import syntax as s
from ir.graphs import ActionGraph, Node
from ir.lower.flows import IMPLICIT_TERMINATE, ModelGraphs

RUNTIME = Path(__file__).resolve().parents[2] / "engines" / "runtime"

# A filling line: a pump performed with a log line of its own, a level check, a terminating halt.
_LINE = """
package line {
    private import ScalarValues::*;
    action def Pump {
        out attribute pumped : Integer = 0;
        first start;
        then action prime { assign pumped := 1; }
        then action run { assign pumped := pumped + 1; }
        then done;
    }
    action fillLine {
        attribute level : Integer = 2;
        attribute log : Integer = 0;
        attribute stopped : Integer = 0;
        first start;
        then action fill : Pump { assign log := log + 1; }
        then action check {
            if level < 5 { assign level := level + 1; assign log := log + 10; assign stopped := 0; }
        }
        then action halt terminate { assign stopped := 1; }
    }
}
"""


def _line() -> tuple[ModelGraphs, ActionGraph]:
    model = ir.resolve([ir.parse(_LINE, "line.sysml")])
    graphs = ModelGraphs(model)
    el = model.element("line::fillLine")
    assert el is not None
    return graphs, graphs.graph(el)


def _node(g: ActionGraph, name: str) -> Node:
    node = g.node_named(name)
    assert node is not None, name
    return node


def _well_formed(g: ActionGraph) -> None:
    """Nodes numbered by position, every succession and initial node naming one of them."""
    assert [n.index for n in g.nodes] == list(range(len(g.nodes)))
    assert all(0 <= e.source < len(g.nodes) and 0 <= e.target < len(g.nodes) for e in g.edges)
    assert all(0 <= i < len(g.nodes) for i in g.initial)


def test_merged_flow_puts_the_usages_statements_beside_the_performed_flow() -> None:
    graphs, g = _line()
    fill = _node(g, "fill")
    merged = graphs.merged_flow(fill)
    _well_formed(merged)
    assert [n.name for n in merged.nodes] == ["start", "prime", "run", "done", "assign log"]
    names = {(merged.nodes[e.source].name, merged.nodes[e.target].name) for e in merged.edges}
    assert names == {("start", "prime"), ("prime", "run"), ("run", "done")}
    # the log line starts with the pump, ordered by no succession
    assert [merged.nodes[i].name for i in merged.initial] == ["start", "assign log"]
    assert merged.scope is not None and merged.scope.qualified_name == "line::Pump"
    assert graphs.merged_flow(fill) is merged  # lowered once, shared by every run


def test_statement_flow_of_a_terminate_usage_holds_its_implicit_terminate() -> None:
    graphs, g = _line()
    flow = graphs.statement_flow(_node(g, "halt"))
    _well_formed(flow)
    assert [n.name for n in flow.nodes] == ["assign stopped", "terminate"]
    assert flow.nodes[-1].decl is IMPLICIT_TERMINATE
    assert not flow.edges and flow.initial == (0, 1)  # unordered with the usage's statements


def test_clause_flow_leaves_a_branchs_statements_unordered() -> None:
    graphs, g = _line()
    check = _node(g, "check")
    assert check.body is not None and isinstance(check.body.statements[0], s.If)
    branch = check.body.statements[0].then
    el = g.scope
    assert el is not None
    clause = graphs.clause_flow(el, branch, "check")
    _well_formed(clause)
    assert [n.name for n in clause.nodes] == ["assign level", "assign log", "assign stopped"]
    assert not clause.edges and clause.initial == (0, 1, 2)
    assert graphs.clause_flow(el, branch, "check") is clause  # lowered once


# A till: a pass books an item, logs it, waits for a price and adds it; the log line is declared.
_TILL = """
package till {
    private import ScalarValues::*;
    action def Log { in attribute n : Integer; }
    action serve {
        attribute items : Integer = 0;
        attribute total : Integer = 0;
        attribute lines : Integer = 0;
        attribute open : Boolean = true;
        first start;
        then action pass {
            while open {
                assign items := items + 1;
                action note : Log { in n = items; }
                assign open := false;
                accept price : Integer;
                assign total := total + price;
            }
        }
        then done;
    }
}
"""


def test_a_declaration_keeps_its_place_in_a_clause() -> None:
    """What is written after a local usage or an accept's payload starts after it; what is written
    before it stays unordered with it."""
    model = ir.resolve([ir.parse(_TILL, "till.sysml")])
    graphs = ModelGraphs(model)
    el = model.element("till::serve")
    assert el is not None
    node = _node(graphs.graph(el), "pass")
    assert node.body is not None and isinstance(node.body.statements[0], s.While)
    clause = graphs.clause_flow(el, node.body.statements[0].body, "pass")
    _well_formed(clause)
    names = [n.name for n in clause.nodes]
    assert names == ["assign items", "note", "assign open", "usage_action", "assign total"], names
    assert {(names[e.source], names[e.target]) for e in clause.edges} == {
        ("note", "assign open"), ("note", "usage_action"), ("usage_action", "assign total")}
    assert [names[i] for i in clause.initial] == ["assign items", "note"]


def _calls(tree: ast.AST) -> set[str]:
    return {n.func.id if isinstance(n.func, ast.Name) else n.func.attr
            for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))}


def test_the_runtime_builds_no_graph() -> None:
    """No runtime module lowers, or makes or edits a graph, node or succession: it enters what
    ir.lower hands it."""
    builders = {"ActionGraph", "Node", "Edge", "GraphNode", "lower_action", "lower_block"}
    files = sorted(RUNTIME.rglob("*.py"))
    assert files
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {alias.asname or alias.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                    and n.module in ("ir.graphs", "ir.lower", "ir.lower.actions") for alias in n.names}
        assert not (imported & {"lower_action", "lower_block"}), path
        assert not (_calls(tree) & builders & imported), path
