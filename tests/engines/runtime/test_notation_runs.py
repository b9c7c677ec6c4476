"""Runs of the notation beyond the first corpus: constant features, `while ... until`, short-named loop
variables, named multiplicity bounds, `then [n] x;`, performs by reference."""

from __future__ import annotations

import pytest

import ir
from engines.errors import EvaluationError
from engines.runtime import Program


def run_outputs(text: str, action: str) -> dict[str, str]:
    run = Program(ir.resolve([ir.parse(text, "m.sysml")])).start_action(action)
    run.run_to_end()
    return run.outputs()


VALVE = """
package Plant {
    action def Regulate {
        constant attribute limit : Integer = 90;
        attribute pressure : Integer = 70;
        attribute opened : Boolean = false;
        first start;
        then action react {
            if pressure > limit { assign limit := pressure; } else { assign opened := true; }
        }
        then action raise { assign pressure := 95; }
        then action clamp { if pressure > limit { assign limit := pressure; } }
        then done;
    }
}
"""


def test_assigning_a_constant_feature_fails_the_run_naming_it() -> None:
    run = Program(ir.resolve([ir.parse(VALVE, "valve.sysml")])).start_action("Plant::Regulate")
    with pytest.raises(EvaluationError, match="feature is read-only: limit is constant"):
        run.run_to_end()
    # the branch not taken assigned nothing: the run failed only at the assignment that ran (clamp)
    assert run.outputs()["opened"] == "true"
    assert run.outputs()["pressure"] == "95"
    assert run.outputs()["limit"] == "90"


def test_a_constant_feature_reads_as_any_other() -> None:
    text = """
    action scale {
        constant attribute factor : Integer = 3;
        attribute out_ : Integer = 0;
        first start;
        then action compute { assign out_ := factor * 7; }
        then done;
    }"""
    assert run_outputs(text, "scale")["out_"] == "21"


@pytest.mark.parametrize(("cond", "until", "expected", "passes"), [
    ("n < 10", "n >= 5", "6", "3"),  # 2, 4, 6: until holds after the third pass
    ("n < 3", "n == 100", "3", "2"),  # the while condition ends it first: 2, 3 (1 + 2 passes of +1)
    ("n < 100", "true", "2", "1"),  # until checked after the body: one pass always runs
])
def test_while_until_ends_after_a_pass_at_which_until_holds(cond: str, until: str, expected: str,
                                                            passes: str) -> None:
    step = "2" if cond != "n < 3" else "1"
    start = "0" if cond != "n < 3" else "1"
    text = f"""
    action pump {{
        attribute n : Integer = {start};
        attribute passes : Integer = 0;
        first start;
        then action drive {{
            while {cond} {{ assign n := n + {step}; assign passes := passes + 1; }} until {until};
        }}
        then done;
    }}"""
    out = run_outputs(text, "pump")
    assert (out["n"], out["passes"]) == (expected, passes)


def test_a_loop_variable_with_only_a_short_name_is_read_by_it() -> None:
    text = """
    action batch {
        attribute sizes = (2, 3, 4);
        attribute total : Integer = 0;
        attribute last : Integer = 0;
        first start;
        then action sum { for <v> in sizes { assign total := total + v; assign last := v; } }
        then done;
    }"""
    out = run_outputs(text, "batch")
    assert (out["total"], out["last"]) == ("9", "4")


def test_a_loop_variable_is_read_by_its_name_and_its_short_name() -> None:
    text = """
    action batch {
        attribute total : Integer = 0;
        first start;
        then action sum { for <i> index in (1, 2, 3) { assign total := total + i * index; } }
        then done;
    }"""
    assert run_outputs(text, "batch")["total"] == "14"


BATCHES = """
package Line {
    attribute batches : Integer = 4;
    attribute alias_ = batches;
    action def Fill {
        attribute filled : Integer = 0;
        attribute extra : Integer = 0;
        first start then fill;
        action fill[batches] { assign filled := filled + 1; }
        succession first [*] fill then [*] more;  // a repeated step's ends are written (the oracle's rule)
        action more[alias_] { assign extra := extra + 10; }
        then done;
    }
}
"""


def test_a_step_multiplicity_named_by_a_feature_performs_that_many_times() -> None:
    out = run_outputs(BATCHES, "Line::Fill")
    assert (out["filled"], out["extra"]) == ("4", "40")


def test_a_multiplicity_naming_no_feature_is_refused_when_submitted() -> None:
    with pytest.raises(ir.ResolveError, match="unknown multiplicity bound 'batchez'") as caught:
        ir.resolve([ir.parse(BATCHES.replace("fill[batches]", "fill[batchez]"), "line.sysml")])
    assert any("batches" in hint for hint in caught.value.suggestions)


def test_a_multiplicity_naming_a_feature_of_no_stated_integer_is_refused() -> None:
    text = BATCHES.replace("attribute batches : Integer = 4;", "attribute batches : Integer;")
    model = ir.resolve([ir.parse(text, "line.sysml")])
    with pytest.raises(ir.LoweringError, match="names 'batches'"):
        Program(model).start_action("Line::Fill")


def test_then_with_a_target_end_multiplicity_orders_as_then() -> None:
    text = """
    action def Mix {
        attribute dose : Integer = 0;
        attribute total : Integer = 0;
        first start then measure;
        action measure { assign dose := 5; }
        then [2] pour;
        action pour[2] { assign total := total + dose; }
        then done;
    }"""
    assert run_outputs(text, "Mix") == {"dose": "5", "total": "10"}


LIB = """
package Lib {
    attribute level : Integer = 3;
    action increment { out result : Integer; first start; then action bump { assign result := level + 1; } then done; }
}
package App {
    attribute level : Integer = 100;
    action outer {
        first start;
        perform action doIt references Lib::increment;
        then done;
        first start then doIt;
    }
    action chained {
        part host : Host;
        perform action run ::> host.go;
        first start then run;
        then done;
    }
    part def Host { perform action go : Lib::increment; }
}
"""


def test_a_perform_by_reference_performs_the_referenced_action_in_its_own_scope() -> None:
    assert run_outputs(LIB, "App::outer")["doIt.result"] == "4"


def test_a_perform_referring_to_a_chain_performs_the_action_at_its_end() -> None:
    assert run_outputs(LIB, "App::chained")["run.result"] == "4"
