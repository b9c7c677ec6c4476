"""ir.lower.lower_action: the ActionGraph of corpus actions (nodes, successions, initial nodes,
attributes) and each node's Footprint (reads, writes, sends, accepts, control, dynamic)."""

from __future__ import annotations

import pytest

import ir
from ir import syntax as s
from ir.graphs import ActionGraph, Footprint, Node, NodeKind
from ir.lower import lower_action
from tests.corpus_cases import CONFORMANCE, CORPUS

pytestmark = pytest.mark.corpus

REDUCTION = CORPUS / "reduction"


def _graph(path: str, action: str) -> ActionGraph:
    file = CONFORMANCE / f"{path}.sysml" if "/" not in path else CORPUS / path
    model = ir.resolve([ir.parse(file.read_text(encoding="utf-8"), file.name)])
    el = model.element(action)
    assert el is not None, action
    return lower_action(model, el)


def _text(text: str, action: str) -> ActionGraph:
    model = ir.resolve([ir.parse(text, "t.sysml")])
    el = model.element(action)
    assert el is not None
    return lower_action(model, el)


def _nodes(g: ActionGraph) -> list[tuple[str, str]]:
    return [(n.kind.value, n.name) for n in g.nodes]


def _edges(g: ActionGraph) -> set[tuple[str, str]]:
    return {(g.nodes[e.source].name, g.nodes[e.target].name) for e in g.edges}


def _node(g: ActionGraph, name: str) -> Node:
    node = g.node_named(name)
    assert node is not None, name
    assert g.nodes[node.index] is node
    return node


def _fp(g: ActionGraph, name: str) -> Footprint:
    return _node(g, name).footprint


def _initial(g: ActionGraph) -> list[str]:
    return [g.nodes[i].name for i in g.initial]


def test_write_between_branch_nodes() -> None:
    g = _graph("action_explore_write_between_branch_nodes", "test::overtake")
    assert g.name == "test::overtake"
    assert _nodes(g) == [("start", "start"), ("fork", "split"), ("action", "left1"), ("action", "left2"),
                         ("action", "right"), ("join", "sync"), ("done", "done")]
    assert [n.index for n in g.nodes] == list(range(7))
    assert _edges(g) == {("start", "split"), ("split", "left1"), ("left1", "left2"), ("split", "right"),
                         ("left2", "sync"), ("right", "sync"), ("sync", "done")}
    assert len(g.edges) == 7
    assert all(e.guard is None and not e.is_else for e in g.edges)
    assert _initial(g) == ["start"]
    assert [(a.name, a.type_text) for a in g.attributes] == [("x", "Integer"), ("y", "Integer")]
    assert [a.value_kind for a in g.attributes] == [s.FeatureValueKind.BOUND] * 2
    join = _node(g, "sync").index
    assert _fp(g, "left1") == Footprint(writes=frozenset({"test::overtake::x"}))
    left2 = _fp(g, "left2")
    assert left2.reads == {"test::overtake::x"}
    assert left2.writes == {"test::overtake::y"}
    assert left2.arrivals == {(join, _node(g, "left2").index)} and left2.control == frozenset()
    assert _fp(g, "right").writes == {"test::overtake::x"}
    assert _fp(g, "right").arrivals == {(join, _node(g, "right").index)}
    assert _fp(g, "left1").arrivals == frozenset()  # left1 reaches left2, not the join
    for name in ("start", "split", "sync", "done"):
        assert _fp(g, name) == Footprint()


def test_outgoing_and_incoming() -> None:
    g = _graph("action_explore_write_between_branch_nodes", "test::overtake")
    split, join = _node(g, "split").index, _node(g, "sync").index
    assert sorted(g.nodes[e.target].name for e in g.outgoing(split)) == ["left1", "right"]
    assert sorted(g.nodes[e.source].name for e in g.incoming(join)) == ["left2", "right"]
    assert g.node_named("nowhere") is None


