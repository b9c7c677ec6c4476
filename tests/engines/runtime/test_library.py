"""ir.library's function table: one test per function (called through the runtime, as a model calls
it), the three ways a model names a function, and a sensor model computing with them."""

from __future__ import annotations

from fractions import Fraction

import pytest

import ir
from engines.errors import DivisionByZero, EvaluationError, IndexOutOfRange, TypeMismatch
from engines.runtime import Program
from engines.runtime.calls import Body, call_library
from engines.runtime.values import Sequence, Value
from ir.library import FUNCTION_BY_NAME, FUNCTIONS

S = Sequence
F = Fraction

# Each function: (arguments, expected result); an expected exception type for a refusal.
CASES: dict[str, list[tuple[list[Value], object]]] = {
    "BaseFunctions::==": [([2, F(2)], True), ([1, True], False)],
    "BaseFunctions::!=": [([2, 3], True), ([S((1,)), 1], False)],
    "BaseFunctions::===": [(["a", "a"], True)],
    "BaseFunctions::!==": [([True, False], True)],
    "BaseFunctions::ToString": [([12], "12"), (["s"], "s"), ([True], "true"), ([S((1, 2))], EvaluationError)],
    "SequenceFunctions::#": [([S((4, 5, 6)), 2], 5), ([S((4,)), 2], IndexOutOfRange)],
    "SequenceFunctions::equals": [([S((1, 2)), S((1, 2))], True), ([S((1, 2)), S((2, 1))], False)],
    "SequenceFunctions::same": [([S(("a",)), "a"], True)],
    "SequenceFunctions::size": [([S((1, 2, 3))], 3), ([S(())], 0), ([7], 1), ([None], 0)],
    "SequenceFunctions::isEmpty": [([S(())], True), ([S((0,))], False)],
    "SequenceFunctions::notEmpty": [([S(())], False), ([3], True)],
    "SequenceFunctions::includes": [([S((1, 2, 3)), S((3, 1))], True), ([S((1, 2)), 4], False),
                                    ([S((1,)), True], False)],
    "SequenceFunctions::includesOnly": [([S((1, 2)), S((2, 1, 1))], True), ([S((1, 2)), 1], False)],
    "SequenceFunctions::excludes": [([S((1, 2)), 3], True), ([S((1, 2)), S((3, 2))], False)],
    "SequenceFunctions::union": [([S((1, 2)), S((2, 3))], S((1, 2, 2, 3)))],
    "SequenceFunctions::intersection": [([S((1, 2, 3, 2)), S((2, 3))], S((2, 3, 2)))],
    "SequenceFunctions::including": [([S((1, 2)), 3], S((1, 2, 3)))],
    "SequenceFunctions::includingAt": [([S((1, 3)), 2, 2], S((1, 2, 3))), ([S((1,)), 2, 2], S((1, 2))),
                                       ([S((1,)), 2, 4], IndexOutOfRange)],
    "SequenceFunctions::excluding": [([S((1, 2, 1, 3)), 1], S((2, 3)))],
    "SequenceFunctions::excludingAt": [([S((1, 2, 3, 4)), 2, 3], S((1, 4))), ([S((1, 2)), 1], S((2,)))],
    "SequenceFunctions::subsequence": [([S((1, 2, 3, 4)), 2, 3], S((2, 3))), ([S((1, 2, 3)), 2], S((2, 3))),
                                       ([S((1, 2)), 1, 5], IndexOutOfRange)],
    "SequenceFunctions::head": [([S((7, 8))], 7), ([S(())], S(()))],
    "SequenceFunctions::tail": [([S((7, 8, 9))], S((8, 9))), ([S(())], S(()))],
    "SequenceFunctions::last": [([S((7, 8))], 8), ([S(())], S(()))],
    "ControlFunctions::collect": [([S((1, 2)), Body(lambda x: (x, x * 10))], S((1, 10, 2, 20)))],
    "ControlFunctions::select": [([S((1, 5, 2, 7)), Body(lambda x: x > 2)], S((5, 7))),
                                 ([S((1,)), Body(lambda x: x)], EvaluationError)],
    "ControlFunctions::reject": [([S((1, 5, 2, 7)), Body(lambda x: x > 2)], S((1, 2)))],
    "ControlFunctions::forAll": [([S((1, 5)), Body(lambda x: x > 0)], True), ([S(()), Body(lambda x: False)], True)],
    "ControlFunctions::exists": [([S((1, 5)), Body(lambda x: x > 4)], True), ([S(()), Body(lambda x: True)], False)],
    "ControlFunctions::reduce": [([S((1, 2, 3)), Body(lambda a, b: a * 10 + b)], 123), ([S(()), Body(max)], S(()))],
    "NumericalFunctions::isZero": [([0], True), ([F(1, 2)], False)],
    "NumericalFunctions::isUnit": [([F(1)], True), ([2], False)],
    "NumericalFunctions::abs": [([-3], 3), ([F(-1, 2)], F(1, 2))],
    "NumericalFunctions::max": [([2, F(5, 2)], F(5, 2))],
    "NumericalFunctions::min": [([2, F(5, 2)], 2)],
    "NumericalFunctions::sum": [([S((1, 2, 3))], 6), ([S(())], 0)],
    "NumericalFunctions::product": [([S((2, 3, 4))], 24), ([S(())], 1)],
    "RealFunctions::abs": [([F(-5, 2)], F(5, 2)), (["x"], TypeMismatch)],
    "RealFunctions::max": [([F(1, 3), F(1, 4)], F(1, 3))],
    "RealFunctions::min": [([F(1, 3), F(1, 4)], F(1, 4))],
    "RealFunctions::sum": [([S((F(1, 2), F(1, 3)))], F(5, 6))],
    "RealFunctions::product": [([S((F(1, 2), 4))], F(2))],
    "RealFunctions::sqrt": [([F(9, 4)], F(3, 2)), ([16], F(4)), ([2], 2 ** 0.5), ([-1], EvaluationError)],
    "RealFunctions::floor": [([F(-5, 2)], -3), ([F(5, 2)], 2)],
    "RealFunctions::round": [([F(5, 2)], 3), ([F(-5, 2)], -2), ([F(12, 5)], 2)],
    "RealFunctions::ToInteger": [([F(-7, 2)], -3)],
    "RealFunctions::ToString": [([F(5, 2)], "2.5"), ([F(1, 3)], "1/3"), ([F(4)], "4.0")],
    "RealFunctions::ToRational": [([0.5], F(1, 2))],
    "RealFunctions::ToReal": [(["2.25"], F(9, 4)), (["two"], EvaluationError)],
    "RationalFunctions::abs": [([F(-1, 3)], F(1, 3))],
    "RationalFunctions::max": [([F(1, 3), 1], 1)],
    "RationalFunctions::min": [([F(1, 3), 1], F(1, 3))],
    "RationalFunctions::sum": [([S((F(1, 3), F(2, 3)))], F(1))],
    "RationalFunctions::product": [([S((F(2, 3), 3))], F(2)), ([S((2 ** 0.5,))], TypeMismatch)],
    "RationalFunctions::rat": [([6, 4], F(3, 2)), ([1, 0], DivisionByZero)],
    "RationalFunctions::numer": [([F(6, 4)], 3)],
    "RationalFunctions::denom": [([F(6, 4)], 2)],
    "RationalFunctions::gcd": [([12, 18], 6)],
    "RationalFunctions::floor": [([F(7, 2)], 3)],
    "RationalFunctions::round": [([F(7, 2)], 4)],
    "IntegerFunctions::abs": [([-4], 4), ([F(1, 2)], TypeMismatch)],
    "IntegerFunctions::max": [([3, 9], 9)],
    "IntegerFunctions::min": [([3, 9], 3)],
    "IntegerFunctions::sum": [([S((1, -1, 5))], 5)],
    "IntegerFunctions::product": [([S((2, -3))], -6)],
    "IntegerFunctions::ToNatural": [([3], 3), ([-3], EvaluationError)],
    "IntegerFunctions::ToInteger": [(["42"], 42), (["4.2"], EvaluationError)],
    "IntegerFunctions::ToString": [([42], "42")],
    "BooleanFunctions::ToBoolean": [(["true"], True), (["yes"], EvaluationError)],
    "BooleanFunctions::ToString": [([False], "false")],
    "StringFunctions::Length": [(["abc"], 3), ([""], 0)],
    "StringFunctions::Substring": [(["sysml", 2, 4], "ysm"), (["ab", 1, 3], IndexOutOfRange)],
}


