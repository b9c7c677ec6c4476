"""Settings that surprise no one: a %check-property set once applies to the actions whose features it
reads and is said not to apply to the others (never a violation of theirs, never an error); %settings
shows every setting held; %check-property --clear and %uncheck remove one."""

from __future__ import annotations

import pytest

from ir.errors import ResolveError
from opensysml_kernel.commands import execute
from opensysml_kernel.errors import UsageError
from opensysml_kernel.reports import CheckReport
from opensysml_kernel.session import Session

# A cashier's till and a door counter: `Positive` reads the till's cash, which the counter lacks.
SHOP = """package shop {
    private import ScalarValues::*;
    action Till {
        attribute cash : Integer := 1;
        first start;
        then fork f;
            then refund;
            then sale;
        action refund { assign cash := cash - 3; }
        action sale { assign cash := cash + 5; }
        succession refund then j;
        succession sale then j;
        join j;
        then done;
    }
    action Door {
        attribute visitors : Integer := 0;
        first start;
        then enter;
        action enter { assign visitors := visitors + 1; }
        then done;
    }
    requirement Positive {
        require constraint { cash >= 0 }
    }
    requirement Crowded {
        require constraint { visitors <= cash }
    }
}
"""


@pytest.fixture
def shop() -> Session:
    session = Session()
    session.submit(SHOP, "shop.sysml")
    return session


def lines(session: Session, line: str) -> list[str]:
    return list(execute(session, line).text.splitlines())


NOT_APPLYING = ("  not applying: Positive reads 'cash', which shop::Door does not have (it applies to shop::Till)")


def test_under_auto_a_property_of_another_action_leaves_a_stepping_run_said_so(shop: Session) -> None:
    execute(shop, "%check-property Positive")
    door = lines(shop, "%action Door")
    assert door[:2] == ["▶ Action shop::Door started (schedule reverse)", NOT_APPLYING]
    till = execute(shop, "%action Till")
    assert isinstance(till, CheckReport)
    assert till.text.startswith("✗ Action shop::Till: violation")
    assert "not applying" not in till.text


def test_under_a_checking_engine_the_check_goes_on_without_it(shop: Session) -> None:
    execute(shop, "%engine check")
    execute(shop, "%check-property Positive")
    report = execute(shop, "%action Door")
    assert isinstance(report, CheckReport)
    assert report.text.splitlines()[:2] == [
        "✓ Action shop::Door: no violation, exhaustive (4 states, 3 moves, depth 3)", NOT_APPLYING]
    assert report.exit_status == 0 and not report.checks[0].result.violations
    assert report.document()["checks"][0]["notApplying"] == [NOT_APPLYING.strip().removeprefix("not applying: ")]
    assert "not applying: Positive reads" in report.html()


def test_a_property_that_applies_to_no_action_is_still_refused(shop: Session) -> None:
    """Crowded reads a feature of each action: checked against either, it cannot be evaluated."""
    execute(shop, "%engine check")
    execute(shop, "%check-property Crowded")
    with pytest.raises(ResolveError, match="unknown feature 'visitors'"):
        execute(shop, "%action Till")


def test_settings_shows_every_setting_held(shop: Session) -> None:
    for line in ("%engine check", "%check-property Positive", "%check-bounds depth=7", "%break j",
                 "%check-witness out"):
        execute(shop, line)
    shown = lines(shop, "%settings")
    assert shown == [
        "engine check", "schedule reverse", "trace off", "debug off", "replay off", "breakpoint j",
        "check-property Positive", "check-diverge off (every attribute of the action)",
        "check-input off (the inputs the model binds)", "check-assume off", "check-witness out",
        "check-bounds depth=7 states=1000000 (default) timeout=none (default)", "environment: sends nothing"]


def test_clear_and_uncheck_remove_one_setting(shop: Session) -> None:
    execute(shop, "%check-property Positive shop::Crowded")
    assert lines(shop, "%check-property --clear Crowded") == ["check-property Positive"]
    with pytest.raises(UsageError, match="Crowded is not in %check-property"):
        execute(shop, "%check-property --clear Crowded")
    assert lines(shop, "%check-property --clear") == ["check-property off"]
    execute(shop, "%check-property Positive")
    execute(shop, "%check-diverge cash")
    assert lines(shop, "%uncheck shop::Positive") == ["check-property off"]
    assert lines(shop, "%uncheck cash") == ["check-diverge off (every attribute of the action)"]
    assert lines(shop, "%engine") == ["engine auto (run: no check setting is set)"]
    execute(shop, "%check-bounds depth=3")
    execute(shop, "%engine check")
    assert lines(shop, "%uncheck check-bounds engine") == [
        "check-bounds depth=10000 (default) states=1000000 (default) timeout=none (default)",
        "engine auto (run: no check setting is set)"]
    with pytest.raises(UsageError, match="'nothing' is in no setting"):
        execute(shop, "%uncheck nothing")
