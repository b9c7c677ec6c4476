"""Names resolved at submission (issue 7, class 14): misspellings in bodies, successions, flows and
conditions are ResolveErrors naming the name and its place; names bound only when a behavior runs
(payloads, loop variables, pins, `this`, a performer's features, library functions) still resolve."""

from __future__ import annotations

import pytest

import ir

BOOKING = """package Booking {
    private import ScalarValues::*;
    action def Reserve {
        in seats : Integer;
        attribute taken : Integer := 0;
        first start;
        then action take {
            if taken < seats { assign taken := taken + 1; }
        }
        then done;
    }
    action desk {
        attribute sold : Integer := 0;
        attribute log : Integer := 0;
        first start;
        then fork f;
            then clerk;
            then web;
        action clerk : Reserve { in seats = 2; }
        action web {
            accept req : Integer;
            then assign sold := sold + req;
        }
        join j;
        first clerk then j;
        first web then j;
        then action audit {
            for <n> in (1, 2) { assign log := log + n; }
            assign log := log + clerk.taken + size((1, 2)) + this.sold;
        }
        then done;
    }
    part def Pump {
        attribute pressure : Integer := 0;
        perform action prime : Prime;
    }
    action def Prime { assign pressure := pressure + 1; }
    requirement Capacity { require constraint { sold <= 2 } }
}
"""


def submit(text: str) -> ir.Model:
    return ir.resolve([ir.parse(text, "booking.sysml")])


def refused(text: str) -> ir.ResolveError:
    with pytest.raises(ir.ResolveError) as caught:
        submit(text)
    return caught.value


def test_names_bound_when_a_behavior_runs_still_resolve() -> None:
    """payloads (req), short-named loop variables (n), pins (clerk.taken), `this`, library functions
    (size), a performer's features (pressure), a requirement reading an action's feature (sold)."""
    submit(BOOKING)


@pytest.mark.parametrize(("old", "new", "name", "what", "hint"), [
    ("sold := sold + req", "sold := sodl + req", "sodl", "name", "sold"),
    ("assign sold := sold + req", "assign sodl := sold + req", "sodl", "assignment target", "sold"),
    ("if taken < seats", "if taken < seat", "seat", "name", "seats"),
    ("first web then j;", "first web then jj;", "jj", "succession target", "j"),
    ("then clerk;", "then clerck;", "clerck", "succession target", "clerk"),
    ("{ sold <= 2 }", "{ sould <= 2 }", "sould", "name", "sold"),
    ("(1, 2) { assign log := log + n; }", "(1, 2) { assign log := log + m; }", "m", "name", None),
])
def test_an_unknown_name_is_refused_at_submission_naming_it(old: str, new: str, name: str, what: str,
                                                           hint: str | None) -> None:
    assert old in BOOKING
    text = BOOKING.replace(old, new)
    err = refused(text)
    assert (err.name, err.what) == (name, what)
    line = next(i for i, t in enumerate(text.splitlines(), start=1) if new in t)
    assert err.path == "booking.sysml" and err.line == line
    if hint is not None:
        assert any(s.rsplit("::", 1)[-1] == hint for s in err.suggestions), err.suggestions


def test_an_unknown_succession_target_says_so_in_the_corpus_words() -> None:
    err = refused(BOOKING.replace("first web then j;", "first web then jj;"))
    assert 'undefined target node "jj" in action Booking::desk' in str(err)


def test_a_flow_end_naming_no_parameter_of_the_typed_step_is_refused() -> None:
    text = """package Line {
        action def Sample { out value : Integer; assign value := 1; }
        action def Convert { in input : Integer; out output : Integer; assign output := input; }
        action wired {
            first start;
            then action read : Sample;
            then action conv : Convert;
            then done;
            flow read.value to conv.inptu;
        }
    }"""
    err = refused(text)
    assert (err.name, err.what, err.line) == ("conv.inptu", "feature", 9)
    assert err.suggestions[0] == "conv.input"
    submit(text.replace("conv.inptu", "conv.input"))


def test_an_unknown_constructed_type_is_refused() -> None:
    text = "package P { item def Ticket; action a { send new Tiket(1) to desk; action desk; } }"
    err = refused(text)
    assert (err.name, err.what) == ("Tiket", "type")


def test_names_in_a_quantity_unit_are_not_features() -> None:
    submit("package P { action a { first start; then action w accept after 5 [s]; then done; } }")
