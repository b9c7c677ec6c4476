"""Explicit-state search over the runtime: visited fingerprints, persistent sets, replayed witnesses."""

from __future__ import annotations

from engines.check.search import check
from engines.framework import UnknownFeatureError

__all__ = ["UnknownFeatureError", "check"]