def test_fork_lost_update_reads_and_writes_the_shared_counter() -> None:
    g = _graph("action_explore_body_fork_lost_update", "test::ForkPlain")
    assert _nodes(g) == [("start", "start"), ("fork", "f"), ("action", "a"), ("action", "b"),
                         ("join", "j"), ("done", "done")]
    assert _edges(g) == {("start", "f"), ("f", "a"), ("f", "b"), ("a", "j"), ("b", "j"), ("j", "done")}
    assert _initial(g) == ["start"]
    assert [(a.name, a.value_kind) for a in g.attributes] == [("c", s.FeatureValueKind.INITIAL)]
    j = _node(g, "j").index
    for name in ("a", "b"):
        fp = _fp(g, name)
        # the node's own attribute t is not a read of the action's features; the step itself, what a
        # path through it (`a.t`) reads, is written by its every move
        assert fp == Footprint(frozenset({"test::ForkPlain::c"}), frozenset({"test::ForkPlain::c", f"test::ForkPlain::{name}"}),
                               arrivals=frozenset({(j, _node(g, name).index)}))
        body = _node(g, name).body
        assert body is not None and [a.name for a in body.attributes] == ["t"]
        assert len(body.statements) == 1 and body.flow is None and body.performs is None


def test_decision_else_branch() -> None:
    g = _graph("action_decision_else_branch", "test::watchdog")
    assert _nodes(g) == [("start", "start"), ("action", "sendBatteryLow"), ("action", "idle"),
                         ("done", "done"), ("decide", "check")]
    assert _edges(g) == {("start", "check"), ("sendBatteryLow", "done"), ("idle", "done"),
                         ("check", "sendBatteryLow"), ("check", "idle")}
    check = _node(g, "check").index
    out = {g.nodes[e.target].name: e for e in g.outgoing(check)}
    assert out["sendBatteryLow"].guard is not None and not out["sendBatteryLow"].is_else
    assert out["idle"].guard is None and out["idle"].is_else
    assert _initial(g) == ["start"]
    # the guard is a read of the decision (its source), not of the branch it leads to
    assert _fp(g, "check").reads == {"test::watchdog::battery"}
    assert _fp(g, "check").writes == frozenset()
    assert _fp(g, "sendBatteryLow").reads == frozenset()
    assert _fp(g, "sendBatteryLow").writes == {"test::watchdog::alerted"}
    done = _node(g, "done").index
    assert _fp(g, "idle").control == {done}  # two successions arrive at done


def test_decision_then_merge() -> None:
    g = _graph("action_decision_merge_guarded_branch", "test::route")
    assert _nodes(g) == [("start", "start"), ("action", "low"), ("action", "normal"), ("merge", "converge"),
                         ("done", "done"), ("decide", "choose")]
    assert _edges(g) == {("start", "choose"), ("low", "converge"), ("normal", "converge"),
                         ("converge", "done"), ("choose", "low"), ("choose", "normal")}
    merge = _node(g, "converge").index
    assert _fp(g, "low").control == {merge}
    assert _fp(g, "normal").control == {merge}
    assert _fp(g, "choose").reads == {"test::route::battery"}
    assert [e.is_else for e in g.outgoing(_node(g, "choose").index)] == [False, True]


def test_two_guarded_successions_out_of_an_action() -> None:
    g = _graph("action_succession_guard_two_hold", "test::route")
    assert _nodes(g) == [("action", "check"), ("action", "alert"), ("action", "idle")]
    assert _edges(g) == {("check", "alert"), ("check", "idle")}
    assert all(e.guard is not None and not e.is_else for e in g.edges)
    assert _initial(g) == ["check"]
    assert [a.name for a in g.attributes] == ["level", "low", "high"]
    assert _fp(g, "check").reads == {"test::route::level"}
    assert _fp(g, "check").writes == {"test::route::level"}
    assert _fp(g, "alert") == Footprint(writes=frozenset({"test::route::high"}))
    assert _fp(g, "idle") == Footprint(writes=frozenset({"test::route::low"}))


def test_a_guard_alone_is_a_read_of_its_source() -> None:
    g = _text("""package t { action g {
        attribute ready : Boolean = false;
        attribute n : Integer = 0;
        action a;
        action b assign n := 1;
        first a;
        succession first a if ready then b;
    } }""", "t::g")
    assert _fp(g, "a").reads == {"t::g::ready"}
    assert _fp(g, "b").reads == frozenset()


