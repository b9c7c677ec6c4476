"""Session: atomic submissions, replacement of redeclared names, loading files, runs and their failures."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import NOT_BOOLEAN, RACE, RUNAWAY

from engines.errors import GuardNotBoolean, StepBudgetExceeded
from ir.errors import NoInitialTransitionError, ResolveError, SysmlSyntaxError, UnknownStateError
from opensysml_kernel.commands import execute, execute_cell
from opensysml_kernel.errors import MissingFileError, NoRunError, RunFailedError, UnknownActionError
from opensysml_kernel.session import Session


def state(session: Session) -> tuple[object, ...]:
    return (session.documents, session.model, session.run, session.subject, session.schedule, session.trace)


def names(session: Session) -> list[str]:
    return [d.qualified_name for d in session.declarations()]


def test_submit_declares_in_document_order(session: Session) -> None:
    result = session.submit(RACE)
    assert result.text == "declared action race::Race"
    assert names(session) == ["race", "race::Race", "race::Race::c", "race::Race::a", "race::Race::b"]
    assert session.declarations()[1].path == "<cell 1>"


def test_syntax_error_changes_nothing(race: Session) -> None:
    before = state(race)
    with pytest.raises(SysmlSyntaxError) as caught:
        race.submit("package broken {\n  action a \n}\n")
    assert str(caught.value).startswith("<cell 2>:2:") and "syntax error: expected" in str(caught.value)
    assert state(race) == before


def test_resolve_error_changes_nothing(race: Session) -> None:
    before = state(race)
    with pytest.raises(ResolveError, match="unknown type 'Missing'"):
        race.submit("package other { part p : Missing; }")
    assert state(race) == before


def test_a_machine_without_an_initial_transition_is_refused_at_submission(race: Session) -> None:
    before = state(race)
    with pytest.raises(NoInitialTransitionError) as caught:
        race.submit("package door {\n  attribute def Open;\n  state def Door {\n    state shut;\n    state open;\n"
                    "    transition first shut accept Open then open;\n  }\n}\n")
    err = caught.value
    assert (err.path, err.line) == ("<cell 2>", 3) and "entry; then shut;" in err.hint
    assert state(race) == before


def test_a_part_exhibiting_a_machine_with_a_path_to_no_state_is_refused(race: Session) -> None:
    before = state(race)
    with pytest.raises(UnknownStateError, match=r"'idle\.zz'"):
        race.submit("package door { attribute def Go; part def Door { exhibit state life {\n"
                    "  entry; then idle; state idle { state a; entry; then a; }\n"
                    "  transition first idle accept Go then idle.zz; } } }")
    assert state(race) == before


def test_resubmission_replaces_the_whole_older_document(race: Session) -> None:
    result = race.submit("package race { action Race { attribute d = 1; } }")
    assert "note: race::Race redeclared" in result.lines
    assert len(race.documents) == 1
    assert names(race) == ["race", "race::Race", "race::Race::d"]


def test_partial_redeclaration_keeps_both_later_wins(race: Session) -> None:
    race.submit("package race { action Other { } }")
    race.submit("package race { action Other { attribute z = 3; } action Third { } }")
    assert len(race.documents) == 2  # the race document still declares race::Race
    assert "race::Race::c" in names(race)
    assert "race::Other::z" in names(race)


def test_redeclaration_drops_the_run_with_a_note(race: Session) -> None:
    race.start_action("Race")
    result = race.submit(RACE)
    assert result.lines[-1] == ("note: the run of race::Race was dropped because its model changed;"
                                " %action race::Race starts it again")
    assert race.run is None


def test_new_declarations_keep_the_run(race: Session) -> None:
    race.start_action("Race")
    run = race.run
    race.submit("package elsewhere { action Idle; }")
    assert race.run is run


def test_load_files_and_globs(session: Session, tmp_path: Path) -> None:
    (tmp_path / "a.sysml").write_text(RACE)
    (tmp_path / "b.sysml").write_text(RUNAWAY)
    result = session.load([str(tmp_path / "*.sysml")])
    assert result.lines[:2] == (f"loaded {tmp_path / 'a.sysml'}", f"loaded {tmp_path / 'b.sysml'}")
    assert session.model.behaviors("action")[0] == "race::Race"


def test_load_is_all_or_nothing(session: Session, tmp_path: Path) -> None:
    (tmp_path / "good.sysml").write_text(RACE)
    (tmp_path / "bad.sysml").write_text("package bad {")
    with pytest.raises(SysmlSyntaxError):
        session.load([str(tmp_path / "good.sysml"), str(tmp_path / "bad.sysml")])
    assert session.documents == ()


def test_load_missing_file(session: Session, tmp_path: Path) -> None:
    with pytest.raises(MissingFileError, match=r"no such file '.*nope\.sysml'"):
        session.load([str(tmp_path / "nope.sysml")])
    with pytest.raises(MissingFileError, match="no file matches"):
        session.load([str(tmp_path / "*.sysml")])


def test_action_names_unqualified_ambiguous_and_unknown(race: Session) -> None:
    assert race.action_name("Race") == "race::Race"
    assert race.action_name("race::Race") == "race::Race"
    with pytest.raises(UnknownActionError, match=r"no action named 'Rase'; did you mean 'race::Race'\?"):
        race.action_name("Rase")
    race.submit("package two { action Race; }")
    with pytest.raises(UnknownActionError, match="ambiguous: race::Race, two::Race"):
        race.action_name("Race")


def test_unknown_action_in_empty_model(session: Session) -> None:
    with pytest.raises(UnknownActionError, match="declares no action yet"):
        session.start_action("Anything")


def test_step_without_run(session: Session) -> None:
    with pytest.raises(NoRunError, match="no run to step: start one with %action <name>"):
        session.step()


def test_run_to_completion_outputs(race: Session) -> None:
    race.start_action("Race")
    progress = race.continue_run()
    assert progress.status == "completed"
    assert progress.outputs == (("c", "1"),)
    assert race.full_trace()[-1] == "step 5: no active tokens"


def test_step_budget_exhausted(session: Session) -> None:
    session.submit(RUNAWAY)
    session.start_action("Runaway")
    with pytest.raises(RunFailedError) as caught:
        session.continue_run()
    assert isinstance(caught.value.cause, StepBudgetExceeded)
    assert str(caught.value).startswith("✗ Action loops::Runaway failed at step 2: step limit exceeded")
    assert session.run is not None and session.run.status == "failed"


def test_non_boolean_guard(session: Session) -> None:
    session.submit(NOT_BOOLEAN)
    session.start_action("Seq")
    with pytest.raises(RunFailedError, match="guard must evaluate to boolean") as caught:
        session.continue_run()
    assert isinstance(caught.value.cause, GuardNotBoolean)
    assert caught.value.lines == ("step 1: token 1@s1",)


def test_failing_cell_restores_the_session(race: Session) -> None:
    execute(race, "%trace on")
    before = state(race)
    cell = "%trace off\npackage more { action M; }\n%action Nope\n"
    with pytest.raises(UnknownActionError):
        list(execute_cell(race, cell))
    assert state(race) == before
    assert "more::M" not in names(race)


def test_run_failure_in_a_cell_is_kept(session: Session) -> None:
    cell = NOT_BOOLEAN + "%action Seq\n%continue\n"
    with pytest.raises(RunFailedError):
        list(execute_cell(session, cell))
    assert session.subject == "guards::Seq"
    assert session.run is not None and session.run.status == "failed"


def test_clear_keeps_settings(race: Session) -> None:
    execute(race, "%trace on")
    race.start_action("Race")
    race.clear()
    assert race.declarations() == [] and race.run is None and race.trace is True


def test_notation_outside_sysml_v2_is_said_with_how_it_is_read() -> None:
    """`then X;` right after a succession has no SysML v2 production: it runs (continuing from the
    succession's target) and the submission says so, where and how it was read; a standard model says
    nothing of the kind."""
    session = Session()
    result = session.submit("package p { action a {\n  action src; action dbl;\n  first start then src;\n"
                            "  then dbl;\n  then done;\n} }", "pipe.sysml")
    notes = [line for line in result.lines if line.startswith("note: ")]
    assert notes == ["note: pipe.sysml:4:3: `then dbl` right after a succession is not SysML v2 notation "
                     "(a target succession follows a step or a control node); read as `succession src then dbl;`",
                     "note: pipe.sysml:5:3: `then done` right after a succession is not SysML v2 notation "
                     "(a target succession follows a step or a control node); read as `succession src then done;`"]
    result = session.submit("package q { action b {\n  first start;\n  then action src;\n  then done;\n} }")
    assert not any(line.startswith("note: ") for line in result.lines)


def test_a_then_chain_broken_by_a_named_step_is_said_with_the_sequence_it_looks_like() -> None:
    """`first start; then mix; then fill;` with both declared elsewhere is two successions from start
    (SysML v2 attaches each `then` to the step declared before it): mix and fill race, where the text
    looks like a sequence, so the submission says so and how to write one. After a fork, `then a; then
    b;` is how branches are written: nothing is said; nor where each `then` declares its step. The
    run takes the standard reading: fill may start before mix."""
    session = Session()
    text = ("package line {\n  private import ScalarValues::*;\n  action def Line {\n"
            "    attribute n : Integer := 0;\n    action mix { assign n := 1; }\n"
            "    action fill { assign n := n * 10; }\n    first start;\n    then mix;\n    then fill;\n"
            "  }\n}")
    result = session.submit(text, "line.sysml")
    notes = [line for line in result.lines if line.startswith("note: ")]
    assert notes == ["note: line.sysml:9:5: `then fill` follows start, as `then mix;` before it does (a `then` "
                     "naming a step declared elsewhere does not continue the chain): mix and fill may run "
                     "concurrently; for fill after mix write `succession mix then fill;`"]
    from engines.check import check
    searched = check(session.program(), "line::Line", diverge=("n",))
    ((_, values),) = searched.divergent
    assert {v for v, _ in values} == {"1", "10"}  # fill first: 0 * 10 then 1; mix first: 10
    for quiet in ("package a { action A { action x; action y; first start; then fork f; then x; then y; } }",
                  "package b { action B { first start; then action x; then action y; } }"):
        assert not any(line.startswith("note: ") for line in session.submit(quiet).lines)


def test_a_unit_no_import_names_is_said_and_read_all_the_same() -> None:
    """`accept after 2 [s]` with no `import SI::*` in reach names a unit SysML v2 cannot resolve: the
    submission says where, and the wait still runs as two seconds; with the import, or a unit declared
    in reach, nothing is said."""
    session = Session()
    result = session.submit("package q {\n  action def B {\n    first start;\n    then action w accept after 2 [s];\n"
                            "  }\n}", "wait.sysml")
    notes = [line for line in result.lines if line.startswith("note: ")]
    assert notes == ["note: wait.sysml:4:32: `[s]` names nothing in scope, which SysML v2 requires of a unit (add "
                     "`private import SI::*;`, or the package that declares it); read as the unit `s` all the same"]
    run = session.program().start_action("q::B")
    run.run_to_end()
    assert run.finished and str(run.world.clock.now) == "2"
    for text in ("package p {\n  private import SI::*;\n  action def A { first start; then action w accept after 5 [s]; }\n}",
                 "package u {\n  attribute def Tick;\n  attribute tick : Tick;\n"
                 "  action def C { first start; then action w accept after 5 [tick]; }\n}"):
        result = session.submit(text)
        assert not any(line.startswith("note: ") for line in result.lines), result.lines
