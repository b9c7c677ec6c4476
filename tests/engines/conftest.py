"""Prints the conformance summary table at the end of a session that ran the corpus harness."""

from __future__ import annotations

import pytest

from tests.engines.runtime import conformance_summary


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in conformance_summary.table():
        terminalreporter.write_line(line)
