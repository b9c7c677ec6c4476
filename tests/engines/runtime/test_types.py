"""engines.runtime.types: a feature's declared type is enforced on every value it is given."""

from __future__ import annotations

from fractions import Fraction

import pytest

import ir
from engines.errors import TypeMismatch
from engines.runtime import Program, Run
from engines.runtime.values import Value, conforms


def _run(text: str, action: str) -> Run:
    run = Program(ir.resolve([ir.parse(text, "t.sysml")])).start_action(action)
    run.run_to_end()
    return run


def _assign(type_text: str, expr: str, extra: str = "") -> Run:
    return _run(f"""package t {{ private import ScalarValues::*; {extra}
        action a {{ attribute x : {type_text}; first start; then action set assign x := {expr}; then done; }} }}""",
                "t::a")


def _refused(type_text: str, expr: str, extra: str = "") -> str:
    text = f"""package t {{ private import ScalarValues::*; {extra}
        action a {{ attribute x : {type_text}; first start; then action set assign x := {expr}; then done; }} }}"""
    run = Program(ir.resolve([ir.parse(text, "t.sysml")])).start_action("t::a")
    with pytest.raises(TypeMismatch) as info:
        run.run_to_end()
    assert run.status == "failed"
    return str(info.value)


# ---------------------------------------------------------------- the rule, by value


@pytest.mark.parametrize(("scalar", "value", "ok"), [
    ("Integer", 4, True),
    ("Integer", Fraction(8, 2), True),  # 8/2 is the Integer 4 (Integer specializes Rational)
    ("Integer", Fraction(11, 2), False),
    ("Integer", 4.0, False),  # computed inexactly: a Real only
    ("Integer", True, False),
    ("Natural", 0, True),
    ("Natural", -1, False),
    ("Positive", 0, False),
    ("Rational", 3, True),
    ("Rational", Fraction(1, 3), True),
    ("Rational", 2 ** 0.5, False),
    ("Real", 2 ** 0.5, True),
    ("Real", 3, True),
    ("Real", "3", False),
    ("Boolean", True, True),
    ("Boolean", 1, False),
    ("String", "s", True),
    ("String", 1, False),
    ("NumericalValue", Fraction(1, 2), True),
    ("ScalarValue", "s", True),
])
def test_conforms_by_value(scalar: str, value: Value, ok: bool) -> None:
    assert conforms(scalar, value) is ok


# ---------------------------------------------------------------- assignment


@pytest.mark.parametrize(("type_text", "expr", "shown"), [
    ("Integer", "22 / 4", "5.5 is a Rational"),
    ("Integer", "1.5", "1.5 is a Rational"),
    ("Integer", '"7"', '"7" is a String'),
    ("Integer", "true", "true is a Boolean"),
    ("Natural", "3 - 5", "-2 is an Integer"),
    ("Boolean", "1", "1 is an Integer"),
    ("String", "2", "2 is an Integer"),
    ("Real", '"2.0"', '"2.0" is a String'),
    ("Rational", "false", "false is a Boolean"),
])
def test_an_assignment_outside_the_declared_type_is_a_typed_error(type_text: str, expr: str, shown: str) -> None:
    message = _refused(type_text, expr)
    article = "an" if type_text[0] in "AEIOU" else "a"
    assert message == f"assignment to x: type mismatch: x is {article} {type_text} and {shown}"


@pytest.mark.parametrize(("type_text", "expr", "spelled"), [
    ("Integer", "24 / 4", "6"),  # an integral Rational is the Integer
    ("Integer", "4.0", "4"),
    ("Natural", "3 - 3", "0"),
    ("Rational", "22 / 4", "5.5"),
    ("Real", "2", "2.0"),  # an Integer held by a Real reads as Real
    ("Real", "1 / 3", "1/3"),
    ("String", '"a" + "b"', '"ab"'),
    ("Boolean", "1 < 2", "true"),
])
def test_an_assignment_inside_the_declared_type_is_stored_as_that_type(type_text: str, expr: str,
                                                                        spelled: str) -> None:
    assert _assign(type_text, expr).outputs()["x"] == spelled


def test_an_enumeration_feature_holds_only_its_own_literals() -> None:
    extra = "enum def Mode { enum idle; enum busy; } enum def Light { enum red; enum green; }"
    assert _assign("Mode", "Mode::busy", extra).outputs()["x"] == "Mode::busy"
    assert _refused("Mode", "Light::red", extra) == \
        "assignment to x: type mismatch: x is a Mode and Light::red is a Light"
    assert _refused("Mode", "1", extra) == "assignment to x: type mismatch: x is a Mode and 1 is an Integer"


def test_an_enumerations_literals_named_done_or_first_are_its_own() -> None:
    # `done` read as the action's done node, `first` a syntax error: both are literals here
    extra = "enum def Phase { start; running; done; } enum def Rank { first; second; }"
    assert _assign("Phase", "Phase::done", extra).outputs()["x"] == "Phase::done"
    assert _assign("Rank", "Rank::first", extra).outputs()["x"] == "Rank::first"


