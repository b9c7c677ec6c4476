"""The faces of the tool: a Jupyter kernel, IPython magics, a terminal REPL and a command line over one Session."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext opensysml_kernel`: the commands as magics, `%%sysml` cells, the session as `session`."""
    from opensysml_kernel.magics import register

    register(ipython)
