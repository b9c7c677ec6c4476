"""The CLI refuses a model whose names do not resolve (issue 7, class 14): exit 2 with the name and
its place, from `run` and `check` alike, before anything runs; and a property whose condition reads
no feature of the checked action is refused, not reported violated."""

from __future__ import annotations

from pathlib import Path

import pytest

from opensysml_kernel.cli import main

SILO = """package Silo {
    private import ScalarValues::*;
    action fill {
        attribute level : Integer := 0;
        first start;
        then action pour { assign level := level + 5; }
        then done;
    }
    action count {
        attribute n : Integer := 0;
        first start;
        then action tick { assign n := n + 1; }
        then done;
    }
    requirement Bounded { require constraint { level <= 10 } }
}
"""


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "silo.sysml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("command", [["run", "--action", "Silo::fill"],
                                     ["check", "--action", "Silo::fill", "--diverge", "level"]])
def test_an_unknown_name_in_a_body_exits_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    command: list[str]) -> None:
    path = write(tmp_path, SILO.replace("level := level + 5", "level := levle + 5"))
    assert main([command[0], path, *command[1:]]) == 2
    err = capsys.readouterr().err
    assert "silo.sysml:6:44: unknown name 'levle' in action Silo::fill::pour" in err
    assert "did you mean 'level'" in err


def test_a_property_reading_no_feature_of_the_checked_action_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, SILO)
    assert main(["check", path, "--action", "Silo::count", "--property", "Bounded"]) == 2
    captured = capsys.readouterr()
    assert "unknown feature 'level' in requirement Silo::Bounded (checked against Silo::count)" in captured.err
    assert "violation" not in captured.out
    # against the action that has the feature, the same property is checked and holds (level ends 5)
    assert main(["check", path, "--action", "Silo::fill", "--property", "Bounded"]) == 0


def test_a_property_that_cannot_be_evaluated_is_never_reported_violated(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`level` has no value before `pour` runs: `level <= 10` compares nothing with 10 at the start,
    which is neither true nor false; the check is refused (exit 2) naming why, not a violation."""
    path = write(tmp_path, SILO.replace("attribute level : Integer := 0;", "attribute level : Integer;")
                 .replace("level := level + 5", "level := 5"))
    assert main(["check", path, "--action", "Silo::fill", "--property", "Bounded"]) == 2
    captured = capsys.readouterr()
    assert "Silo::Bounded cannot be evaluated" in captured.err
    assert "after 0 moves" in captured.err and "the check is refused, not answered" in captured.err
    assert "violation" not in captured.out
