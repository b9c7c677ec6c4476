"""The REPL without a terminal: transcripts of entries, and the real prompt fed through a pipe."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from conftest import RACE
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from opensysml_kernel.repl import BANNER, Repl, SysmlCompleter, history, transcript
from opensysml_kernel.session import Session


def test_transcript_of_a_run() -> None:
    out = transcript([RACE, "%action Race", "%step", "%tokens", "%continue"])
    assert out.splitlines() == [
        "declared action race::Race",
        "▶ Action race::Race started (schedule reverse)",
        "token 1@start",
        "step 1: token 1@f",
        "token 1@f",
        "step 2: token 2@a, token 3@b",
        "step 3: token 2@j, token 3@j",
        "step 4: token 4@done",
        "step 5: no active tokens",
        "✓ Action race::Race completed",
        "  c = 1",
    ]


def test_errors_are_printed_and_change_nothing() -> None:
    session = Session()
    out = transcript(["package p {\n  action a \n}", "%stpe", "%step"], session)
    assert "syntax error: expected ';' or '{' after 'action a'" in out
    assert "unknown command '%stpe'; did you mean '%step'" in out
    assert "no run to step: start one with %action <name>" in out
    assert session.documents == ()


def test_tables_render(race: Session) -> None:
    out = transcript(["%list"], race)
    assert out.splitlines()[1].split() == ["package", "race", "<cell", "1>:1"]


def test_prompt_loop_multiline_and_ctrl_d(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    buffer = io.StringIO()
    repl = Repl(console=Console(file=buffer, width=100, color_system=None))
    with create_pipe_input() as pipe:
        # Enter inside open braces continues the entry; the closing brace's Enter submits it.
        pipe.send_text("package p {\r  action a;\r}\r%list\r")
        pipe.send_text("\x04")
        repl.loop(repl.prompt_session(input=pipe, output=DummyOutput()))
    lines = buffer.getvalue().splitlines()
    assert lines[0] == BANNER
    assert lines[1] == "declared action p::a"
    assert lines[3].split() == ["package", "p", "<cell", "1>:1"]
    assert (tmp_path / ".opensysml_history").read_text().count("+package p {") == 1


def test_history_tolerates_an_unwritable_home(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(locked, 0o500)
    store = history(str(locked / "sub" / "history"))
    store.append_string("%list")  # must not raise
    assert list(store.load_history_strings()) in ([], ["%list"])


def test_completer(race: Session) -> None:
    completer = SysmlCompleter(race)
    found = list(completer.get_completions(Document("%action Ra", 10), CompleteEvent()))
    assert [(c.text, c.start_position) for c in found] == [("race::Race", -2)]


def test_help_renders_brackets_literally() -> None:
    """A usage's `[n]`, `[on <part>]` and `[<name>...|off]` are text, not rich markup that vanishes."""
    out = transcript(["%help"], Session())
    assert "%step [n]" in out
    assert "%action <qualified name> [on <part>]" in out
    assert "%engine [run|explore|check|all|auto]" in out
    assert "%check-bounds [depth=N] [states=N]" in out


def test_an_unbalanced_entry_shows_a_hint_and_esc_enter_submits_it(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from opensysml_kernel.repl import hint

    assert hint("package p {") == (" 1 brace open: Enter adds a line; Esc-Enter (or Alt-Enter) submits the entry"
                                   " as it is")
    assert hint("package p { action a {") is not None and hint("package p { action a {").startswith(" 2 braces")
    assert hint("package p { }") is None
    monkeypatch.setenv("HOME", str(tmp_path))
    buffer = io.StringIO()
    session = Session()
    repl = Repl(session, console=Console(file=buffer, width=100, color_system=None))
    with create_pipe_input() as pipe:
        # the closing brace is missing: Enter goes on, Esc-Enter submits, and the syntax error is said
        pipe.send_text("package p {\r  action a;\r\x1b\r%list\r")
        pipe.send_text("\x04")
        repl.loop(repl.prompt_session(input=pipe, output=DummyOutput()))
    out = buffer.getvalue()
    assert "syntax error: expected '}' to close the '{' on line 1" in out
    assert "no declarations" in out  # the entry changed nothing; the REPL went on to %list
    assert session.documents == ()
