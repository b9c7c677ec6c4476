"""Conjugated port types (issue 7, class 12): `port inlet : ~FeedPort;` resolves to FeedPort with its
features' directions swapped, and a connection is refused when both ends send (or both receive) a
feature, naming it; a conjugated end makes the pair connectable."""

from __future__ import annotations

import pytest

import ir
from ir.errors import PortMismatchError
from ir.ports import port_directions

RIG = """package Rig {
    item def Fuel;
    item def Ack;
    port def FeedPort {
        out item fuel : Fuel;
        in item ack : Ack;
        inout item level : Fuel;
    }
    port def SensePort { out item reading : Fuel; }
    part def Pump { port outlet : FeedPort; port probe : SensePort; }
    part def Engine { port inlet : ~FeedPort; port gauge : ~SensePort; }
    part def Skid {
        part pump : Pump;
        part engine : Engine;
        connect pump.outlet to engine.inlet;
        connect pump.probe to engine.gauge;
    }
}
"""


def submit(text: str) -> ir.Model:
    return ir.resolve([ir.parse(text, "rig.sysml")])


def port(model: ir.Model, name: str) -> ir.Element:
    el = model.element(name)
    assert el is not None
    return el


def test_a_conjugated_port_swaps_in_and_out_and_keeps_inout() -> None:
    model = submit(RIG)
    assert port_directions(model, port(model, "Rig::Pump::outlet")) == {"fuel": "out", "ack": "in", "level": "inout"}
    assert port_directions(model, port(model, "Rig::Engine::inlet")) == {"fuel": "in", "ack": "out", "level": "inout"}


def test_a_port_and_its_conjugate_connect() -> None:
    submit(RIG)


@pytest.mark.parametrize(("old", "new", "verb", "feature"), [
    ("port inlet : ~FeedPort;", "port inlet : FeedPort;", "receive", "ack"),  # ack is in on both; fuel out
    ("port outlet : FeedPort;", "port outlet : ~FeedPort;", "send", "ack"),  # both conjugated: ack out twice
    ("port gauge : ~SensePort;", "port gauge : SensePort;", "send", "reading"),
])
def test_a_connection_whose_ends_both_send_or_receive_a_feature_is_refused(old: str, new: str, verb: str,
                                                                          feature: str) -> None:
    text = RIG.replace(old, new)
    with pytest.raises(PortMismatchError) as caught:
        submit(text)
    err = caught.value
    assert f"both ends {verb} '{feature}'" in str(err) and "~" in str(err)
    assert err.path == "rig.sysml"
    assert "connect pump." in text.splitlines()[err.line - 1]


def test_ports_of_different_definitions_sharing_no_feature_connect() -> None:
    text = RIG.replace("connect pump.probe to engine.gauge;", "connect pump.probe to engine.inlet;")
    submit(text)


def test_only_a_port_definition_has_a_conjugate() -> None:
    with pytest.raises(PortMismatchError, match="only a port definition has a conjugate"):
        submit("package P { part def Tank { attribute level : ~ScalarValues::Integer; } }")


def test_an_unknown_conjugated_type_is_a_resolve_error() -> None:
    with pytest.raises(ir.ResolveError, match="FeedPrt") as caught:
        submit(RIG.replace("~FeedPort", "~FeedPrt"))
    assert "Rig::FeedPort" in caught.value.suggestions


def test_two_ports_of_one_machine_connected_to_each_other_are_not_direction_checked() -> None:
    """A connection between two ports the connecting element owns loops its own boundary back to
    itself; the corpus's machine sends via one such port and accepts at the other."""
    submit("""package Radio {
        item def Ping;
        port def PingPort { in item ping : Ping; }
        state Machine {
            port outPort : PingPort;
            port inPort : PingPort;
            connect outPort to inPort;
            entry; then idle;
            state idle;
        }
    }""")
