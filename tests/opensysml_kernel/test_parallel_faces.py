"""The parallel check on the faces: `%check-bounds workers=N` and `check --workers N` report what the
sequential check reports (the moves searched aside: a breadth-first search takes each state's moves
once); `%engines` says whether the parallel search can run. Skipped where Ray is not installed."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from conftest import RACE

from opensysml_kernel.cli import main
from opensysml_kernel.commands import execute
from opensysml_kernel.errors import UsageError
from opensysml_kernel.session import Session

NO_RAY = "Ray is not installed: pip install -e '.[ray]'"
needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason=NO_RAY)


def _without_moves(text: str) -> str:
    return re.sub(r"\d+ moves", "N moves", text)


def test_workers_is_a_bound_shown_once_set(session: Session) -> None:
    assert "workers" not in execute(session, "%check-bounds").text
    assert execute(session, "%check-bounds workers=2").text.endswith(" workers=2")
    assert session.settings.bounds().workers == 2
    for bad in ("workers=0", "workers=two"):
        with pytest.raises(UsageError):
            execute(session, f"%check-bounds {bad}")
    assert "workers" not in execute(session, "%check-bounds off").text


def test_engines_lists_the_parallel_search(session: Session) -> None:
    rows = execute(session, "%engines").text.splitlines()
    row = next(line for line in rows if line.startswith("check --workers"))
    ready = importlib.util.find_spec("ray") is not None
    assert row.endswith("ready") if ready else ".[ray]" in row


@needs_ray
def test_a_notebook_check_over_workers_reports_as_one_process(race: Session) -> None:
    execute(race, "%engine check")
    alone = execute(race, "%action Race").text
    execute(race, "%check-bounds workers=2")
    spread = execute(race, "%action Race").text
    assert _without_moves(spread) == _without_moves(alone)


@needs_ray
def test_the_cli_check_over_workers_reports_as_one_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "race.sysml"
    model.write_text(RACE)
    assert main(["check", str(model), "--action", "Race"]) == 1
    alone = capsys.readouterr().out
    assert main(["check", str(model), "--action", "Race", "--workers", "2"]) == 1
    assert _without_moves(capsys.readouterr().out) == _without_moves(alone)
    assert main(["check", str(model), "--action", "Race", "--ray", "127.0.0.1:1"]) == 2  # --ray alone is refused
    assert "--workers" in capsys.readouterr().err


def _without_witnesses(text: str) -> str:
    """What a report says, but for which schedules witness it (breadth first keeps the shallowest, depth
    first the first found) and the moves searched."""
    return re.sub(r"\d+ witnesses", "N witnesses", re.sub(r"\(witness \d+\)", "(witness N)", _without_moves(text)))


@needs_ray
def test_the_cli_checks_a_machine_over_workers_as_in_one_process(capsys: pytest.CaptureFixture[str]) -> None:
    model = str(Path(__file__).resolve().parents[1] / "engines" / "check" / "machines" / "door.sysml")
    args = ["check", model, "--state", "DoorMachine", "--alphabet", "Open,Close", "--max-events", "2"]
    assert main(args) == 1
    alone = capsys.readouterr().out
    assert main([*args, "--workers", "2"]) == 1
    spread = capsys.readouterr().out
    assert "divergent (16 states" in spread
    assert _without_witnesses(spread) == _without_witnesses(alone)
