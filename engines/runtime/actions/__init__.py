"""The action behavior: token flow over lowered action graphs; one move is one performance."""

from __future__ import annotations

from engines.runtime.actions.run import Run
from engines.runtime.actions.tokens import TokenView

__all__ = ["Run", "TokenView"]
