"""The % commands: their texts, their usage errors, and the trace of the default run."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import RACE

from engines.errors import ScheduleError
from ir.errors import SysmlError
from opensysml_kernel.commands import COMMANDS, execute
from opensysml_kernel.errors import NoRunError, UnknownCommandError, UsageError
from opensysml_kernel.results import Tone
from opensysml_kernel.session import Session


def text(session: Session, line: str) -> str:
    return execute(session, line).text


def test_every_command_has_usage_help_and_example() -> None:
    for name, command in COMMANDS.items():
        assert command.usage.startswith(f"%{name}") and command.help and command.example.startswith(f"%{name}")


def test_action_starts_and_lists_tokens(race: Session) -> None:
    result = execute(race, "%action Race")
    assert result.text == "▶ Action race::Race started (schedule reverse)\ntoken 1@start"
    assert result.tone is Tone.STARTED


def test_step_prints_step_lines_with_trace_off(race: Session) -> None:
    execute(race, "%action race::Race")
    assert text(race, "%step") == "step 1: token 1@f"
    assert text(race, "%tokens") == "token 1@f"
    assert text(race, "%step 2") == "step 2: token 2@a, token 3@b\nstep 3: token 2@j, token 3@j"
    assert text(race, "%tokens") == "token 2@j\ntoken 3@j"


def test_continue_completes_with_outputs(race: Session) -> None:
    execute(race, "%action Race")
    result = execute(race, "%continue")
    assert result.text.splitlines()[-2:] == ["✓ Action race::Race completed", "  c = 1"]
    assert result.tone is Tone.COMPLETED
    assert result.data["outputs"] == {"c": "1"}
    assert text(race, "%tokens") == "no active tokens"


def test_step_after_completion(race: Session) -> None:
    execute(race, "%action Race")
    execute(race, "%continue")
    with pytest.raises(NoRunError, match="has completed: start another with %action race::Race"):
        execute(race, "%step")


def test_trace_on_reproduces_the_corpus_golden_trace(session: Session, corpus_dir: Path) -> None:
    case = corpus_dir / "conformance" / "action_explore_body_fork_lost_update"
    session.submit(case.with_suffix(".sysml").read_text())
    assert text(session, "%trace on") == "trace on"
    execute(session, "%action test::ForkPlain")
    result = execute(session, "%continue")
    golden = case.with_suffix(".trace.golden").read_text().splitlines()
    assert list(result.lines[: len(golden)]) == golden
    assert result.lines[len(golden):] == ("✓ Action test::ForkPlain completed", "  a.t = 1", "  b.t = 0", "  c = 2")


def test_trace_without_argument_shows_setting_and_trace(race: Session) -> None:
    assert text(race, "%trace") == "trace off"
    execute(race, "%action Race")
    execute(race, "%step")
    assert text(race, "%trace") == "trace off\ntrace of race::Race so far:\n  step 1: token 1@f"
    assert text(race, "%trace off") == "trace off"


def test_schedule_setting(race: Session) -> None:
    assert text(race, "%schedule") == "schedule reverse"
    assert text(race, "%schedule seed:007") == "schedule seed:7"
    assert execute(race, "%action Race").lines[0] == "▶ Action race::Race started (schedule seed:7)"
    assert text(race, "%schedule declared") == "schedule declared"
    with pytest.raises(ScheduleError, match="unknown schedule 'sideways'"):
        execute(race, "%schedule sideways")
    assert race.schedule == "declared"


def test_list_and_clear(session: Session) -> None:
    assert text(session, "%list") == "no declarations"
    session.submit(RACE)
    listing = text(session, "%list").splitlines()
    assert listing[0].split() == ["kind", "name", "where"]
    assert listing[2].split() == ["action", "race::Race", "<cell", "1>:3"]
    assert text(session, "%clear") == "session cleared"
    assert text(session, "%list") == "no declarations"


def test_help(session: Session) -> None:
    listing = text(session, "%help").splitlines()
    assert len(listing) == 2 + len(COMMANDS)
    assert text(session, "%help step") == ("usage: %step [n]\n  advance the run one step (one move, when replaying a"
                                          " witness; a machine's: one dispatch or do step), or n; stops at a"
                                          " breakpoint\nexample: %step 2")
    assert text(session, "%help %trace").startswith("usage: %trace [on|off]")


def test_unknown_command_names_close_ones(session: Session) -> None:
    with pytest.raises(UnknownCommandError, match=r"unknown command '%stpe'; did you mean '%step'"):
        execute(session, "%stpe")
    with pytest.raises(UnknownCommandError):
        execute(session, "%help nothing")


@pytest.mark.parametrize("line, message", [
    ("%step 0", "positive number"),
    ("%step two", "positive number"),
    ("%step 1 2", "at most one number"),
    ("%trace maybe", "on or off"),
    ("%list extra", "takes no arguments"),
    ("%action", "needs an action name"),
    ("%load", "at least one file"),
    ("%action 'unclosed", "cannot split"),
    ("step", "is not a command"),
])
def test_usage_errors(race: Session, line: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        execute(race, line)
    assert "\nusage: " in str(caught.value)


def test_action_with_performer_is_named(race: Session) -> None:
    race.submit("package race { part def Heater { attribute c : Integer = 0; perform Race; } part heaterUnit : Heater; }")
    assert execute(race, "%action Race heaterUnit").lines[0] == (
        "▶ Action race::Race performed by heaterUnit started (schedule reverse)")


def test_action_with_an_unknown_performer_names_close_objects(race: Session) -> None:
    race.submit("package race { part def Heater; part heaterUnit : Heater; }")
    with pytest.raises(SysmlError, match="no part named 'heaterUnt'; did you mean 'race::heaterUnit'"):
        execute(race, "%action Race heaterUnt")


def test_load_command(session: Session, tmp_path: Path) -> None:
    (tmp_path / "m.sysml").write_text(RACE)
    assert text(session, f"%load {tmp_path / 'm.sysml'}") == f"loaded {tmp_path / 'm.sysml'}\ndeclared action race::Race"
