"""Collects each corpus case's result during the session, for the summary table."""

from __future__ import annotations

from tests.corpus_cases import Case

RESULTS: dict[str, tuple[str, str, bool]] = {}


def record(case: Case, status: str, reason: str) -> None:
    RESULTS[case.name] = (status, reason, case.deterministic)


def table() -> list[str]:
    """The summary: counts per status, deterministic cases apart, then each case not passed with why."""
    if not RESULTS:
        return []
    statuses = ["passed", "failed", "known failure", "fixed", "disputed"]
    lines = ["conformance (action cases, default schedule):",
             f"  {'':<15}{'deterministic':>14}{'with outcomes':>15}{'all':>6}"]
    for status in statuses:
        det = sum(1 for st, _, d in RESULTS.values() if st == status and d)
        nondet = sum(1 for st, _, d in RESULTS.values() if st == status and not d)
        if det or nondet:
            lines.append(f"  {status:<15}{det:>14}{nondet:>15}{det + nondet:>6}")
    det_total = sum(1 for _, _, d in RESULTS.values() if d)
    det_pass = sum(1 for st, _, d in RESULTS.values() if d and st == "passed")
    lines.append(f"  deterministic pass rate: {det_pass}/{det_total}")
    for name in sorted(RESULTS):
        status, reason, _ = RESULTS[name]
        if status != "passed":
            lines.append(f"  {status}: {name}: {reason}")
    return lines
