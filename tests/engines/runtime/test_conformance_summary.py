"""The conformance table's rows travel on the test reports: the process that prints the table (under
pytest-xdist, one that ran none of the cases) has every row, each once."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from tests.corpus_cases import Case
from tests.engines.runtime import conformance_summary as summary


def _report() -> pytest.TestReport:
    return pytest.TestReport("t.py::case", ("t.py", 1, "case"), {}, "passed", None, "call")


def test_a_row_recorded_in_a_worker_reaches_the_printing_process_on_the_report(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(summary, "RESULTS", {})
    monkeypatch.setattr(summary, "PENDING", [])
    case = Case("door_opens", "action", {}, Path("door_opens"), None, None, folder="conformance-more")
    report = _report()
    summary.record(case, "known failure", "why it fails")
    summary.attach(report)
    assert summary.PENDING == [] and summary.RESULTS == {}  # nothing kept in the recording process itself
    # a worker's report crosses to the controlling process serialized, as xdist sends it
    summary.gather(pickle.loads(pickle.dumps(report)))
    summary.gather(report)  # (and the worker's own logreport: the row is kept once)
    row = ("conformance-more", "known failure", "why it fails", case.deterministic)
    kept = summary.RESULTS
    assert kept == {"door_opens": row}
    assert "  known failure: conformance-more/door_opens: why it fails" in summary.table()


def test_a_report_with_no_row_adds_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(summary, "RESULTS", {})
    monkeypatch.setattr(summary, "PENDING", [])
    report = _report()
    summary.attach(report)
    summary.gather(report)
    assert summary.RESULTS == {} and summary.table() == []
