"""Shared fixtures: where the corpus lives, relative to the checkout (never an absolute path)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The tests run against the checkout whether or not the project is installed in the environment.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.corpus_cases import CORPUS, HAVE_CORPUS, NO_CORPUS  # noqa: E402


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