def test_unordered_nodes_are_all_initial_and_join_once() -> None:
    g = _graph("action_unordered_join_once", "test::count")
    assert _nodes(g) == [("action", "a"), ("action", "b"), ("action", "c")]
    assert _edges(g) == {("a", "c"), ("b", "c")}
    assert _initial(g) == ["a", "b"]
    assert [a.name for a in g.attributes] == ["total", "seen", "cRuns", "doneA", "doneB"]
    c = _node(g, "c")
    assert c.body is not None and len(c.body.statements) == 3  # `then assign` continues c's own list
    assert c.footprint.reads == {"test::count::total", "test::count::cRuns"}
    assert c.footprint.writes == {"test::count::seen", "test::count::cRuns", "test::count::total"}
    assert _fp(g, "a").writes == {"test::count::total", "test::count::doneA"}
    assert _fp(g, "a").control == {c.index}
    assert _fp(g, "b").control == {c.index}


def test_accept_and_send_nodes() -> None:
    g = _graph("action_accept_two_waiters", "test::communicator")
    assert [n.name for n in g.nodes] == ["start", "split", "listenNumber", "listenText", "gate", "sender",
                                         "sync", "recorder", "done"]
    assert _node(g, "sync").kind is NodeKind.JOIN
    assert _edges(g) == {("start", "split"), ("split", "listenNumber"), ("split", "listenText"),
                         ("split", "gate"), ("listenNumber", "sync"), ("listenText", "sync"),
                         ("gate", "sender"), ("sender", "sync"), ("sync", "recorder"), ("recorder", "done")}
    sync = _node(g, "sync").index
    for name, payload in (("listenNumber", "n"), ("listenText", "t")):
        fp = _fp(g, name)
        assert fp.accepts and not fp.sends
        assert fp.writes == {payload, f"test::communicator::{name}"}  # the payload, and the step holding it
        assert fp.arrivals == {(sync, _node(g, name).index)}
    sender = _fp(g, "sender")
    assert sender.sends and not sender.accepts
    assert sender.reads == {"test::communicator::listenNumber", "test::communicator::listenText"}  # the addresses
    assert sender.writes == frozenset()
    assert _fp(g, "gate") == Footprint()
    recorder = _fp(g, "recorder")
    assert not recorder.sends and not recorder.accepts
    assert recorder.writes == {"test::communicator::number", "test::communicator::message"}


def test_a_node_whose_branches_declare_nodes_is_one_statement_node() -> None:
    g = _graph("action_block_flow_sibling_pins", "test::choose")
    assert _nodes(g) == [("start", "start"), ("action", "decide"), ("done", "done")]
    assert _edges(g) == {("start", "decide"), ("decide", "done")}
    assert [(a.name, a.direction) for a in g.attributes] == [("value", "in"), ("total", "out")]
    assert g.attributes[1].value is None
    fp = _fp(g, "decide")
    assert "test::choose::value" in fp.reads
    assert {"p.v", "q.v"} <= fp.reads  # a sibling's pin read through the node's name
    assert "test::choose::total" in fp.writes
    body = _node(g, "decide").body
    assert body is not None and body.flow is None and len(body.statements) == 1
    assert isinstance(body.statements[0], s.If)


def test_then_between_statements_makes_a_subflow() -> None:
    g = _graph("action_explore_statement_order_then", "test::Then")
    assert _nodes(g) == [("action", "s"), ("done", "done"), ("start", "start")]
    assert _edges(g) == {("start", "s"), ("s", "done")}
    assert _initial(g) == ["start"]
    node = _node(g, "s")
    assert node.body is not None and node.body.flow is not None
    flow = node.body.flow
    assert _nodes(flow) == [("statement", "assign x"), ("statement", "assign y")]
    assert _edges(flow) == {("assign x", "assign y")}
    assert _initial(flow) == ["assign x"]
    # the node's footprint is the union of its subflow's
    assert node.footprint.reads == {"test::Then::x"}
    assert node.footprint.writes == {"test::Then::x", "test::Then::y", "test::Then::s"}  # and the step itself


