"""The command line: exit codes (0 completed, 1 run failed, 2 bad input), --trace, --json, install."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import NOT_BOOLEAN, RACE

from opensysml_kernel.cli import main

ROOT = Path(__file__).resolve().parents[2]
HEATER = str(ROOT / "examples" / "heater.sysml")


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_run_completes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", HEATER, "--action", "heater::Warmup"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines() == ["✓ Action heater::Warmup completed", "  fanSpeed = 3", "  ready = true",
                                    "  target = 21", "  temperature = 21"]
    assert out.err == ""


def test_run_with_trace(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", HEATER, "--action", "Warmup", "--trace"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["step 1: token 1@split", "step 2: token 2@heat, token 3@ventilate"]
    assert "step 6: no active tokens" in lines


def test_run_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", write(tmp_path, "race.sysml", RACE), "--action", "Race", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["status"] == "completed" and document["exit"] == 0
    assert document["subject"] == "race::Race"
    assert document["outputs"] == {"c": "1"}
    assert document["error"] is None
    assert document["trace"][0] == "step 1: token 1@f"


def test_runtime_failure_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "guard.sysml", NOT_BOOLEAN)
    assert main(["run", path, "--action", "Seq"]) == 1
    assert capsys.readouterr().out.startswith("✗ Action guards::Seq failed at step 2: guard must evaluate to boolean")
    assert main(["run", path, "--action", "Seq", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["status"] == "failed" and document["exit"] == 1
    assert document["error"].startswith("guard must evaluate to boolean")


@pytest.mark.parametrize("text, args, message", [
    ("package p {", ["--action", "X"], "syntax error"),
    (RACE, ["--action", "Rase"], "did you mean 'race::Race'?"),
    (RACE, ["--action", "Race", "--schedule", "sideways"], "unknown schedule 'sideways'"),
])
def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, args: list[str],
                           message: str) -> None:
    assert main(["run", write(tmp_path, "m.sysml", text), *args]) == 2
    out = capsys.readouterr()
    assert out.out == "" and message in out.err


def test_missing_file_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tmp_path / "none.sysml"), "--action", "X", "--json"]) == 2
    out = capsys.readouterr()
    document = json.loads(out.out)
    assert document["status"] == "error" and document["exit"] == 2 and "no such file" in document["error"]
    assert "no such file" in out.err


def test_no_command_is_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: opensysml-kernel" in capsys.readouterr().err


def test_install_to_prefix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["install", "--prefix", str(tmp_path)]) == 0
    spec = json.loads((tmp_path / "share" / "jupyter" / "kernels" / "opensysml" / "kernel.json").read_text())
    assert spec["argv"] == [sys.executable, "-m", "opensysml_kernel.kernel", "-f", "{connection_file}"]
    assert spec["display_name"] == "SysML v2 (opensysml-kernel)"
    assert "installed kernelspec 'opensysml'" in capsys.readouterr().out


def test_python_dash_m() -> None:
    done = subprocess.run([sys.executable, "-m", "opensysml_kernel", "run", HEATER, "--action", "heater::Warmup"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("✓ Action heater::Warmup completed")


def test_notation_outside_sysml_v2_is_noted_on_stderr_and_the_answer_stays_on_stdout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = write(tmp_path, "pipe.sysml", "package p { private import ScalarValues::*; action a {\n"
                  "  attribute x : Integer := 1;\n  action src { assign x := x + 1; }\n"
                  "  action dbl { assign x := x * 2; }\n  first start then src;\n  then dbl;\n} }\n")
    assert main(["run", model, "--action", "a", "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["outputs"] == {"x": "4"}
    assert out.err.strip() == (f"note: {model}:6:3: `then dbl` right after a succession is not SysML v2 "
                               "notation (a target succession follows a step or a control node); read as "
                               "`succession src then dbl;`")
