"""Outputs, divergence names and error texts use the names the model writes: an anonymous step's
features under the path around it, an unnamed accept's payload under its step, a statement node by
its statement; never the tool's labels (`action.x`, `usage_action`) or the reference's
(`*ast.WhileLoopActionNode`). Through the Session, the CLI (exit codes) and the JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opensysml_kernel.cli import main
from opensysml_kernel.commands import execute
from opensysml_kernel.session import Session

# A pipeline of typed stages: `Scale` performed by a named stage and by an anonymous one (named after
# its action, as the corpus names `perform Halve;`), an intake whose two unnamed accepts receive 3
# and 4 (in that order under the default schedule: sum 3*10 + 4 = 34), and an anonymous step that
# counts the batch.
PIPELINE = """package Pipeline {
    private import ScalarValues::*;
    action def Scale {
        in x : Integer;
        out y : Integer;
        first start;
        then assign y := x * 2;
        then done;
    }
    action run {
        attribute sum : Integer := 0;
        attribute batches : Integer := 0;
        first start;
        then fork f;
            then intake;
            then feeder;
        action intake {
            first start;
            then accept a : Integer;
            then accept b : Integer;
            then assign sum := a * 10 + b;
            then done;
        }
        action feeder { send 3; send 4; }
        join j;
        succession intake then j;
        succession feeder then j;
        then action first_stage : Scale { in x = sum; }
        then action : Scale { in x = 5; }
        then action {
            attribute size : Integer := 2;
            assign batches := batches + size;
        }
        then done;
    }
    action stuck {
        attribute credit : Integer := 0;
        first start;
        then while credit < 100 {
            action coin accept c : Integer;
            then assign credit := credit + coin.c;
        }
        then done;
    }
}
"""

EXPECTED = {
    "Scale.x": "5", "Scale.y": "10", "batches": "2", "first_stage.x": "34", "first_stage.y": "68",
    "intake.a": "3", "intake.b": "4", "size": "2", "sum": "34",
}


@pytest.fixture
def model(tmp_path: Path) -> str:
    path = tmp_path / "pipeline.sysml"
    path.write_text(PIPELINE)
    return str(path)


def test_outputs_are_named_by_the_model(model: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", model, "--action", "run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["outputs"] == EXPECTED


def test_the_session_reports_the_same_names() -> None:
    session = Session()
    session.submit(PIPELINE, "pipeline.sysml")
    execute(session, "%action run")
    execute(session, "%continue")
    assert session.outputs() == EXPECTED


def test_diverge_takes_an_unnamed_accepts_payload_by_its_path(model: str, capsys: pytest.CaptureFixture[str]) -> None:
    # feeder's two sends are performances no succession orders: either message may arrive first
    assert main(["check", model, "--action", "run", "--diverge", "intake.b", "--json"]) == 1
    check = json.loads(capsys.readouterr().out)["checks"][0]
    assert check["divergent"] == {"intake.b": ["3", "4"]}


def test_a_deadlock_names_the_statement_not_an_implementation_type(model: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", model, "--action", "stuck"]) == 1
    out = capsys.readouterr().out
    assert "token 1@while wait for messages nothing sends" in out
    assert "*ast." not in out
    # the check moves each loop pass on its own, so its deadlock stands inside the pass: at the accept
    assert main(["check", model, "--action", "stuck"]) == 1
    assert "  deadlock: token 1@coin wait (witness 1)" in capsys.readouterr().out