def test_ordered_substeps_are_a_subflow_with_its_own_start() -> None:
    g = _graph("action_explore_body_ordered_substeps", "test::Ordered")
    assert _nodes(g) == [("start", "start"), ("fork", "f"), ("action", "a"), ("action", "b"),
                         ("join", "j"), ("done", "done")]
    assert _edges(g) == {("start", "f"), ("f", "a"), ("f", "b"), ("a", "j"), ("b", "j"), ("j", "done")}
    a = _node(g, "a")
    assert a.body is not None and a.body.flow is not None
    flow = a.body.flow
    assert flow.name == "a"
    assert _nodes(flow) == [("action", "a1"), ("action", "a2"), ("done", "done"), ("start", "start")]
    assert _edges(flow) == {("start", "a1"), ("a1", "a2"), ("a2", "done")}
    assert _initial(flow) == ["start"]
    log = "test::Ordered::log"
    assert a.footprint == Footprint(frozenset({log}), frozenset({log, "test::Ordered::a"}),  # and the step
                                    arrivals=frozenset({(_node(g, "j").index, a.index)}))
    assert _fp(g, "b").writes == {log}
    assert _fp(g, "b").reads == {log}
    assert _node(g, "b").body is not None and _node(g, "b").body.flow is None  # type: ignore[union-attr]


def test_inner_and_outer_nodes_name_a_feature_alike() -> None:
    g = _graph("action_explore_body_ordered_substeps", "test::Ordered")
    a = _node(g, "a")
    assert a.body is not None and a.body.flow is not None
    a1 = _fp(a.body.flow, "a1")
    assert a1.writes & _fp(g, "b").writes


def test_typed_usages_performing_another_action_are_dynamic() -> None:
    g = _graph("action_explore_body_typed_callees", "test::TypedCallees")
    assert _nodes(g) == [("start", "start"), ("fork", "f"), ("action", "a"), ("action", "b"),
                         ("join", "j"), ("action", "look"), ("done", "done")]
    assert _edges(g) == {("start", "f"), ("f", "a"), ("f", "b"), ("a", "j"), ("b", "j"), ("j", "look"),
                         ("look", "done")}
    for name in ("a", "b"):
        node = _node(g, name)
        assert node.body is not None and node.body.performs is not None
        assert node.body.performs.qualified_name == "test::Inc"
        assert node.footprint.dynamic
        assert node.footprint.arrivals == {(_node(g, "j").index, node.index)}
    look = _fp(g, "look")
    assert not look.dynamic
    assert "test::counter.c" in look.reads and "test::counter" in look.reads  # a chain by its path and its head
    assert look.writes == {"test::TypedCallees::seen"}


def test_join_of_three_unequal_branches() -> None:
    g = _graph("reduction/por_join.sysml", "test::gather")
    assert [n.name for n in g.nodes] == ["start", "split", "a", "b1", "b2", "c1", "c2", "c3", "sync", "after", "done"]
    assert _edges(g) == {("start", "split"), ("split", "a"), ("split", "b1"), ("split", "c1"), ("b1", "b2"),
                         ("c1", "c2"), ("c2", "c3"), ("a", "sync"), ("b2", "sync"), ("c3", "sync"),
                         ("sync", "after"), ("after", "done")}
    sync = _node(g, "sync").index
    arrived, last = "test::gather::arrived", "test::gather::last"
    for name in ("a", "b2", "c3"):
        assert _fp(g, name) == Footprint(frozenset({arrived}), frozenset({arrived, last}),
                                         arrivals=frozenset({(sync, _node(g, name).index)}))
    for name in ("b1", "c1", "c2"):
        assert _fp(g, name) == Footprint()
    assert _fp(g, "after") == Footprint(frozenset({arrived}), frozenset({"test::gather::seen"}))


