"""The registered smt engine end to end, through the command line and the Session, on small models of
our own: a requirement proved over a released input, the same broken once the assumption is widened
(its witness replayed by `replay` and `%replay`), schedule sensitivity on the scaling families, and
bad input refused with exit 2. Each expected answer is derived in the comments from the semantics."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from engines.framework import engine
from opensysml_kernel.cli import main
from opensysml_kernel.commands import execute
from opensysml_kernel.errors import UsageError
from opensysml_kernel.session import Session
from tests.engines.smt.conftest import NO_SOLVER

pytestmark = pytest.mark.skipif(importlib.util.find_spec("z3") is None, reason=NO_SOLVER)

# A valve regulator: the demand is clamped to 100 from above but passed through as it is below. The
# model's demand (40) keeps the valve in range, so check and explore find no violation; released with
# --input, demand ranges over Integer. Assuming DemandNonNegative every demand keeps 0 <= valve <= 100
# (the clamp caps it, the pass keeps a demand >= 0): proved. Widened to DemandAboveMinus10, a demand in
# -10..-1 takes the pass and drives the valve below 0 after three moves (start, the decision, pass).
VALVE = """package plant {
    private import ScalarValues::*;
    action def Regulate {
        attribute demand : Integer := 40;
        attribute valve : Integer := 0;
        first start;
        then decide d;
            if demand > 100 then clamp;
            else pass;
        action clamp { assign valve := 100; }
        then m;
        action pass { assign valve := demand; }
        then m;
        merge m;
        then done;
    }
    requirement ValveInRange { valve >= 0 and valve <= 100 }
    constraint DemandNonNegative { demand >= 0 }
    constraint DemandAboveMinus10 { demand >= -10 }
}
"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    target = tmp_path / name
    target.write_text(text, encoding="utf-8")
    return str(target)


def _scaling(tmp_path: Path, mode: str, n: int, k: int) -> tuple[str, str]:
    generator = Path(__file__).resolve().parents[3] / "shared" / "bench" / "gen_scaling.py"
    if not generator.exists():
        pytest.skip(f"no {generator} beside the checkout")
    spec = importlib.util.spec_from_file_location("gen_scaling", generator)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    action = gen.qualified_name(mode, n, k).split("::")[1]
    return _write(tmp_path, f"{mode}.sysml", gen.model(mode, n, k)), action


def test_smt_is_registered_with_its_solver_as_status(session: Session) -> None:
    assert engine("smt").status().text.startswith("ready (z3 ")
    rows = {line.split()[0]: line for line in execute(session, "%engines").text.splitlines()[1:]}
    assert rows["smt"].split()[1:5] == ["holds,", "sensitive,", "outcomes", "proved"]
    assert "ready (z3 " in rows["smt"]


