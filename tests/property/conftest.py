"""Hypothesis profiles for the property tests: `ci` (the default: small, derandomized) and `slow`
(HYPOTHESIS_PROFILE=slow: thousands of cases, a fresh random draw each run). Neither writes an
example database, and Hypothesis's other files (its cache of the constants it reads in the code)
go to the temporary directory, not the checkout, unless HYPOTHESIS_STORAGE_DIRECTORY says where."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir

if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
    set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "opensysml-kernel-hypothesis")

_COMMON = {
    "database": None,
    "deadline": None,  # the machine is shared: a slow example is no failure
    "suppress_health_check": (HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large),
    "print_blob": True,
}
settings.register_profile("ci", max_examples=100, derandomize=True, **_COMMON)
settings.register_profile("slow", max_examples=4600, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
