"""The static layer: text -> syntax tree -> resolved model -> lowered graphs. Knows nothing of runs.

`ir.parse`, `ir.resolve`, `ir.lookup`, `ir.Model` and `ir.Element` are loaded when first used, so
`from ir.errors import ...` (every command's error handling) does not load the parser and its grammar:
a command pays for them only once it parses."""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from ir.errors import LoweringError, ResolveError, SysmlError, SysmlSyntaxError

if TYPE_CHECKING:
    from ir.model import Element, Model
    from ir.parse import parse
    from ir.resolve import lookup, resolve

__all__ = ["Element", "LoweringError", "Model", "ResolveError", "SysmlError", "SysmlSyntaxError", "lookup", "parse", "resolve"]

_HOME = {"Element": "ir.model", "Model": "ir.model", "parse": "ir.parse", "lookup": "ir.resolve",
         "resolve": "ir.resolve"}


class _Package(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        # importing the submodule ir.parse (or ir.resolve) binds its name on the package: the package
        # binds the function of that name instead, as it did when it imported the functions eagerly
        if isinstance(value, types.ModuleType) and value.__name__ == _HOME.get(name):
            value = getattr(value, name)
        super().__setattr__(name, value)


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'ir' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


sys.modules[__name__].__class__ = _Package