def test_cli_proves_over_a_released_input_and_a_wider_assumption_breaks_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _write(tmp_path, "valve.sysml", VALVE)
    ask = ["check", model, "--action", "Regulate", "--engine", "smt", "--property", "ValveInRange",
           "--input", "demand"]
    assert main([*ask, "--assume", "DemandNonNegative"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "✓ Action plant::Regulate: proved (smt)"
    assert "  inputs: demand free in Integer (-2^63 .. 2^63-1)" in lines
    assert "  assumed: DemandNonNegative" in lines
    out = tmp_path / "w"
    assert main([*ask, "--assume", "DemandAboveMinus10", "--witness-dir", str(out)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["✗ Action plant::Regulate: violated (smt)",
                         "  violation: plant::ValveInRange is false after 3 moves (witness 1)"]
    witness = out / "plant.Regulate-1.witness"
    (chosen,) = [line for line in witness.read_text().splitlines() if line.startswith("input ")]
    demand = int(chosen.removeprefix("input demand = "))
    assert -10 <= demand < 0 and f"  inputs of witness 1: demand = {demand}" in lines
    # the interpreter replays it: the input fixed before the first move, the pass taken
    assert main(["replay", model, "--witness", str(witness), "--action", "Regulate"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"▶ Action plant::Regulate: replaying {witness} (input demand = {demand}; through move 3; ends property:"
        " plant::ValveInRange)",
        "move 1: token 1@start",
        "move 2: token 1@d",
        "move 3: token 1@pass",
        f"  valve: 0 → {demand}",
        "✗ Action plant::Regulate: witness reproduced after 3 moves: property: plant::ValveInRange",
        f"  demand = {demand}",
        f"  valve = {demand}",
    ]


def test_check_holds_on_the_models_input_where_smt_ranges_over_every_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same requirement under every engine, no input released: the model's demand of 40 keeps it."""
    model = _write(tmp_path, "valve.sysml", VALVE)
    assert main(["check", model, "--action", "Regulate", "--engine", "all", "--property", "ValveInRange"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "    smt      proved                    proved" in lines
    assert "  agree: check and smt (proved)" in lines


# A feature the model leaves with no value: check runs it so (opt ?? -1 is -1, the requirement false),
# smt frees it into Natural by default (x = opt >= 0 for every value: proved). The two answered for
# different inputs: under --engine all that is said, not flagged as a disagreement of the engines.
PICK = """package nv {
    private import ScalarValues::*;
    action def Pick {
        attribute opt : Natural;
        attribute x : Integer := 0;
        first start;
        then action pick { assign x := opt ?? -1; }
        then done;
    }
    requirement XNonNeg { x >= 0 }
}
"""


def test_all_says_when_smt_freed_a_feature_check_ran_with_no_value(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _write(tmp_path, "pick.sysml", PICK)
    main(["check", model, "--action", "Pick", "--engine", "all", "--property", "XNonNeg"])
    lines = capsys.readouterr().out.splitlines()
    assert "  not compared: smt answered for every value of opt in its domain, check ran it with no value " \
           "(give a value in the model to compare them)" in lines
    assert not any(line.startswith("✗ disagreement") for line in lines)
    # check's violation is no stop: it searched every schedule, so its final states are compared with explore's
    assert "  agree: check and explore reach the same 1 final state" in lines
    # with a value in the model, the same pair is compared (and agrees: x = 3)
    valued = _write(tmp_path, "valued.sysml", PICK.replace("opt : Natural;", "opt : Natural := 3;"))
    main(["check", valued, "--action", "Pick", "--engine", "all", "--property", "XNonNeg"])
    assert "  agree: check and smt (proved)" in capsys.readouterr().out.splitlines()


def test_session_witness_replayed_with_replay_last(session: Session) -> None:
    session.submit(VALVE)
    for line in ("%engine smt", "%check-property ValveInRange", "%check-input demand",
                 "%check-assume DemandNonNegative"):
        execute(session, line)
    assert execute(session, "%action Regulate").text.splitlines()[0] == "✓ Action plant::Regulate: proved (smt)"
    execute(session, "%check-assume DemandAboveMinus10")
    violated = execute(session, "%action Regulate").text.splitlines()
    assert violated[0] == "✗ Action plant::Regulate: violated (smt)"
    demand = int(violated[2].removeprefix("  inputs of witness 1: demand = "))
    assert -10 <= demand < 0
    assert execute(session, "%replay last").text.startswith(
        f"replay witness 1 of plant::Regulate (input demand = {demand}; through move 3;")
    execute(session, "%action Regulate")
    assert execute(session, "%continue").text.splitlines()[-2:] == [
        f"  valve: 0 → {demand}", "⏸ end of the witness after 3 moves: property: plant::ValveInRange"]
    assert (session.outputs()["demand"], session.outputs()["valve"]) == (str(demand), str(demand))


def test_shared_counter_is_not_sensitive_and_the_racy_one_is(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """shared 3x2: every leaf is one move `c := c + 1`, so c ends 6 on every schedule. racy 2x2: a leaf
    reads c into t, then writes t + 1 in a later move; two leaves reading the same c lose an update, so
    c ends 4 with no overlap and less with one."""
    model, action = _scaling(tmp_path, "shared", 3, 2)
    assert main(["check", model, "--action", action, "--engine", "smt", "--diverge", "c"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"✓ Action perf_shared_3_2::{action}: not sensitive (smt)"
    model, action = _scaling(tmp_path, "racy", 2, 2)
    out = tmp_path / "racy"
    assert main(["check", model, "--action", action, "--engine", "smt", "--diverge", "c",
                 "--witness-dir", str(out)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"✗ Action perf_racy_2_2::{action}: sensitive (smt)"
    one, two = (int(lines[i].split(" = ")[1].split()[0]) for i in (2, 3))
    assert one != two and max(one, two) <= 4 and min(one, two) >= 2
    for witness in sorted(out.iterdir()):
        assert main(["replay", model, "--witness", str(witness), "--action", action]) == 0
        assert capsys.readouterr().out.splitlines()[-1].startswith("  c = ")


@pytest.mark.parametrize(("flags", "said"), [
    (["--input", "nothing"], "--input nothing: the action Regulate has no feature 'nothing'"),
    (["--assume", "Nowhere"], "--assume: no constraint or requirement named 'Nowhere'"),
    (["--solver-timeout", "soon"], "'soon' is not a duration"),
    (["--depth", "0"], "--depth needs a positive whole number, not 0"),
])
def test_bad_input_is_a_clear_error_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               flags: list[str], said: str) -> None:
    model = _write(tmp_path, "valve.sysml", VALVE)
    assert main(["check", model, "--action", "Regulate", "--engine", "smt", "--property", "ValveInRange",
                 *flags]) == 2
    captured = capsys.readouterr()
    assert said in captured.err and "Traceback" not in captured.err


def test_a_non_numeric_bound_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _write(tmp_path, "valve.sysml", VALVE)
    assert main(["check", model, "--action", "Regulate", "--engine", "smt", "--depth", "many"]) == 2
    assert "invalid int value: 'many'" in capsys.readouterr().err


# A counter stepped by a merge loop: 8 moves cannot finish it (a pass is three moves), so the bounded
# answer is `no violation within 8 moves`; i <= 5 is inductive (a step to 6 needs the token at `inc`
# with i = 5, whose only predecessor, the test with i = 5, routes to done), so k-induction proves it for
# runs of any length. i <= 3 holds for those 8 moves too but is false after 13: never proved.
COUNTER = """package counter {
    private import ScalarValues::*;
    action def Count {
        attribute i : Integer := 0;
        first start;
        then merge m;
        then decide test;
            if i < 5 then inc;
            else done;
        action inc { assign i := i + 1; }
        then m;
    }
    requirement AtMostFive { i <= 5 }
    requirement AtMostThree { i <= 3 }
}
"""


def test_cli_induction_proves_a_loop_invariant_unbounded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _write(tmp_path, "counter.sysml", COUNTER)
    ask = ["check", model, "--action", "Count", "--engine", "smt", "--depth", "8"]
    assert main([*ask, "--property", "AtMostFive"]) == 2
    assert capsys.readouterr().out.splitlines()[0] == "? Action counter::Count: no violation within 8 moves (smt)"
    assert main([*ask, "--property", "AtMostFive", "--induction"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "✓ Action counter::Count: proved, unbounded (k-induction at 8) (smt)"
    assert lines[-1] == "  standing: holds (proved: every schedule of any length, by k-induction at 8)"
    assert main([*ask, "--property", "AtMostThree", "--induction"]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "? Action counter::Count: no violation within 8 moves (smt)"
    assert any(line.startswith("  note: k-induction: the step did not close up to 8 moves") for line in lines)


def test_session_induction_setting(session: Session) -> None:
    session.submit(COUNTER)
    assert execute(session, "%check-bounds depth=8 induction=on").text == (
        "check-bounds depth=8 states=1000000 (default) timeout=none (default) induction=on")
    execute(session, "%engine all")
    execute(session, "%check-property AtMostFive")
    report = execute(session, "%action Count")
    assert "    smt      proved, unbounded (k-induction at 8)  proved" in report.text.splitlines()
    assert execute(session, "%check-bounds induction=off").text.endswith("timeout=none (default)")
    with pytest.raises(UsageError, match="induction is on or off, not 'yes'"):
        execute(session, "%check-bounds induction=yes")
