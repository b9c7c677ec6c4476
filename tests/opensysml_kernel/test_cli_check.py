"""`opensysml-kernel check` and `replay`: exit codes 0/1/2, --json, witness files, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import RACE, TANK, hand_witness

from engines.witness import Claim, ClaimKind
from opensysml_kernel.cli import main
from opensysml_kernel.session import Session


def loaded(*files: str) -> Session:
    session = Session()
    session.load(files)
    return session


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


HOLDS = """package ok {
    private import ScalarValues::*;
    action Seq {
        attribute x : Integer := 0;
        first start;
        then one;
        action one { assign x := 1; }
        then done;
    }
}
"""


def test_check_holds_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", write(tmp_path, "ok.sysml", HOLDS), "--action", "Seq"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("✓ Action ok::Seq: no violation, exhaustive (")
    assert lines[1] == "  outcome: x = 1"


def test_check_divergent_exits_1_and_writes_witnesses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = write(tmp_path, "race.sysml", RACE)
    out = tmp_path / "w"
    assert main(["check", model, "--action", "Race", "--diverge", "c", "--witness-dir", str(out)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "  divergent: c ends as 1 or 2"
    assert sorted(p.name for p in out.iterdir()) == ["race.Race-1.witness", "race.Race-2.witness"]


def test_check_violation_and_deadlock_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = write(tmp_path, "tank.sysml", TANK)
    assert main(["check", model, "--action", "Fill", "--property", "NeverNegative"]) == 1
    assert main(["check", model, "--action", "Handshake"]) == 1
    out = capsys.readouterr().out
    assert "  violation: tank::NeverNegative is false after 3 moves (witness 1)" in out
    assert "  deadlock: token 2@j, token 3@ack wait (witness 1)" in out


def test_check_bound_hit_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = write(tmp_path, "ok.sysml", HOLDS)
    assert main(["check", model, "--action", "Seq", "--depth", "1"]) == 2
    head = capsys.readouterr().out.splitlines()[0]
    assert head.startswith("? Action ok::Seq: no violation within bounds (") and "bounds hit: depth 1" in head


@pytest.mark.parametrize("args", [
    ["--action", "Nope"],
    ["--action", "Seq", "--property", "Nope"],
    ["--action", "Seq", "--diverge", "nothing"],
    ["--action", "Seq", "--timeout", "soon"],
    ["--action", "Seq", "--engine", "explore", "--property", "R"],
])
def test_check_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    assert main(["check", write(tmp_path, "ok.sysml", HOLDS), *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err != ""


def test_check_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = write(tmp_path, "race.sysml", RACE)
    assert main(["check", model, "--action", "Race", "--engine", "all", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["status"] == "failed" and document["exit"] == 1
    assert [c["engine"] for c in document["checks"]] == ["check", "explore", "smt"]
    check = document["checks"][0]
    assert check["subject"] == "race::Race" and check["verdict"] == "divergent" and check["strength"] == "witnessed"
    assert set(check["stats"]) >= {"states", "moves", "depth"}
    assert check["divergent"] == {"c": ["1", "2"]}
    assert check["witnesses"][0]["index"] == 1 and check["witnesses"][0]["choices"][0].startswith("step 1: ")
    assert check["lines"][0].startswith("✗ Action race::Race: divergent")
    assert [b["name"] for b in check["bounds"]] == ["depth", "states", "timeout"]
    explore = document["checks"][1]
    assert sorted(o["values"]["c"] for o in explore["outcomes"]) == ["1", "2"]
    smt = document["checks"][2]
    assert smt["verdict"] == "sensitive" and sorted(smt["divergent"]["c"]) == ["1", "2"]
    assert smt["inputs"] == [] and smt["arithmetic"] == "exact" and len(smt["witnesses"]) == 2


def test_check_json_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tmp_path / "none.sysml"), "--action", "X", "--json"]) == 2
    document = json.loads(capsys.readouterr().out)
    assert document["status"] == "error" and document["exit"] == 2 and document["checks"] == []


def test_replay_reproduces_the_violation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = write(tmp_path, "tank.sysml", TANK)
    out = tmp_path / "w"
    assert main(["check", model, "--action", "Fill", "--property", "NeverNegative", "--witness-dir", str(out)]) == 1
    capsys.readouterr()
    witness = str(out / "tank.Fill-1.witness")
    assert main(["replay", model, "--witness", witness, "--action", "Fill"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"▶ Action tank::Fill: replaying {witness} (through move 3; ends property: tank::NeverNegative)",
        "move 1: token 1@start",
        "move 2: token 1@f",
        "move 3: token 3@valve (chosen over 2@pump)",
        "  level: 0 → -3",
        "✗ Action tank::Fill: witness reproduced after 3 moves: property: tank::NeverNegative",
        "  level = -3",
    ]


# A requirement already false before the first move: its witness holds no move, and its replay stops
# there (it had run the whole action and refused the claim, the requirement holding by then).
STARTS_LOW = """package cold {
    private import ScalarValues::*;
    requirement Warm { temp >= 1 }
    action def Heat {
        attribute temp : Integer := 0;
        first start;
        then action burner { assign temp := temp + 5; }
        then done;
    }
}
"""


@pytest.mark.parametrize("engine", ["check", "smt"])
def test_replay_of_a_violation_at_move_0_stops_before_any_move(tmp_path: Path, engine: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    model = write(tmp_path, "cold.sysml", STARTS_LOW)
    out = tmp_path / "w"
    assert main(["check", model, "--action", "Heat", "--property", "Warm", "--engine", engine,
                 "--witness-dir", str(out)]) == 1
    assert "cold::Warm is false after 0 moves (witness 1)" in capsys.readouterr().out
    witness = str(out / "cold.Heat-1.witness")
    assert main(["replay", model, "--witness", witness]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"▶ Action cold::Heat: replaying {witness} (through move 0; ends property: cold::Warm)",
        "✗ Action cold::Heat: witness reproduced after 0 moves: property: cold::Warm",
        "  temp = 0",
    ]


def test_replay_of_an_outcome_completes_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = write(tmp_path, "race.sysml", RACE)
    witness = str(hand_witness(loaded(model), "Race", tmp_path / "w.witness", "step 3: 3@b first of 2@a, 3@b",
                               (Claim(ClaimKind.VALUE, "c", "1"),)))
    assert main(["replay", model, "--witness", witness, "--trace"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[3:6] == ["move 3: token 3@b (chosen over 2@a)", "stmt assign c", "  eval literal 2 -> 2"]
    assert lines[-2:] == ["✓ Action race::Race completed after 6 moves", "  c = 1"]


def test_replay_refused_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = write(tmp_path, "race.sysml", RACE)
    witness = str(hand_witness(loaded(model), "Race", tmp_path / "bad.witness", "step 1: 9@j first of 9@j"))
    assert main(["replay", model, "--witness", witness, "--action", "Race"]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == (f"replay refused: {witness} moves 9@j at step 1, which is not enabled"
                                    " (enabled: 1@start)")
