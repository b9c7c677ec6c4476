"""Figures for notebooks: a state machine's configuration as nested boxes, the active states marked."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engines.runtime.states import MachineRun
    from engines.runtime.states.layout import Vertex
    from opensysml_kernel.machines import Driven

ACTIVE = "background:#dafbe1;border:2px solid #1a7f37"
IDLE = "background:#ffffff;border:1px solid #d0d7de;color:#57606a"
REGION = "border:1px dashed #8c959f"


def _box(machine: MachineRun, v: Vertex, region: bool = False) -> str:
    """One state (or region) and, beside each other under its name, the states (or regions) it holds."""
    active = v in machine.active
    style = REGION if region else ACTIVE if active else IDLE
    mark = "● " if active and not region else ""
    name = f"<i>{html.escape(v.name)}</i>" if region else f"<b>{html.escape(v.name)}</b>" if active \
        else html.escape(v.name)
    inner = [c for c in v.children if c.is_state]
    cells = "".join(f"<td style='vertical-align:top;padding:2px'>{_box(machine, c, v.parallel)}</td>"
                    for c in inner)
    kids = f"<table style='border-collapse:separate;margin:2px 0 0 0'><tr>{cells}</tr></table>" if cells else ""
    cls = " class='active'" if active and not region else ""
    return (f"<div{cls} style='{style};border-radius:6px;padding:3px 6px;display:inline-block'>"
            f"{mark}{name}{kids}</div>")


def configuration_figure(driven: Driven) -> str:
    """Every machine of the run as nested boxes: regions dashed, side by side; the active states
    green with a ●, the others grey."""
    parts = []
    for machine in driven.machines:
        parts.append(f"<div class='opensysml-configuration' style='margin-top:4px'>{_box(machine, machine.shape.machine)}</div>")
    return "".join(parts)
