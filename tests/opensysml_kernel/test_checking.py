"""Checks from the session: %engine, %engines, the %check- settings, %action under a checking engine,
witness files, interrupts and the progress line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engines.errors import EngineError
from engines.framework import WorkerFigures
from engines.witness import model_hash
from opensysml_kernel.checking import CheckSettings, ProgressMeter, interrupted_result, parse_duration
from opensysml_kernel.commands import execute, execute_cell
from opensysml_kernel.errors import SettingNotReadError, UsageError
from opensysml_kernel.reports import CheckReport
from opensysml_kernel.session import Session


def text(session: Session, line: str) -> str:
    return execute(session, line).text


def test_engine_setting(session: Session) -> None:
    assert text(session, "%engine") == "engine auto (run: no check setting is set)"
    assert text(session, "%engine check") == "engine check"
    assert text(session, "%engine") == "engine check"
    assert text(session, "%engine smt") == "engine smt"
    with pytest.raises(UsageError, match="one of run, explore, check, smt, all, auto"):
        execute(session, "%engine z3")


def test_auto_checks_once_a_check_setting_is_set(race: Session) -> None:
    assert text(race, "%action Race").startswith("▶ Action race::Race started")
    execute(race, "%check-diverge c")
    assert text(race, "%engine") == "engine auto (check: a check setting is set)"
    assert text(race, "%action Race").startswith("✗ Action race::Race: divergent (")


def test_engines_table(session: Session) -> None:
    lines = text(session, "%engines").splitlines()
    assert lines[0].split() == ["engine", "answers", "strength", "status"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert set(rows) >= {"run", "explore", "check"}
    assert "witnessed" in rows["explore"] and rows["explore"].endswith("ready")
    assert "bounded" in rows["check"] and rows["check"].endswith("ready")


def test_settings_print_their_value(session: Session) -> None:
    assert text(session, "%check-property") == "check-property off"
    assert text(session, "%check-property a::R a::S a::R") == "check-property a::R, a::S"
    assert text(session, "%check-property off") == "check-property off"
    assert text(session, "%check-diverge") == "check-diverge off (every attribute of the action)"
    assert text(session, "%check-diverge x y") == "check-diverge x, y"
    assert text(session, "%check-witness") == "check-witness off"
    assert text(session, "%check-witness out") == "check-witness out"
    assert text(session, "%check-witness off") == "check-witness off"


def test_check_bounds(session: Session) -> None:
    assert text(session, "%check-bounds") == ("check-bounds depth=10000 (default) states=1000000 (default)"
                                              " timeout=none (default)")
    assert text(session, "%check-bounds depth=50 timeout=10s") == ("check-bounds depth=50 states=1000000 (default)"
                                                                   " timeout=10s")
    assert text(session, "%check-bounds timeout=500ms") == "check-bounds depth=50 states=1000000 (default) timeout=500ms"
    assert session.settings.bounds().timeout == 0.5
    assert text(session, "%check-bounds off").startswith("check-bounds depth=10000 (default)")
    for bad in ("depth=0", "depth=x", "runs=3", "timeout=soon", "depth", "memory=lots", "memory=0"):
        with pytest.raises(UsageError):
            execute(session, f"%check-bounds {bad}")


def test_a_memory_bound_is_shown_once_set(session: Session) -> None:
    assert text(session, "%check-bounds memory=2G") == ("check-bounds depth=10000 (default) states=1000000 (default)"
                                                        " timeout=none (default) memory=2GiB")
    assert session.settings.bounds().memory == 2 << 30
    assert "memory" not in text(session, "%check-bounds off")


def test_durations() -> None:
    assert parse_duration("10s") == 10 and parse_duration("2m") == 120 and parse_duration("3") == 3
    with pytest.raises(ValueError):
        parse_duration("-1s")


def test_check_reports_divergence(race: Session) -> None:
    execute(race, "%engine check")
    report = execute(race, "%action Race")
    assert isinstance(report, CheckReport)
    lines = report.text.splitlines()
    assert lines[0].startswith("✗ Action race::Race: divergent (")
    assert lines[1:6] == ["  divergent: c ends as 1 or 2", "    c = 1 (witness 2)", "    c = 2 (witness 1)",
                          "  outcome: c = 1 (witness 2)", "  outcome: c = 2 (witness 1)"]
    assert lines[-1].startswith("  standing: sensitive (witnessed: ")
    assert report.exit_status == 1 and len(report.witnesses) == 2
    assert race.last_check is report


def test_check_reports_deadlock_and_property(tank: Session) -> None:
    execute(tank, "%engine check")
    lines = text(tank, "%action Handshake").splitlines()
    assert lines[0].startswith("✗ Action tank::Handshake: violation (")
    assert lines[1] == "  deadlock: token 2@j, token 3@ack wait (witness 1)"
    execute(tank, "%check-property NeverNegative")
    lines = text(tank, "%action Fill").splitlines()
    assert lines[1] == "  violation: tank::NeverNegative is false after 3 moves (witness 1)"


def test_bad_property_is_refused_before_the_search(tank: Session) -> None:
    execute(tank, "%engine check")
    execute(tank, "%check-property Nope")
    with pytest.raises(EngineError, match="no constraint or requirement named 'Nope'"):
        execute(tank, "%action Fill")
    assert tank.last_check is None


def test_explore_refuses_settings_it_does_not_read(tank: Session) -> None:
    execute(tank, "%engine explore")
    execute(tank, "%check-property NeverNegative")
    with pytest.raises(SettingNotReadError, match="read by the check or smt engine, not explore"):
        execute(tank, "%action Fill")
    execute(tank, "%check-property off")
    execute(tank, "%check-bounds states=10")
    with pytest.raises(SettingNotReadError, match="states bound"):
        execute(tank, "%action Fill")


def test_explore_answers_with_its_table(race: Session) -> None:
    execute(race, "%engine explore")
    lines = text(race, "%action Race").splitlines()
    assert lines[0].startswith("✓ Action race::Race: 2 outcomes (")
    assert lines[1].split() == ["outcome", "linearizations", "witness"]
    assert lines[-2].startswith("  complete (") and lines[-1].startswith("  standing: 2 outcomes (witnessed:")


def test_all_runs_both_and_compares(race: Session) -> None:
    execute(race, "%engine all")
    report = execute(race, "%action Race")
    assert isinstance(report, CheckReport)
    assert [c.result.engine for c in report.checks] == ["check", "explore", "smt"]
    assert report.text.splitlines()[-2:] == ["  agree: check and explore reach the same 2 final states",
                                             "  agree: check and smt (sensitive)"]
    assert report.exit_status == 1
    assert len(report.document()["checks"]) == 3


def test_witness_files(race: Session, tmp_path: Path) -> None:
    out = tmp_path / "w"
    execute(race, "%engine check")
    execute(race, f"%check-witness {out}")
    lines = text(race, "%action Race").splitlines()
    assert f"  witness 1: {out}/race.Race-1.witness" in lines
    written = sorted(p.name for p in out.iterdir())
    assert written == ["race.Race-1.witness", "race.Race-2.witness"]
    first = (out / "race.Race-1.witness").read_text()
    model = race.model
    assert first.splitlines()[:6] == ["opensysml witness 1", "behavior: race::Race", f"model: {model_hash(model)}",
                                      "engine: check", "claim: value c = 2", "step 1: 1@start first of 1@start"]
    assert first.endswith("\nend of witness\n")
    assert race.last_check is not None
    document = race.last_check.document()["checks"][0]
    assert document["witnesses"][0]["path"] == f"{out}/race.Race-1.witness"


def test_witness_step_tables_show_values_changed(race: Session) -> None:
    execute(race, "%engine check")
    report = execute(race, "%action Race")
    assert isinstance(report, CheckReport)
    rows = report.checks[0].steps[0]
    assert rows[0].step == 1 and rows[0].taken == "1@start"
    assert any(row.changed for row in rows)
    page = report.html()
    assert page.count("<details") == 2 and "values changed" in page
    # each witness summarised once by the value it ends with (its divergent value is its outcome)
    assert "<summary>witness 1: c = 2</summary>" in page and "<summary>witness 2: c = 1</summary>" in page


def test_interrupt_reports_incomplete(race: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    import opensysml_kernel.session as module

    def stopped(engine: str, program: object, subject: str, *rest: object) -> object:
        return interrupted_result(engine, subject)

    monkeypatch.setattr(module, "run_engine", stopped)
    execute(race, "%engine check")
    lines = text(race, "%action Race").splitlines()
    assert lines[0] == "? Action race::Race: incomplete (0 states, 0 moves, depth 0)"
    assert lines[1] == "  incomplete: interrupted"


def test_engine_gets_the_interrupt_flag(race: Session) -> None:
    """The flag the engine polls stops it at the next move: the search so far is reported."""
    from engines.check import check

    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 2

    result = check(race.program(), "race::Race", interrupted=stop)
    assert result.incomplete == "interrupted"


def test_progress_meter_waits_a_second_and_is_silent_when_deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[str] = []

    class Sink:
        def update(self, text: str) -> None:
            shown.append(text)

        def close(self) -> None:
            shown.append("closed")

    now = [0.0]
    monkeypatch.delenv("OPENSYSML_KERNEL_DETERMINISTIC", raising=False)
    meter = ProgressMeter("a::B", Sink(), lambda: now[0])
    meter(10, 10, 2)
    assert shown == []
    now[0] = 2.0
    meter(100, 120, 7)
    assert shown == ["checking a::B: 100 states, 120 moves, depth 7, 50 states/s"]
    now[0] = 4.0
    workers = (WorkerFigures(60, 25, 100, 40, 3_000, 150 * 2**20, 1.5), WorkerFigures(40, 15, 80, 30, 2_000, 140 * 2**20, 1.2))
    meter(100, 180, 9, workers)
    assert shown[-1] == ("checking a::B over 2 workers: 100 states, 180 moves, level 9, 25 states/s; 40 to expand,"
                         " owned 60 | 40 (balance 1.20), memory 150 | 140 MB")
    meter.close()
    assert shown[-1] == "closed"
    monkeypatch.setenv("OPENSYSML_KERNEL_DETERMINISTIC", "1")
    quiet = ProgressMeter("a::B", Sink(), lambda: now[0])
    now[0] = 10.0
    quiet(1, 1, 1)
    assert shown[-1] == "closed"


def test_settings_engines() -> None:
    assert CheckSettings().engines() == ()
    assert CheckSettings(depth=3).engines() == ("check",)
    assert CheckSettings("all").engines() == ("check", "explore", "smt")
    assert CheckSettings("run", properties=("R",)).engines() == ()


def test_failing_cell_restores_the_settings(session: Session) -> None:
    from ir.errors import SysmlError

    with pytest.raises(SysmlError):
        list(execute_cell(session, "%engine check\n%check-bounds depth=5\n%nope"))
    assert session.settings == CheckSettings()
