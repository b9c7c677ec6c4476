"""Shared fixtures: where the corpus lives, relative to the checkout (never an absolute path)."""

from __future__ import annotations

import os
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The tests run against the checkout whether or not the project is installed in the environment.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.corpus_cases import CORPUS, HAVE_CORPUS, NO_CORPUS  # noqa: E402
from tests.engines.runtime import conformance_summary  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "corpus: reads the shared conformance corpus (skipped without it)")
    if os.environ.get("OPENSYSML_REQUIRE_CORPUS") and not HAVE_CORPUS:
        raise pytest.UsageError(f"OPENSYSML_REQUIRE_CORPUS is set (CI), but there is {NO_CORPUS}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Without the corpus, every test marked `corpus` skips, all with the one reason."""
    if HAVE_CORPUS:
        return
    skip = pytest.mark.skip(reason=NO_CORPUS)
    for item in items:
        if item.get_closest_marker("corpus"):
            item.add_marker(skip, append=False)


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared model corpus: OPENSYSML_CORPUS, else ../shared/corpus next to the project root."""
    if not HAVE_CORPUS:
        pytest.skip(NO_CORPUS)
    return CORPUS


# The conformance summary table, printed at the end of a session that ran the corpus harness. Each case's
# row travels on its test's report, so that under pytest-xdist (scripts/test.sh runs two workers) the
# process that prints the table has every worker's rows. These hooks live here, in the conftest every
# process loads, not beside the harness: pytest-xdist's controlling process collects no test and loads no
# deeper conftest.


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    conformance_summary.attach(outcome.get_result())


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    conformance_summary.gather(report)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in conformance_summary.table():
        terminalreporter.write_line(line)
