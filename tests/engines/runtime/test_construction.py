"""Construction `new T(args)` and payload features: arguments bound to the type's features in
KerML's Type::feature order, checked against their types, read back after an accept."""

from __future__ import annotations

import pytest

import ir
from engines.errors import ConstructionError, TypeMismatch
from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program, Run

TYPES = """
    item def Ticket { attribute number : Integer; attribute vip : Boolean; }
    item def VipTicket :> Ticket { attribute lounge : String; }
    attribute def Reading { attribute celsius : Real; attribute sensor : String = "main"; }
    item def Ping;
"""


def _start(text: str, action: str = "t::a") -> Run:
    return Program(ir.resolve([ir.parse(text, "t.sysml")])).start_action(action)


def _built(expr: str) -> dict[str, str]:
    """The features of the instance `expr` builds, read back through a chain."""
    text = f"""package t {{ private import ScalarValues::*; {TYPES}
        action a {{
            attribute obj;
            first start;
            then action make assign obj := {expr};
            then done;
        }} }}"""
    run = _start(text)
    run.run_to_end()
    assert run.status == "completed", run.error
    ref = run.ctx.objects[int(run.outputs()["obj"].removeprefix("instance#"))]
    from engines.runtime.values import spell

    return {k: spell(v) for k, v in ref.values.items()}


def _refused(expr: str, error: type[Exception] = ConstructionError) -> str:
    text = f"""package t {{ private import ScalarValues::*; {TYPES}
        action a {{ attribute obj; first start; then action make assign obj := {expr}; then done; }} }}"""
    run = _start(text)
    with pytest.raises(error) as info:
        run.run_to_end()
    assert run.status == "failed"
    return str(info.value)


# ---------------------------------------------------------------- binding the arguments


def test_positional_arguments_bind_the_features_in_declaration_order() -> None:
    assert _built("new Ticket(7, true)") == {"number": "7", "vip": "true"}


def test_named_arguments_bind_by_name() -> None:
    assert _built("new Ticket(vip = false, number = 3)") == {"number": "3", "vip": "false"}


def test_an_invocation_of_a_definition_constructs_too() -> None:
    assert _built("Ticket(5, false)") == {"number": "5", "vip": "false"}


def test_own_features_come_before_inherited_ones() -> None:
    # KerML Type::feature: owned memberships first, then inherited ones
    assert _built('new VipTicket("A", 9, true)') == {"lounge": '"A"', "number": "9", "vip": "true"}


def test_an_attribute_def_payload_keeps_its_declared_values_for_features_left_out() -> None:
    assert _built("new Reading(21.5)") == {"celsius": "21.5", "sensor": '"main"'}
    assert _built('new Reading(celsius = 3, sensor = "aux")') == {"celsius": "3.0", "sensor": '"aux"'}


def test_no_arguments_leaves_the_features_unset() -> None:
    assert _built("new Ticket()") == {"number": "<unset>", "vip": "<unset>"}
    assert _built("new Ping()") == {}


def test_too_many_arguments_name_the_type() -> None:
    assert _refused("new Ticket(1, true, 3)") == \
        "new Ticket(1, true, 3): 3 arguments, and Ticket has 2 features (number, vip)"
    assert _refused("new Ping(1)") == "new Ping(1): 1 arguments, and Ping has 0 features (none)"


def test_a_missing_argument_names_the_type_and_the_feature() -> None:
    assert _refused("new Ticket(1)") == "new Ticket(1): no argument for feature 'vip', and it declares no value"


def test_a_name_that_is_no_feature_is_refused() -> None:
    assert _refused("new Ticket(seat = 1)") == "new Ticket: Ticket has no feature 'seat' (its features: number, vip)"


def test_an_argument_outside_its_feature_type_is_a_type_mismatch() -> None:
    message = _refused('new Ticket("seven", true)', TypeMismatch)
    assert message == 'new Ticket: argument for number: type mismatch: number is an Integer and "seven" is a String'


# ---------------------------------------------------------------- payloads after an accept


RACE = """package booking {
    private import ScalarValues::*;
    item def Ticket { attribute number : Integer; attribute vip : Boolean; }

    // Two agents race to hand the desk a ticket; the desk books whichever arrives first, and reads
    // both features from that one payload: seat 7 goes with a regular ticket, seat 9 with a VIP one.
    action race {
        attribute seat : Integer := 0;
        attribute vip : Boolean := false;

        first start;
        then fork f;
            then alice;
            then bob;
            then desk;

        action alice { send new Ticket(7, false) to desk; }
        action bob { send new Ticket(9, true) to desk; }
        action desk accept t : Ticket;
        then action book { assign seat := desk.t.number; assign vip := desk.t.vip; }

        join j;
        succession alice then j;
        succession bob then j;
        succession book then j;
        then done;
    }
}"""


def test_the_booked_seat_is_read_from_the_payload() -> None:
    run = _start(RACE, "booking::race")
    run.run_to_end()
    assert run.status == "completed"
    out = run.outputs()
    assert (out["seat"], out["vip"]) in {("7", "false"), ("9", "true")}


def test_every_schedule_books_one_whole_ticket() -> None:
    program = Program(ir.resolve([ir.parse(RACE, "booking.sysml")]))
    result = explore(program, "booking::race", Bounds(runs=2000))
    assert result.verdict is Verdict.COMPLETE
    reached = {(dict(o.values)["seat"], dict(o.values)["vip"]) for o in result.outcomes if o.error is None}
    assert reached == {("7", "false"), ("9", "true")}  # never a seat of one ticket with the other's flag
