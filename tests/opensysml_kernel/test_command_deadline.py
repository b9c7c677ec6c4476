"""`opensysml-kernel check --timeout T` counts T from the process's start: the imports, the grammar
and loading the model spend the same budget as the engines, and several engines or actions share it
(issue 9: the command ends within T + 1 s of its start). benchmarks/bounds.py measures the figures;
these tests pin the accounting."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from engines.runtime.watch import Watch, command_deadline, process_started
from opensysml_kernel import cli

SPIN = """package Plant {
    private import ScalarValues::*;
    action Spin {
        attribute turns : Integer := 0;
        first start; then spin;
        action spin { while true { assign turns := turns + 1; } }
    }
}
"""


def test_a_watch_keeps_the_command_deadline_besides_its_own() -> None:
    assert Watch(None).deadline is None
    with command_deadline(100.0):
        assert Watch(None).deadline == 100.0
        assert Watch(50.0).deadline == 50.0
        assert Watch(500.0).deadline == 100.0
        with command_deadline(80.0):
            assert Watch(500.0).deadline == 80.0
        assert Watch(500.0).deadline == 100.0
    with command_deadline(None):
        assert Watch(500.0).deadline == 500.0
    assert Watch(500.0).deadline == 500.0


def test_the_process_started_before_this_test() -> None:
    started = process_started()
    assert started <= time.monotonic()
    # pytest imported the project before running any test: the process is older than that
    assert started <= cli_imported


cli_imported = time.monotonic()


def test_a_command_whose_start_spent_its_time_stops_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A process that has already lived past T when the engine starts: the engine stops at its first
    move, incomplete on time, instead of running T more."""
    model = tmp_path / "spin.sysml"
    model.write_text(SPIN, encoding="utf-8")
    monkeypatch.setattr(cli, "process_started", lambda: time.monotonic() - 60.0)
    monkeypatch.setattr(sys, "argv", ["opensysml-kernel", "check", str(model), "--action", "Spin",
                                      "--engine", "check", "--timeout", "20s", "--json"])
    started = time.monotonic()
    code = cli.main()
    elapsed = time.monotonic() - started
    (checked,) = json.loads(capsys.readouterr().out)["checks"]
    assert code == 2
    assert elapsed < 20.0
    assert (checked["verdict"], checked["incomplete"]) == ("incomplete", "time")


def test_a_call_with_arguments_counts_from_the_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """main(argv) (a program calling the command, or a test) counts from its call, not from the process."""
    model = tmp_path / "spin.sysml"
    model.write_text(SPIN, encoding="utf-8")
    monkeypatch.setattr(cli, "process_started", lambda: time.monotonic() - 3600.0)
    # The step budget out of reach, so on a fast machine the second runs out before the budget does.
    monkeypatch.setenv("OPENSYSML_MAX_ACTION_STEPS", "100000000")
    started = time.monotonic()
    code = cli.main(["check", str(model), "--action", "Spin", "--engine", "check", "--timeout", "1s",
                     "--depth", "100000000", "--json"])
    elapsed = time.monotonic() - started
    (checked,) = json.loads(capsys.readouterr().out)["checks"]
    assert code == 2
    assert elapsed >= 0.5  # not charged the process's hour, which would stop it at its first move
    assert (checked["verdict"], checked["incomplete"]) == ("incomplete", "time")
