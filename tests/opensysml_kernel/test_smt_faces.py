"""The smt engine's faces, against a stand-in engine registered for the test (tests/opensysml_kernel/
fake_smt.py): %engine smt|all, %check-input, %check-assume, %check-bounds unroll= solver=, %engines,
the CLI's flags and exit statuses, and the verdict with what it assumed in text, HTML and JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engines.framework import Bounds, QuestionKind, path, register, unregister
from opensysml_kernel.cli import main
from opensysml_kernel.commands import execute
from opensysml_kernel.errors import EngineUnavailableError, SettingNotReadError, UsageError
from opensysml_kernel.reports import CheckReport
from opensysml_kernel.session import Session
from tests.opensysml_kernel import fake_smt
from tests.opensysml_kernel.conftest import RACE, RUNAWAY, TANK


def _as_smt(attribute: str) -> Iterator[fake_smt.FakeSmt]:
    before = path("smt")
    register("smt", f"tests.opensysml_kernel.fake_smt:{attribute}")
    engine: fake_smt.FakeSmt = getattr(fake_smt, attribute)
    engine.asked.clear()
    try:
        yield engine
    finally:
        if before is None:
            unregister("smt")
        else:
            register("smt", before)


@pytest.fixture
def smt() -> Iterator[fake_smt.FakeSmt]:
    yield from _as_smt("ENGINE")


@pytest.fixture
def models(session: Session) -> Session:
    for text in (RACE, TANK, RUNAWAY):
        session.submit(text)
    return session


def text(session: Session, line: str) -> str:
    return execute(session, line).text


def test_engines_lists_smt_with_its_status(session: Session, smt: fake_smt.FakeSmt) -> None:
    rows = {line.split()[0]: line for line in text(session, "%engines").splitlines()[1:]}
    assert rows["smt"].split()[1:4] == ["holds,", "sensitive", "proved"]
    assert rows["smt"].endswith("ready (fake solver 1.0)")
    assert text(session, "%engine smt") == "engine smt"


def test_smt_without_a_solver_is_a_status_line_and_a_clear_refusal(models: Session) -> None:
    for _ in _as_smt("UNAVAILABLE"):
        assert text(models, "%engines").splitlines()[-1].endswith("not available (no z3)")
        execute(models, "%engine smt")
        with pytest.raises(EngineUnavailableError, match="the smt engine cannot answer here: not available"):
            execute(models, "%action Race")
        # beside the others, it is shown as not asked, and the others still answer
        execute(models, "%engine all")
        report = execute(models, "%action Race")
        assert isinstance(report, CheckReport)
        assert [c.result.engine for c in report.checks] == ["check", "explore", "smt"]
        assert "  not covered: not available (no z3)" in report.text.splitlines()


def test_settings_print_their_value_and_reach_the_engine(models: Session, smt: fake_smt.FakeSmt) -> None:
    assert text(models, "%check-input") == "check-input off (the inputs the model binds)"
    assert text(models, "%check-input c c") == "check-input c"
    assert text(models, "%check-assume") == "check-assume off"
    assert text(models, "%check-assume tank::NeverNegative") == "check-assume tank::NeverNegative"
    assert text(models, "%check-bounds depth=5 unroll=3 solver=2s") == (
        "check-bounds depth=5 states=1000000 (default) timeout=none (default) unroll=3 solver=2s")
    execute(models, "%check-assume off")
    execute(models, "%check-input off")
    execute(models, "%engine smt")
    execute(models, "%action Fill")
    question, bounds = smt.asked[-1]
    assert question.kind is QuestionKind.SENSITIVE and question.inputs == () and question.assumptions == ()
    execute(models, "%check-input level")
    execute(models, "%check-assume NeverNegative")
    execute(models, "%action Fill")
    question, bounds = smt.asked[-1]
    assert (question.inputs, question.assumptions) == (("level",), ("NeverNegative",))
    assert (bounds.depth, bounds.unroll, bounds.solver_timeout) == (5, 3, 2.0)
    assert text(models, "%check-bounds off").endswith("timeout=none (default)")
    execute(models, "%action Fill")
    assert smt.asked[-1][1] == Bounds(depth=40)  # the engine's own k where no depth is set


@pytest.mark.parametrize("bad", ["unroll=0", "unroll=x", "solver=soon", "solver", "k=3"])
def test_bad_bounds_are_refused(session: Session, bad: str) -> None:
    with pytest.raises(UsageError):
        execute(session, f"%check-bounds {bad}")


def test_settings_only_smt_reads_are_refused_by_the_others(models: Session, smt: fake_smt.FakeSmt) -> None:
    execute(models, "%engine check")
    execute(models, "%check-input c")
    with pytest.raises(SettingNotReadError, match=r"free inputs .* read by the smt engine, not check"):
        execute(models, "%action Race")
    execute(models, "%check-input off")
    execute(models, "%check-bounds unroll=2")
    with pytest.raises(SettingNotReadError, match=r"unroll bound .* read by the smt engine, not check"):
        execute(models, "%action Race")


def test_sensitive_with_what_it_assumed(models: Session, smt: fake_smt.FakeSmt) -> None:
    execute(models, "%engine smt")
    execute(models, "%check-diverge c")
    report = execute(models, "%action Race")
    assert report.text == """\
