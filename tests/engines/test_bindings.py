"""Parameter bindings of performed actions: `inout acc = total;` makes `acc` and `total` one value for
the performance (copied in when it starts, written back when it ends), `out r = last;` hands the
output to `last` at the end; at the flow level, in a `for` body and in fork branches, under run,
explore and check alike."""

from __future__ import annotations

import pytest

import ir
from engines.check import check
from engines.errors import RunError
from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program

ACCUMULATE = """package acc {
    private import ScalarValues::*;
    // Adds `amount` into the accumulator it is given, in two steps of its own.
    action def Add {
        inout acc : Integer;
        in amount : Integer;
        first start;
        then action bump assign acc := acc + amount;
        then action twice assign acc := acc + amount;
        then done;
    }
    action Pipeline {
        attribute total : Integer := 10;
        first start;
        then perform action first5 : Add { inout acc = total; in amount = 5; }
        then perform action then7 : Add { inout acc = total; in amount = 7; }
        then done;
    }
    // A booking counter: each request's seats booked by a performed action, in a loop.
    action def Book {
        inout booked : Integer;
        in seats : Integer;
        first start;
        then action take assign booked := booked + seats;
        then done;
    }
    action Requests {
        attribute booked : Integer := 0;
        attribute count : Integer := 0;
        first start;
        then action serve {
            for s in (2, 3, 4) {
                perform action book : Book { inout booked = count; in seats = s; }
            }
        }
        then done;
    }
    // Two branches each perform Add on one total: a lost update is possible.
    action Race {
        attribute total : Integer := 0;
        first start;
        then fork split;
            then left;
            then right;
        perform action left : Add { inout acc = total; in amount = 1; }
        perform action right : Add { inout acc = total; in amount = 10; }
        join j;
        succession left then j;
        succession right then j;
        then done;
    }
    // The same race with the performances written as statements of the branches' bodies.
    action NestedRace {
        attribute total : Integer := 0;
        first start;
        then fork split;
            then left;
            then right;
        action left { perform action add : Add { inout acc = total; in amount = 1; } }
        action right { perform action add : Add { inout acc = total; in amount = 10; } }
        join j;
        succession left then j;
        succession right then j;
        then done;
    }
    action def Measure {
        in offset : Integer;
        out reading : Integer;
        first start;
        then action sample assign reading := 40 + offset;
        then done;
    }
    action Outputs {
        attribute last : Integer := 0;
        attribute reading : Integer := 0;
        first start;
        then perform action probe : Measure { in offset = 2; out reading = last; }
        then done;
    }
    action def Silent {
        out reading : Integer;
        first start;
        then done;
    }
    action NeverWritten {
        attribute last : Integer := 0;
        first start;
        then perform action probe : Silent { out reading = last; }
        then done;
    }
}
"""


def _program(text: str = ACCUMULATE) -> Program:
    return Program(ir.resolve([ir.parse(text, "acc.sysml")]))


def _run(action: str, fine: bool = False) -> dict[str, str]:
    run = _program().start_action(action, fine=fine)
    run.run_to_end()
    return run.outputs()


def _explored(action: str, feature: str) -> set[str]:
    result = explore(_program(), action, Bounds(runs=5_000))
    assert result.verdict is not Verdict.INCOMPLETE
    return {dict(o.values)[feature] for o in result.outcomes}


def _checked(action: str, feature: str, reduce: bool = True) -> tuple[Verdict, set[str]]:
    result = check(_program(), action, Bounds(depth=500, states=20_000), diverge=(feature,), reduce=reduce)
    return result.verdict, {dict(o.values)[feature] for o in result.outcomes}


def test_an_inout_binding_writes_back_to_the_bound_feature() -> None:
    # 10 + 5 + 5 = 20, then 20 + 7 + 7 = 34: each performance starts from what the last one wrote back
    out = _run("Pipeline")
    assert out["total"] == "34"
    assert out["first5.acc"] == "20" and out["then7.acc"] == "34"
    assert _run("Pipeline", fine=True)["total"] == "34"
    assert _explored("Pipeline", "total") == {"34"}
    assert _checked("Pipeline", "total") == (Verdict.EXHAUSTIVE, {"34"})


def test_an_inout_binding_in_a_for_body_writes_back_each_pass() -> None:
    out = _run("Requests")
    assert out["count"] == "9"
    assert out["booked"] == "0"  # the same-named feature is not the bound one
    assert _explored("Requests", "count") == {"9"}
    assert _checked("Requests", "count") == (Verdict.EXHAUSTIVE, {"9"})


@pytest.mark.parametrize("action", ["Race", "NestedRace"])
def test_two_branches_performing_on_one_bound_total_race(action: str) -> None:
    # each adds its amount twice; copied in, written back at the end: one runs after the other (22),
    # or both read 0 and the last write-back stands (2 or 20)
    lost_or_both = {"2", "20", "22"}
    assert _run(action)["total"] in lost_or_both
    assert _explored(action, "total") == lost_or_both
    for reduce in (True, False):
        verdict, finals = _checked(action, "total", reduce)
        assert verdict is Verdict.DIVERGENT
        assert finals == lost_or_both


def test_an_out_binding_hands_the_output_to_the_bound_feature_at_the_end() -> None:
    out = _run("Outputs")
    assert out["last"] == "42"
    assert out["reading"] == "0"  # bound elsewhere: the same-named feature keeps its value
    assert _checked("Outputs", "last") == (Verdict.EXHAUSTIVE, {"42"})


def test_an_out_binding_the_action_never_writes_is_a_multiplicity_violation() -> None:
    run = _program().start_action("NeverWritten")
    with pytest.raises(RunError, match="multiplicity violation: 0 value"):
        run.run_to_end()


def test_an_output_bound_to_an_expression_is_refused_with_where() -> None:
    text = ACCUMULATE.replace("out reading = last;", "out reading = last + 1;")
    with pytest.raises(ir.LoweringError, match="out parameter 'reading' is bound to an expression") as caught:
        _program(text).start_action("Outputs")
    assert caught.value.line > 0