def test_a_parameter_redefined_with_no_keyword_before_it_is_bound() -> None:
    # `:>> d = 4;` binds the performed action's input as `in :>> d = 4;` does (it was a syntax error)
    run = _run("""package t { private import ScalarValues::*;
        action def Add { in attribute d : Integer; out attribute r : Integer; assign r := d + 1; }
        action main { attribute got : Integer := 0; first start; then action step : Add { :>> d = 4; }
            then action copy { assign got := step.r; } then done; } }""", "t::main")
    assert run.outputs()["got"] == "5"


def test_a_type_specializing_a_scalar_type_is_checked_as_it() -> None:
    extra = "attribute def Count :> Natural;"
    assert _assign("Count", "2", extra).outputs()["x"] == "2"
    assert _refused("Count", "-2", extra) == "assignment to x: type mismatch: x is a Count and -2 is an Integer"


def test_every_element_of_a_sequence_is_checked() -> None:
    assert _assign("Integer[*]", "(1, 2)").outputs()["x"] == "(1, 2)"
    assert "x is an Integer and 0.5 is a Rational" in _refused("Integer[*]", "(1, 1 / 2)")


def test_types_the_runtime_does_not_model_are_not_checked() -> None:
    assert _assign("ISQ::MassValue", "3").outputs()["x"] == "3"


def test_an_initial_value_is_checked_too() -> None:
    text = """package t { private import ScalarValues::*;
        action a { attribute n : Integer := 7 / 2; first start; then done; } }"""
    with pytest.raises(TypeMismatch) as info:
        Program(ir.resolve([ir.parse(text, "t.sysml")])).start_action("t::a")
    assert str(info.value) == "initial value of n: type mismatch: n is an Integer and 3.5 is a Rational"


def test_a_typed_mismatch_fails_the_run_it_happens_in() -> None:
    err = _refused("Boolean", '"yes"')
    assert err.startswith("assignment to x:")


# ---------------------------------------------------------------- a billing pipeline with rationals


BILLING = """package billing {
    private import ScalarValues::*;
    private import RealFunctions::*;

    // 22 billable hours split among 4 people: each owes 11/2 hours, rounded half up to 6,
    // and 22 % 4 = 2 hours are left over for the next cycle.
    action bill {
        attribute hours : Integer := 22;
        attribute people : Integer := 4;
        attribute share : Rational;
        attribute billed : Integer;
        attribute carry : Natural;
        attribute rate : Rational := 3 / 2;
        attribute cost : Rational;

        first start;
        then action split assign share := hours / people;
        then action round_up assign billed := round(share);
        then action leftover assign carry := hours % people;
        then action price assign cost := share * rate;
        then done;
    }

    // The same split stored into an Integer: a modeler's mistake the run names.
    action truncating {
        attribute hours : Integer := 22;
        attribute perHead : Integer;
        first start;
        then action split assign perHead := hours / 4;
        then done;
    }
}"""


def test_a_billing_pipeline_keeps_its_rationals_exact() -> None:
    run = _run(BILLING, "billing::bill")
    assert run.status == "completed"
    out = run.outputs()
    assert out["share"] == "5.5"  # 22 / 4 = 11/2
    assert out["billed"] == "6"
    assert out["carry"] == "2"
    assert out["cost"] == "8.25"  # 11/2 * 3/2 = 33/4


def test_a_billing_mistake_is_named() -> None:
    run = Program(ir.resolve([ir.parse(BILLING, "billing.sysml")])).start_action("billing::truncating")
    with pytest.raises(TypeMismatch) as info:
        run.run_to_end()
    assert str(info.value) == "assignment to perHead: type mismatch: perHead is an Integer and 5.5 is a Rational"


PACKING = """package t {
    private import ScalarValues::*;
    action def Pack { in count : Integer; out boxes : Integer;
        first start; then action fill assign boxes := count / 4; then done; }
    action exact { attribute boxes : Integer := 0;
        first start; then action p : Pack { in count = 24; } then done; }
    action uneven { attribute boxes : Integer := 0;
        first start; then action p : Pack { in count = 22; } then done; }
    action wrong { first start; then action p : Pack { in count = "many"; } then done; }
}"""


@pytest.mark.parametrize(("action", "outcome"), [
    ("t::exact", "completed"),
    ("t::uneven", "assignment to boxes: type mismatch: boxes is an Integer and 5.5 is a Rational"),
    ("t::wrong", 'binding of count: type mismatch: count is an Integer and "many" is a String'),
])
def test_a_performed_action_checks_its_bound_inputs_and_its_own_writes(action: str, outcome: str) -> None:
    run = Program(ir.resolve([ir.parse(PACKING, "t.sysml")])).start_action(action)
    if outcome == "completed":
        run.run_to_end()
        assert run.outputs()["boxes"] == "6"
        return
    with pytest.raises(TypeMismatch) as info:
        run.run_to_end()
    assert str(info.value) == outcome


def test_an_accept_by_type_takes_only_values_of_that_type() -> None:
    text = """package t { private import ScalarValues::*;
        action a { attribute got : Integer := 0;
            first start; then fork f; then s; then r;
            action s { send -1 to r; send 5 / 2 to r; send 3 to r; }
            action r accept n : Natural;
            then action keep assign got := r.n;
            join j; succession s then j; succession keep then j; then done; } }"""
    assert _run(text, "t::a").outputs()["got"] == "3"