def test_a_guard_read_makes_the_decision_read_what_the_writer_writes() -> None:
    g = _graph("reduction/por_guard_read.sysml", "test::gated")
    assert [n.name for n in g.nodes] == ["start", "split", "writer", "other", "lo", "hi", "chosen", "sync",
                                         "done", "d"]
    assert _node(g, "d").kind is NodeKind.DECIDE
    assert _node(g, "chosen").kind is NodeKind.MERGE
    d = _node(g, "d").index
    assert sorted(g.nodes[e.target].name for e in g.outgoing(d)) == ["hi", "lo"]
    assert all(e.guard is not None and not e.is_else for e in g.outgoing(d))
    x = "test::gated::x"
    assert _fp(g, "d").reads == {x}
    assert _fp(g, "writer").writes == {x}
    assert not (_fp(g, "other").writes & _fp(g, "d").reads)
    chosen, sync = _node(g, "chosen").index, _node(g, "sync").index
    assert _fp(g, "lo").control == _fp(g, "hi").control == {chosen}
    assert _fp(g, "chosen").arrivals == {(sync, chosen)}


def test_streaming_flow_producer_sends_consumer_accepts() -> None:
    g = _graph("reduction/por_streaming_flow.sysml", "test::stream")
    assert [n.name for n in g.nodes] == ["start", "split", "producer", "consumer", "sync", "done"]
    assert len(g.flows) == 1
    producer, consumer = _node(g, "producer"), _node(g, "consumer")
    assert producer.footprint.sends and not producer.footprint.accepts
    assert consumer.footprint.accepts and not consumer.footprint.sends
    assert {"test::stream::seen", "test::stream::final"} <= consumer.footprint.writes
    assert producer.body is not None and producer.body.flow is not None
    assert [a.name for a in producer.body.attributes] == ["value"]
    assert _nodes(producer.body.flow) == [("start", "start"), ("action", "emit"), ("action", "tell"),
                                          ("done", "done")]
    assert consumer.body is not None and consumer.body.flow is not None
    assert [n.name for n in consumer.body.flow.nodes] == ["start", "take", "wait", "retake", "done"]
    assert _fp(consumer.body.flow, "wait").accepts
    assert _fp(producer.body.flow, "tell").sends


@pytest.mark.xfail(strict=True, reason="a flow's delivery is in no footprint: the producer's step writing its "
                                       "out pin and the consumer's step reading the in pin the flow streams it "
                                       "to share no name, so they look independent (the reference counts "
                                       "'out pins delivered' as writes)")
def test_a_streamed_pin_relates_the_writer_and_the_reader() -> None:
    g = _graph("reduction/por_streaming_flow.sysml", "test::stream")
    producer, consumer = _node(g, "producer"), _node(g, "consumer")
    assert producer.body is not None and producer.body.flow is not None
    assert consumer.body is not None and consumer.body.flow is not None
    emit = _fp(producer.body.flow, "emit")
    take = _fp(consumer.body.flow, "take")
    assert emit.writes & take.reads


def test_a_succession_to_an_undefined_node_is_refused_when_submitted() -> None:
    """An unknown succession end is a ResolveError at submission (issue 7, class 14), with the words
    the lowering used for it (the corpus's action_succession_unknown_target quotes them)."""
    text = "package t { action a {\n  action bump;\n  succession first bump then nowhere;\n} }"
    with pytest.raises(ir.ResolveError) as info:
        ir.resolve([ir.parse(text, "t.sysml")])
    assert str(info.value) == 't.sysml:3:3: undefined target node "nowhere" in action t::a'
    assert (info.value.line, info.value.column, info.value.what) == (3, 3, "succession target")


def test_lowering_something_that_is_not_an_action() -> None:
    model = ir.resolve([ir.parse("package t { attribute x; }", "t.sysml")])
    el = model.element("t")
    assert el is not None
    with pytest.raises(ir.LoweringError) as info:
        lower_action(model, el)
    assert str(info.value) == "t is not an action"


def test_graphs_are_immutable() -> None:
    g = _graph("action_explore_write_between_branch_nodes", "test::overtake")
    with pytest.raises(AttributeError):
        g.nodes = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        g.nodes[0].footprint.reads = frozenset()  # type: ignore[misc]
