"""Shared fixtures: where the corpus lives, relative to the checkout (never an absolute path)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / ".." / "shared" / "corpus"

# The tests run against the checkout whether or not the project is installed in the environment.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared model corpus: ../shared/corpus next to the project root."""
    return CORPUS