def test_every_function_of_the_table_has_its_test() -> None:
    assert set(CASES) == set(FUNCTION_BY_NAME)
    assert len(FUNCTIONS) == len(FUNCTION_BY_NAME)  # no name declared twice


@pytest.mark.parametrize("name", sorted(CASES))
def test_function(name: str) -> None:
    function = FUNCTION_BY_NAME[name]
    for args, expected in CASES[name]:
        if isinstance(expected, type) and issubclass(expected, Exception):
            with pytest.raises(expected):
                call_library(function, args, {})
            continue
        got = call_library(function, args, {})
        assert got == expected, (name, args)
        assert type(got) is type(expected), (name, args)


def test_every_signature_names_its_parameter_and_result_types() -> None:
    assert FUNCTION_BY_NAME["SequenceFunctions::size"].signature == "size(seq: Anything[0..*]): Natural"
    assert FUNCTION_BY_NAME["RealFunctions::sqrt"].signature == "sqrt(x: Real): Real"
    assert FUNCTION_BY_NAME["SequenceFunctions::subsequence"].signature == \
        "subsequence(seq: Anything[0..*], startIndex: Positive, endIndex: Positive[0..1]): Anything[0..*]"
    for f in FUNCTIONS:
        assert f.signature.startswith(f"{f.name}(")


