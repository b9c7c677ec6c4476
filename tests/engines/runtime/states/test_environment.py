"""The environment's inputs: `--send`/`%send` text, the corpus's `events` lists, `--advance` durations."""

from __future__ import annotations

from fractions import Fraction

import pytest

import ir
from engines.errors import RunError
from engines.runtime import Program, Script
from engines.runtime.states import (
    EnvEvent,
    EnvironmentInputError,
    EventKind,
    events_from_json,
    parse_duration,
    parse_send,
)
from engines.runtime.values import spell


def test_a_bare_signal() -> None:
    assert parse_send("Go") == EnvEvent(EventKind.SIGNAL, "Go")


def test_a_signal_with_arguments_keeps_their_types() -> None:
    event = parse_send('Reading(level=3, rate=2.5, unit="bar", ok=true)')
    assert event.kind == EventKind.SIGNAL and event.name == "Reading"
    assert event.args == (("level", 3), ("rate", Fraction(5, 2)), ("unit", "bar"), ("ok", True))
    assert event.text() == 'Reading(level=3, rate=2.5, unit="bar", ok=true)'


def test_a_quoted_comma_stays_in_its_argument() -> None:
    assert parse_send('Note(text="a, b")').args == (("text", "a, b"),)


def test_a_call_and_a_bare_value() -> None:
    assert parse_send("call setSpeed(value=55)") == EnvEvent(EventKind.CALL, "setSpeed", (("value", 55),))
    value = parse_send("3")
    assert value.kind == EventKind.VALUE and value.value == 3 and value.name == "Integer"


@pytest.mark.parametrize("text", ["", "Go(", "Go(level)", "Go(level=)", "Go(level=abc)", "1Go", 'Go(t="x)'])
def test_bad_events_are_typed_errors(text: str) -> None:
    with pytest.raises(EnvironmentInputError):
        parse_send(text)


def test_the_corpus_events_list() -> None:
    events = events_from_json([
        {"signal": "Go", "args": None},
        {"signal": "Set", "args": {"speed": {"type": "Integer", "value": 55}}},
        {"signal": "Raw", "value": {"type": "Real", "value": 1.5}},
        {"value": {"type": "Integer", "value": 3}},
        {"call": "wake"},
    ])
    assert [e.kind for e in events] == ["signal", "signal", "signal", "value", "call"]
    assert events[1].args == (("speed", 55),)
    assert events[2].args == (("value", Fraction(3, 2)),)
    assert events[3].value == 3
    assert events[4].name == "wake"


@pytest.mark.parametrize("bad", [{}, [1], [{"nothing": 1}], [{"signal": "Go", "args": [1]}],
                                 [{"signal": "Go", "args": {"x": {"type": "Integer", "value": "x"}}}]])
def test_bad_event_lists_are_typed_errors(bad: object) -> None:
    with pytest.raises(EnvironmentInputError):
        events_from_json(bad)


@pytest.mark.parametrize(("text", "seconds"), [("5", 5), ("2.5", Fraction(5, 2)), ("5s", 5), ("5 [s]", 5),
                                               ("300 ms", Fraction(3, 10)), ("2 min", 120), ("0", 0)])
def test_durations(text: str, seconds: Fraction) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["-1", "abc", "", "5 parsecs", "1..2"])
def test_bad_durations_say_what(text: str) -> None:
    with pytest.raises(EnvironmentInputError) as err:
        parse_duration(text)
    assert text.strip() in str(err.value) or text == ""


def test_negative_time_is_refused_with_the_reason() -> None:
    with pytest.raises(EnvironmentInputError, match="only moves forward"):
        parse_duration("-1")


def test_a_sent_value_spells_back() -> None:
    assert spell(parse_send("2.5").value) == "2.5"


LIFT = """package lift {
    private import ScalarValues::*;
    private import SI::*;
    attribute def Call { attribute floor : Integer; }
    state def Lift {
        attribute target : Integer := 0;
        entry; then idle;
        state idle;
        state moving;
        transition first idle accept c : Call if c.floor > 0 do assign target := c.floor then moving;
    }
    state def Beat {
        attribute beats : Integer := 0;
        entry; then on;
        state on {
            do action pulse {
                first start;
                then action s { accept after 2 [s]; }
                then action count { assign beats := beats + 1; }
            }
        }
    }
}"""


def _lift() -> Program:
    return Program(ir.resolve([ir.parse(LIFT, "lift.sysml")]))


def test_an_event_argument_naming_no_feature_of_its_signal_is_refused_at_the_send() -> None:
    # it was taken, and the guard failed later on "cannot read 'floor' of Signal(type_name='Call', ...)"
    with pytest.raises(EnvironmentInputError, match=r"Call has no feature 'flor' \(its features: floor\); "
                                                    r"did you mean 'floor'\?"):
        _lift().start_driven("lift::Lift", Script((parse_send("Call(flor=2)"),)))


def test_a_signal_sent_without_a_features_value_holds_none_there() -> None:
    driven = _lift().start_driven("lift::Lift", Script((parse_send("Call"),)))
    with pytest.raises(RunError, match=r"'c\.floor' holds no value here"):
        while driven.enabled_moves():
            driven.apply(driven.enabled_moves()[0])


def test_a_step_that_hides_a_unit_is_named_in_the_error() -> None:
    driven = _lift().start_driven("lift::Beat", Script(horizon=Fraction(5)))
    with pytest.raises(RunError, match=r"2 \[s\]: 's' names the step s here, which hides the unit of that name: "
                                       r"write \[SI::s\]"):
        while True:
            moves = driven.enabled_moves()
            if moves:
                driven.apply(moves[0])
            elif not driven.let_time_pass():
                break
