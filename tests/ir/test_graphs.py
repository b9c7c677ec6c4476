"""ir.graphs.Footprint: the one union every footprint is summed with (a body from its statements, a
token's future from its nodes, a persistent set's members), and the laws a sum must not depend on:
the order and grouping of its terms, and the empty footprint adding nothing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import ir
import tests.property.conftest  # noqa: F401  (the Hypothesis profiles: ci by default, slow on demand)
from ir.footprint import statements_footprint
from ir.graphs import Footprint, NodeKind
from ir.lower import lower_action

_NAMES = st.frozensets(st.sampled_from(["a", "b", "c", "tank.level", "tank", "Ctl::x"]), max_size=4)

footprints = st.builds(Footprint, reads=_NAMES, writes=_NAMES, sends=st.booleans(), accepts=st.booleans(),
                       control=st.frozensets(st.integers(0, 5), max_size=3), dynamic=st.booleans(),
                       arrivals=st.frozensets(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=3))


@given(footprints, footprints, footprints)
def test_union_is_associative(a: Footprint[int], b: Footprint[int], c: Footprint[int]) -> None:
    assert (a | b) | c == a | (b | c)


@given(footprints, footprints)
def test_union_is_commutative(a: Footprint[int], b: Footprint[int]) -> None:
    assert a | b == b | a


@given(footprints)
def test_empty_footprint_is_the_identity_and_union_idempotent(a: Footprint[int]) -> None:
    assert a | Footprint() == a == Footprint() | a
    assert a | a == a


@given(footprints, footprints)
def test_union_keeps_everything_either_touches(a: Footprint[int], b: Footprint[int]) -> None:
    u = a | b
    assert u.reads == a.reads | b.reads and u.writes == a.writes | b.writes
    assert u.control == a.control | b.control and u.arrivals == a.arrivals | b.arrivals
    assert (u.sends, u.accepts, u.dynamic) == (a.sends or b.sends, a.accepts or b.accepts, a.dynamic or b.dynamic)


@given(footprints, footprints, st.integers(0, 3))
def test_placing_distributes_over_union(a: Footprint[int], b: Footprint[int], graph: int) -> None:
    assert (a | b).placed(graph) == a.placed(graph) | b.placed(graph)
    assert a.placed(graph).control == {(graph, c) for c in a.control}
    assert a.placed(graph).arrivals == {((graph, j), (graph, at)) for j, at in a.arrivals}


@given(footprints, footprints, _NAMES)
def test_without_distributes_over_union(a: Footprint[int], b: Footprint[int], own: frozenset[str]) -> None:
    assert (a | b).without(own) == a.without(own) | b.without(own)
    assert not (a.without(own).reads | a.without(own).writes) & own


_CONTROLLER = """
package plant {
    part def Heater;
    attribute def Level;
    action def control {
        attribute level = 3;
        attribute target = 5;
        attribute heat = 0;
        action regulate {
            if level < target { assign heat := target - level; }
            assign level := level + heat;
            send heat to Heater();
        }
    }
}
"""


def test_a_body_touches_the_union_of_its_statements() -> None:
    """A controller's regulating step (a branch, an assignment, a send) touches what its statements
    touch together; the send's `Heater()` constructs nothing, so nothing is dynamic."""
    model = ir.resolve([ir.parse(_CONTROLLER, "plant.sysml")])
    el = model.element("plant::control")
    assert el is not None
    g = lower_action(model, el)
    node = g.node_named("regulate")
    assert node is not None and node.kind is NodeKind.ACTION and node.body is not None
    statements = node.body.statements
    assert len(statements) == 3
    whole = statements_footprint(statements)
    parts = [statements_footprint((m,)) for m in statements]
    assert whole == parts[0] | parts[1] | parts[2]
    assert whole.reads == {"level", "target", "heat"}
    assert whole.writes == {"heat", "level"} and whole.sends and not whole.accepts and not whole.dynamic
    assert node.footprint.writes == {"plant::control::heat", "plant::control::level"}