def test_arguments_are_counted_and_named() -> None:
    size = FUNCTION_BY_NAME["SequenceFunctions::size"]
    with pytest.raises(EvaluationError, match=r"takes 1 argument, got 2 \(size\(seq: Anything\[0\.\.\*\]\): Natural\)"):
        call_library(size, [1, 2], {})
    sub = FUNCTION_BY_NAME["SequenceFunctions::subsequence"]
    assert call_library(sub, [S((1, 2, 3))], {"startIndex": 2, "endIndex": 2}) == S((2,))
    with pytest.raises(EvaluationError, match="no parameter 'stop'"):
        call_library(sub, [S((1, 2, 3))], {"stop": 2})
    with pytest.raises(EvaluationError, match="no argument for startIndex"):
        call_library(sub, [S((1, 2, 3))], {})


# ---------------------------------------------------------------- naming a function from a model


def _outputs(text: str, action: str) -> dict[str, str]:
    run = Program(ir.resolve([ir.parse(text, "t.sysml")])).start_action(action)
    run.run_to_end()
    assert run.status == "completed", run.error
    return run.outputs()


def _model(imports: str, expr: str) -> str:
    return f"""package t {{ private import ScalarValues::*; {imports}
        action a {{ attribute xs : Integer[*] := (3, 1, 4); attribute n : Integer;
            first start; then action count assign n := {expr}; then done; }} }}"""


@pytest.mark.parametrize(("imports", "expr"), [
    ("", "SequenceFunctions::size(xs)"),
    ("private import SequenceFunctions::*;", "size(xs)"),
    ("private import SequenceFunctions::size;", "size(xs)"),
    ("", "xs->size()"),
    ("", "(xs, 5)->size() - 1"),
])
def test_a_function_is_named_qualified_imported_or_after_an_arrow(imports: str, expr: str) -> None:
    assert _outputs(_model(imports, expr), "t::a")["n"] == "3"


def test_an_arrow_passes_the_target_first() -> None:
    out = _outputs(_model("", "xs->including(9)->last() + xs->excluding(1)->head()"), "t::a")
    assert out["n"] == "12"


def test_an_unimported_function_is_refused_with_the_way_to_name_it() -> None:
    run = Program(ir.resolve([ir.parse(_model("", "size(xs)"), "t.sysml")])).start_action("t::a")
    with pytest.raises(EvaluationError) as info:
        run.run_to_end()
    assert str(info.value) == ("unknown calculation 'size': the library has SequenceFunctions::size; qualify it "
                               "(SequenceFunctions::size) or import its package (private import SequenceFunctions::*;)")