✗ Action race::Race: sensitive (smt)
  sensitive: c ends as 1 or 2
    c = 1 (witness 2)
    c = 2 (witness 1)
  bounds: k = 40 moves (not asked: a witness needs no bound), L = 4 unrollings (not asked: a witness needs\
 no bound), solver 10s per query (cannot be reached)
  inputs: none free (every input as the model binds it)
  assumed: nothing
  arithmetic: exact
  standing: sensitive (witnessed: 2 witnesses replayed)"""
    assert isinstance(report, CheckReport) and report.exit_status == 1


def test_violated_and_proved_and_within(models: Session, smt: fake_smt.FakeSmt) -> None:
    execute(models, "%engine smt")
    execute(models, "%check-property NeverNegative")
    violated = execute(models, "%action Fill")
    assert violated.text.splitlines()[:2] == ["✗ Action tank::Fill: violated (smt)",
                                              "  violation: tank::NeverNegative is false after 3 moves (witness 1)"]
    execute(models, "%check-property off")
    execute(models, "%check-diverge level")
    execute(models, "%check-bounds depth=2")
    within = execute(models, "%action Fill")
    assert within.text.splitlines()[0] == "? Action tank::Fill: no sensitivity found within 2 moves (smt)"
    assert within.text.splitlines()[-1] == ("  standing: not sensitive within 2 moves (bounded: every schedule of at"
                                            " most 2 moves; depth could be reached)")
    assert isinstance(within, CheckReport) and within.exit_status == 2
    execute(models, "%check-bounds off")
    execute(models, "%check-diverge level")
    execute(models, "%check-input level")
    proved = execute(models, "%action Fill")
    lines = proved.text.splitlines()
    assert lines[0] == "✓ Action tank::Fill: not sensitive (smt)"
    assert "  inputs: level free in Integer" in lines
    assert lines[-1] == ("  standing: not sensitive (proved: every schedule of at most 40 moves, every value of"
                         " level in its domain, no bound reachable)")
    assert isinstance(proved, CheckReport) and proved.exit_status == 0


def test_not_covered_names_the_construct_and_points_to_explore(models: Session, smt: fake_smt.FakeSmt) -> None:
    execute(models, "%engine smt")
    report = execute(models, "%action Runaway")
    lines = report.text.splitlines()
    assert lines[0] == "? Action loops::Runaway: not covered (smt)"
    assert lines[1].startswith("  not covered: the while loop in spin")
    assert "%engine explore" in lines[2]
    assert isinstance(report, CheckReport) and report.exit_status == 2


def test_all_puts_the_answers_in_one_table(models: Session, smt: fake_smt.FakeSmt) -> None:
    execute(models, "%engine all")
    execute(models, "%check-diverge c")
    report = execute(models, "%action Race")
    assert isinstance(report, CheckReport) and not report.disagree
    assert [c.result.engine for c in report.checks] == ["check", "explore", "smt"]
    assert list(report.extra) == [
        "  answers:",
        "    engine   verdict                strength",
        "    check    divergent              witnessed",
        "    explore  2 outcomes (complete)  witnessed",
        "    smt      sensitive              witnessed",
        "  agree: check and explore reach the same 2 final states",
        "  agree: check and smt (sensitive)",
    ]


def test_all_flags_a_solver_that_disagrees(models: Session) -> None:
    for _ in _as_smt("LIAR"):
        execute(models, "%engine all")
        execute(models, "%check-diverge c")
        report = execute(models, "%action Race")
        assert isinstance(report, CheckReport) and report.disagree and report.exit_status == 1
        assert "✗ disagreement: check finds c sensitive, smt says not sensitive" in report.extra
        assert "<div class='opensysml-mark-fail'>" in report.html().rsplit("<hr/>", 1)[-1]


def test_all_with_free_inputs_shows_the_others_not_asked(models: Session, smt: fake_smt.FakeSmt) -> None:
    execute(models, "%engine all")
    execute(models, "%check-input c")
    report = execute(models, "%action Race")
    assert isinstance(report, CheckReport)
    verdicts = [(c.result.engine, c.result.said) for c in report.checks]
    assert verdicts == [("check", "not covered"), ("explore", "not covered"), ("smt", "sensitive")]
    assert "  not covered: the free inputs (%check-input, --input) are read by the smt engine, not check" \
        in report.text.splitlines()


def test_json_and_html_carry_what_it_assumed(models: Session, smt: fake_smt.FakeSmt) -> None:
    execute(models, "%engine smt")
    execute(models, "%check-input c")
    execute(models, "%check-diverge c")
    report = execute(models, "%action Race")
    assert isinstance(report, CheckReport)
    (check,) = report.document()["checks"]
    assert (check["engine"], check["verdict"], check["strength"]) == ("smt", "sensitive", "witnessed")
    assert check["bounds"][0] == {"name": "depth", "limit": "40", "reached": False}
    assert check["inputs"] == [{"name": "c", "domain": "Integer", "free": True, "value": None,
                                "witnesses": ["0", "0"]}]
    assert check["reason"] is None and check["arithmetic"] == "exact" and check["assumptions"] == []
    assert [w["index"] for w in check["witnesses"]] == [1, 2]
    page = report.html()
    assert "<th>could be reached</th>" in page
    assert "<td><code>c</code></td><td><code>Integer</code>" in page


# ---------------------------------------------------------------- the command line


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    out = []
    for name, body in (("race", RACE), ("tank", TANK)):
        target = tmp_path / f"{name}.sysml"
        target.write_text(body, encoding="utf-8")
        out.append(str(target))
    return out


def test_cli_smt_flags_reach_the_engine(files: list[str], smt: fake_smt.FakeSmt,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", *files, "--action", "Fill", "--engine", "smt", "--input", "level", "--assume",
                 "NeverNegative", "--depth", "12", "--unroll", "3", "--solver-timeout", "500ms", "--induction",
                 "--diverge", "level"])
    question, bounds = smt.asked[-1]
    assert (question.inputs, question.assumptions, question.induction) == (("level",), ("NeverNegative",), True)
    assert (bounds.depth, bounds.unroll, bounds.solver_timeout) == (12, 3, 0.5)
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "✓ Action tank::Fill: not sensitive, unbounded (k-induction at 12) (smt)" and code == 0


def test_cli_exit_statuses_and_json(files: list[str], smt: fake_smt.FakeSmt,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", *files, "--action", "Race", "--engine", "smt", "--diverge", "c"]) == 1
    capsys.readouterr()
    assert main(["check", *files, "--action", "Fill", "--engine", "all", "--diverge", "level", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [c["engine"] for c in document["checks"]] == ["check", "explore", "smt"]
    assert document["checks"][2]["verdict"] == "not sensitive" and document["status"] == "passed"


@pytest.mark.parametrize(("flags", "said"), [
    (["--engine", "smt", "--input", "nothing"], "has no feature 'nothing'"),
    (["--engine", "smt", "--assume", "Nowhere"], "no constraint or requirement named 'Nowhere'"),
    (["--engine", "smt", "--solver-timeout", "soon"], "'soon' is not a duration"),
    (["--engine", "smt", "--unroll", "0"], "--unroll needs a positive whole number"),
    (["--engine", "check", "--input", "c"], "read by the smt engine, not check"),
])
def test_cli_bad_input_is_exit_2(files: list[str], smt: fake_smt.FakeSmt, capsys: pytest.CaptureFixture[str],
                                 flags: list[str], said: str) -> None:
    assert main(["check", *files, "--action", "Race", *flags]) == 2
    assert said in capsys.readouterr().err


def test_cli_non_numeric_bound_is_exit_2(files: list[str], smt: fake_smt.FakeSmt) -> None:
    assert main(["check", *files, "--action", "Race", "--engine", "smt", "--unroll", "many"]) == 2


def test_cli_smt_without_a_solver_refuses(files: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    for _ in _as_smt("UNAVAILABLE"):
        assert main(["check", *files, "--action", "Race", "--engine", "smt"]) == 2
        assert "the smt engine cannot answer here: not available (no z3)" in capsys.readouterr().err
