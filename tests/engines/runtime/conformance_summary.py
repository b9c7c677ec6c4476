"""Collects each corpus case's result during the session, for the summary table."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.corpus_cases import Case

# case name -> (folder, status, reason, deterministic): the table's rows, gathered from the test reports
RESULTS: dict[str, tuple[str, str, str, bool]] = {}
# the rows the running test recorded, not yet on its report
PENDING: list[tuple[str, tuple[str, str, str, bool]]] = []
STATUSES = ["passed", "failed", "known failure", "fixed", "disputed"]
PROPERTY = "conformance"  # the report's user property a row travels as


def record(case: Case, status: str, reason: str) -> None:
    """A case's row, carried on its test's report (`attach`), so the table is the same whether the tests
    run in this process or on pytest-xdist's workers, whose reports reach the process that prints it."""
    PENDING.append((case.name, (case.folder, status, reason, case.deterministic)))


def attach(report: pytest.TestReport) -> None:
    """The rows recorded while the report's phase ran, put on it."""
    report.user_properties.extend((PROPERTY, row) for row in PENDING)
    PENDING.clear()


def gather(report: pytest.TestReport) -> None:
    """The rows a report carries, into the table."""
    for key, value in report.user_properties:
        if key == PROPERTY:
            name, (folder, status, reason, deterministic) = value
            RESULTS[name] = (folder, status, reason, deterministic)


def table() -> list[str]:
    """The summary: counts per status and folder, deterministic cases apart, then each case not
    passed with why."""
    if not RESULTS:
        return []
    folders = sorted({folder for folder, _, _, _ in RESULTS.values()})
    lines = ["conformance (action, state and instance cases, default schedule):",
             f"  {'':<15}" + "".join(f"{f + ' det':>22}{'nondet':>8}" for f in folders) + f"{'all':>6}"]
    for status in STATUSES:
        row = [sum(1 for fo, st, _, d in RESULTS.values() if fo == f and st == status and d == det)
               for f in folders for det in (True, False)]
        if any(row):
            lines.append(f"  {status:<15}" + "".join(f"{n:>22}" if i % 2 == 0 else f"{n:>8}"
                                                    for i, n in enumerate(row)) + f"{sum(row):>6}")
    for f in (*folders, None):
        det = [st for fo, st, _, d in RESULTS.values() if d and st != "disputed" and (f is None or fo == f)]
        lines.append(f"  deterministic pass rate ({f or 'both'}): {det.count('passed')}/{len(det)}")
    for name in sorted(RESULTS):
        folder, status, reason, _ = RESULTS[name]
        if status != "passed":
            lines.append(f"  {status}: {folder}/{name}: {reason}")
    return lines


def known_failures(path: Path) -> dict[str, str]:
    """A known-failures list: a case name, a space, the reason, one per line (`#` lines are comments)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            out[name] = reason.strip()
    return out


def judge(case: Case, problems: list[str], known: dict[str, str]) -> None:
    """Record the case's result and end its test: skipped when disputed, a strict xfail when it is a
    known failure (and a failure when a known one now passes), passed or failed otherwise."""
    if case.disputed:
        record(case, "disputed", case.notes)
        pytest.skip(f"disputed: {case.notes}")
    if case.name in known:
        record(case, "known failure" if problems else "fixed", known[case.name])
        if problems:
            pytest.xfail(known[case.name])
        pytest.fail(f"{case.name} is listed in known_failures.txt but now passes: remove it from the list")
    record(case, "passed" if not problems else "failed", "; ".join(problems))
    assert not problems, "\n".join(problems)
