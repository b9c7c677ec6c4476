"""The static layer: text -> syntax tree -> resolved model -> lowered graphs. Knows nothing of runs."""

from __future__ import annotations

from ir.errors import LoweringError, ResolveError, SysmlError, SysmlSyntaxError
from ir.parse import parse

__all__ = ["LoweringError", "ResolveError", "SysmlError", "SysmlSyntaxError", "parse"]
