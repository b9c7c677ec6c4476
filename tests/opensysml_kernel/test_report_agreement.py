"""Reports that agree with themselves: one step numbering in the text, the HTML step table, the JSON
document and the witness file; the step where a property fails marked with the state there; every
outcome linked to its witness; one schedule given one witness number under every engine."""

from __future__ import annotations

import re
from pathlib import Path

from engines.framework import Outcome, Result, Stats, Strength, Verdict, Violation, stable_numbers
from engines.witness import Choice, Claim, ClaimKind, Witness
from opensysml_kernel.commands import execute
from opensysml_kernel.reports import CheckReport
from opensysml_kernel.session import Session

# An account drawn on and paid into at once: it ends at 3 on every schedule, but a withdrawal taken
# before the deposit overdraws it on the way. Two clerks write one desk's last booking: a race.
BANK = """package bank {
    private import ScalarValues::*;
    action Settle {
        attribute balance : Integer := 1;
        first start;
        then fork f;
            then deposit;
            then withdraw;
        action deposit { assign balance := balance + 4; }
        action withdraw { assign balance := balance - 2; }
        succession deposit then j;
        succession withdraw then j;
        join j;
        then done;
    }
    action Desk {
        attribute last : Integer := 0;
        first start;
        then fork f;
            then alice;
            then bob;
        action alice { assign last := 1; }
        action bob { assign last := 2; }
        succession alice then j;
        succession bob then j;
        join j;
        then done;
    }
    requirement Solvent {
        require constraint { balance >= 0 }
    }
}
"""


def _session() -> Session:
    session = Session()
    session.submit(BANK, "bank.sysml")
    return session


def _check(session: Session, line: str) -> CheckReport:
    report = execute(session, line)
    assert isinstance(report, CheckReport)
    return report


def test_a_property_witness_has_one_step_numbering_everywhere(tmp_path: Path) -> None:
    session = _session()
    execute(session, "%engine check")
    execute(session, "%check-property Solvent")
    execute(session, f"%check-witness {tmp_path}")
    report = _check(session, "%action Settle")
    (check,) = report.checks
    (violation,) = check.result.violations
    said = f"  violation: bank::Solvent is false after {violation.moves} moves (witness {violation.witness})"
    assert said in report.lines
    written = Path(check.paths[violation.witness - 1]).read_text()
    file_steps = [int(m) for m in re.findall(r"^step (\d+):", written, re.M)]
    assert file_steps == list(range(1, violation.moves + 1))
    # the step table stops where the file does, and marks that step with the state there
    rows = check.steps[violation.witness - 1]
    assert [row.step for row in rows] == file_steps
    assert [row.ending for row in rows] == [""] * (len(rows) - 1) + ["property: bank::Solvent"]
    assert rows[-1].taken.endswith("@withdraw") and dict(rows[-1].state) == {"balance": "-1"}
    page = report.html()
    table = page[page.index(f"id='{check.anchor(violation.witness)}'"):]
    table = table[:table.index("</details>")]
    assert table.count("<tr") == 1 + len(rows) + 1  # the header, each step, the line saying where it fails
    assert (f"<b class='opensysml-mark-fail'>✗ step {violation.moves}: bank::Solvent is false; state: </b>"
            "<code>balance = -1</code>") in table
    document = report.document()["checks"][0]
    steps = document["witnesses"][violation.witness - 1]["steps"]
    assert [s["step"] for s in steps] == file_steps
    assert steps[-1]["ending"] == "property: bank::Solvent" and steps[-1]["state"] == {"balance": "-1"}
    assert document["violations"][0]["moves"] == len(steps)


def test_every_outcome_links_to_a_witness_that_ends_in_it() -> None:
    session = _session()
    execute(session, "%engine check")
    report = _check(session, "%action Desk")
    (check,) = report.checks
    page = report.html()
    outcome_table = page[page.index("<th>outcome</th>"):]
    outcome_table = outcome_table[:outcome_table.index("</table>")]
    assert "—" not in outcome_table
    for outcome in check.result.outcomes:
        number = check.number(outcome.witness)
        assert number is not None
        witness = check.result.witnesses[number - 1]
        assert [c.line() for c in witness.claims if c.kind is ClaimKind.VALUE] == [
            f"value {k} = {v}" for k, v in outcome.values]
        assert f"href='#{check.anchor(number)}'" in outcome_table
        assert f"<details id='{check.anchor(number)}'>" in page
    assert [o["witness"] for o in report.document()["checks"][0]["outcomes"]] == [
        o.witness for o in check.result.outcomes]


def test_one_schedule_has_one_witness_number_under_check_and_explore() -> None:
    numbered: dict[str, dict[tuple[str, ...], int]] = {}
    for engine in ("check", "explore"):
        session = _session()
        execute(session, f"%engine {engine}")
        execute(session, "%check-diverge last")
        (check,) = _check(session, "%action Desk").checks
        numbered[engine] = {tuple(c.line() for c in w.choices): n for n, w in enumerate(check.result.witnesses, 1)}
    assert numbered["check"] == numbered["explore"]
    # the schedule that takes the first enabled move at every choice is witness 1
    first = min(numbered["check"], key=lambda choices: numbered["check"][choices])
    assert all(line.split(": ", 1)[1].split(" first of ")[0] == line.split(" first of ")[1].split(", ")[0]
               for line in first)


def _witness(*taken: tuple[int, str, tuple[str, ...]], value: str) -> Witness:
    return Witness("m::A", "sha256:0123456789abcdef", "check", (Claim(ClaimKind.VALUE, "x", value),),
                   tuple(Choice(step, move, enabled) for step, move, enabled in taken), ())


def test_stable_numbers_orders_by_schedule_and_renumbers_every_reference() -> None:
    late = _witness((1, "2@b", ("1@a", "2@b")), value="2")
    early = _witness((1, "1@a", ("1@a", "2@b")), (2, "2@b", ("2@b",)), value="1")
    prefix = _witness((1, "1@a", ("1@a", "2@b")), value="9")
    found = Result("check", "m::A", Verdict.DIVERGENT, Strength.WITNESSED, Stats(),
                   outcomes=(Outcome((("x", "2"),), 1, 0), Outcome((("x", "1"),), 1, 2)),
                   violations=(Violation("fails", "boom", 1, 3),),
                   divergent=(("x", (("1", 2), ("2", 1))),), witnesses=(late, early, prefix))
    result = stable_numbers(found)
    assert result.witnesses == (prefix, early, late)
    assert [o.witness for o in result.outcomes] == [3, 2]  # x = 2 linked to the witness that ends so
    assert [v.witness for v in result.violations] == [1]
    assert result.divergent == (("x", (("1", 2), ("2", 3))),)
    assert stable_numbers(result) == result