def test_a_model_calc_of_the_same_name_wins_over_the_library() -> None:
    text = """package t { private import ScalarValues::*; private import SequenceFunctions::*;
        calc def size { in xs : Integer[*]; return : Integer = 99; }
        action a { attribute xs : Integer[*] := (1, 2); attribute n : Integer;
            first start; then action count assign n := size(xs); then done; } }"""
    assert _outputs(text, "t::a")["n"] == "99"


# ---------------------------------------------------------------- a sensor average with sqrt and abs


SENSORS = """package sensors {
    private import ScalarValues::*;
    private import SequenceFunctions::*;
    private import RealFunctions::*;

    // Eight readings with mean 5 and population standard deviation 2; the worst reading is the
    // one farthest from the mean (9.0, off by 4), and the calibration passes when the spread is
    // under a tolerance.
    action calibrate {
        attribute readings : Real[*] := (2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0);
        attribute mean : Real;
        attribute acc : Real := 0.0;
        attribute spread : Real;
        attribute worst : Real;
        attribute steady : Boolean;
        attribute samples : Natural;

        first start;
        then action avg assign mean := sum(readings) / size(readings);
        then action squares { for r in readings { assign acc := acc + (r - mean) ** 2; } }
        then action dev assign spread := sqrt(acc / size(readings));
        then action far assign worst := max(abs(head(readings) - mean), abs(last(readings) - mean));
        then action judge assign steady := spread < 2.5 and notEmpty(readings);
        then action count assign samples := readings->excluding(4.0)->size();
        then done;
    }
}"""


def test_body_expressions_after_an_arrow() -> None:
    text = """package t { private import ScalarValues::*;
        action a {
            attribute readings : Real[*] := (2.0, 4.5, 7.0, 9.5);
            attribute high : Natural; attribute scaled : Real[*]; attribute allPositive : Boolean;
            attribute anyOver : Boolean; attribute total : Real; attribute limit : Real := 5.0;
            first start;
            then action judge {
                assign high := readings->select {in r; r > limit}->size();
                assign scaled := readings->reject {in r : Real; r > limit}->collect {in r; r * 2};
                assign allPositive := readings->forAll {in r; r > 0};
                assign anyOver := readings->exists {in r; r > 10};
                assign total := readings->reduce {in a; in b; a + b};
            }
            then done; } }"""
    out = _outputs(text, "t::a")
    assert out["high"] == "2"  # 7.0 and 9.5 exceed the limit the body reads from the action
    assert out["scaled"] == "(4.0, 9.0)"
    assert out["allPositive"] == "true"
    assert out["anyOver"] == "false"
    assert out["total"] == "23.0"


def test_a_body_that_gives_no_boolean_is_refused() -> None:
    text = """package t { private import ScalarValues::*;
        action a { attribute xs : Integer[*] := (1, 2); attribute n : Natural;
            first start; then action c assign n := xs->select {in x; x + 1}->size(); then done; } }"""
    run = Program(ir.resolve([ir.parse(text, "t.sysml")])).start_action("t::a")
    with pytest.raises(EvaluationError) as info:
        run.run_to_end()
    assert str(info.value) == "ControlFunctions::select: the body of select gives 2, and it must give a Boolean"


def test_a_sensor_calibration_computes_with_the_library() -> None:
    out = _outputs(SENSORS, "sensors::calibrate")
    assert out["mean"] == "5.0"
    assert out["acc"] == "32.0"
    assert out["spread"] == "2.0"  # sqrt(32 / 8) = 2, exact
    assert out["worst"] == "4.0"
    assert out["steady"] == "true"
    assert out["samples"] == "5"


def test_a_body_parameter_is_a_name_and_an_unknown_name_in_a_body_is_refused_at_submission() -> None:
    text = """package t { private import ScalarValues::*; action a { attribute xs : Integer[*] := (1, 2);
        attribute n : Natural; first start; then action c assign n := xs->select {in x; x > LIMIT}->size();
        then done; } }"""
    ir.resolve([ir.parse(text.replace("LIMIT", "1"), "t.sysml")])
    with pytest.raises(ir.ResolveError, match="unknown name 'nosuch'"):
        ir.resolve([ir.parse(text.replace("LIMIT", "nosuch"), "t.sysml")])
