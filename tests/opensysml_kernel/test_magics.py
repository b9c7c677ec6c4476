"""`%load_ext opensysml_kernel` in a plain IPython: line magics, `%%sysml` cells, readable errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import RACE
from IPython.core.interactiveshell import InteractiveShell

from opensysml_kernel.errors import UnknownCommandError
from opensysml_kernel.results import Result
from opensysml_kernel.session import Session


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    shell = InteractiveShell.instance()
    shell.user_ns.pop("session", None)  # a fresh Session for every test
    result = shell.run_cell("%reload_ext opensysml_kernel")
    assert result.success
    yield shell


def test_session_is_bound(shell: InteractiveShell) -> None:
    assert isinstance(shell.user_ns["session"], Session)


def test_cell_magic_and_line_magics(shell: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    assert shell.run_cell("%%sysml\n" + RACE + "%action Race\n").success
    out = capsys.readouterr().out
    assert "declared action race::Race" in out and "▶ Action race::Race started (schedule reverse)" in out
    result = shell.run_cell("%step", store_history=True)
    assert isinstance(result.result, Result) and result.result.text == "step 1: token 1@f"
    assert shell.run_cell("r = %continue").success
    assert shell.user_ns["r"].data["outputs"] == {"c": "1"}
    assert shell.run_cell("%sysml tokens").result.text == "no active tokens"


def test_errors_read_as_messages(shell: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    result = shell.run_cell("%sysml stpe")
    assert isinstance(result.error_in_exec, UnknownCommandError)
    out = capsys.readouterr().out
    assert "unknown command '%stpe'; did you mean '%step'" in out
    assert "Traceback" not in out
    result = shell.run_cell("%%sysml\npackage p {\n  action a \n}\n")
    assert not result.success and "Traceback" not in capsys.readouterr().out
    assert shell.user_ns["session"].documents == ()


def test_load_is_sysml_for_sysml_files_only(shell: InteractiveShell, tmp_path: Path) -> None:
    (tmp_path / "m.sysml").write_text(RACE)
    (tmp_path / "script.py").write_text("x = 1\n")
    result = shell.run_cell(f"%load {tmp_path / 'm.sysml'}")
    assert result.success and result.result.lines[-1] == "declared action race::Race"
    result = shell.run_cell(f"%load {tmp_path / 'script.py'}")
    assert result.success and result.result is None  # IPython's own %load took it


def test_check_commands_as_magics(shell: InteractiveShell) -> None:
    """Hyphenated commands work as line magics; `r = %action ...` under a checking engine is the report."""
    from opensysml_kernel.reports import CheckReport

    assert shell.run_cell("%%sysml\n" + RACE).success
    assert shell.run_cell("%check-diverge c").result.text == "check-diverge c"
    assert shell.run_cell("%engine check").success
    assert shell.run_cell("r = %action Race").success
    report = shell.user_ns["r"]
    assert isinstance(report, CheckReport) and report.verdict.value == "divergent"
    assert "application/vnd.opensysml.report+json" in report._repr_mimebundle_()
