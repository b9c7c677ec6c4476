"""Every smt test needs the solver: without z3 (the `smt` extra) they skip, all with the one reason."""

from __future__ import annotations

import importlib.util
import os

import pytest

NO_SOLVER = "no z3 solver installed (pip install 'opensysml-kernel[smt]')"
HAVE_SOLVER = importlib.util.find_spec("z3") is not None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if HAVE_SOLVER:
        return
    if os.environ.get("OPENSYSML_REQUIRE_SMT"):
        raise pytest.UsageError(f"OPENSYSML_REQUIRE_SMT is set, but there is {NO_SOLVER}")
    skip = pytest.mark.skip(reason=NO_SOLVER)
    for item in items:
        if "tests/engines/smt/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(skip)
