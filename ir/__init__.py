"""The static layer: text -> syntax tree -> resolved model -> lowered graphs. Knows nothing of runs."""

from __future__ import annotations

from ir.errors import LoweringError, ResolveError, SysmlError, SysmlSyntaxError
from ir.model import Element, Model
from ir.parse import parse
from ir.resolve import lookup, resolve

__all__ = ["Element", "LoweringError", "Model", "ResolveError", "SysmlError", "SysmlSyntaxError", "lookup", "parse", "resolve"]
