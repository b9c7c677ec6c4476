"""What an action's performance reports: its features and its parts', by path, as the corpus spells
values; the features it may report; the frame its names are read in."""

from __future__ import annotations

from engines.runtime.actions.core import RunCore
from engines.runtime.actions.performances import node_paths
from engines.runtime.behavior import Travelled
from engines.runtime.evaluate import Frame
from engines.runtime.objects import object_outputs, object_path, part_feature_paths
from engines.runtime.values import spell


class Outputs(RunCore):
    """The reporting surface of a run."""

    def outputs(self) -> dict[str, str]:
        """Every feature of the action, nested nodes' by their path, and the features of the parts
        it holds or is performed on by the part's path (`tank.level`, `pump.pressure`), spelled as
        the corpus spells them."""
        out = object_outputs(self.ctx, self.element)
        self._collect(self.root.frame, "", out)
        return dict(sorted(out.items()))

    def frame_outputs(self) -> dict[str, str]:
        """The features the performance itself holds, nested nodes' by their path (no part's around it)."""
        out: dict[str, str] = {}
        self._collect(self.root.frame, "", out)
        return dict(sorted(out.items()))

    def travelled(self) -> Travelled | None:
        return None

    def settled(self) -> bool:
        return True  # a fine run's moves are whole performances

    def own_outputs(self) -> dict[str, str]:
        """Every attribute of the action, and of the parts it holds or is performed on."""
        outputs = self.outputs()
        parts = self.part_outputs()
        return {k: v for k, v in outputs.items() if k in self.root.frame.values or k in parts}

    def known_features(self) -> set[str]:
        return set(self.outputs()) | node_paths(self.root.graph) | part_feature_paths(self.ctx.program.model,
                                                                                      self.element)

    def feature_path(self, name: str) -> str:
        """A feature named in the action's words as outputs name it: `this.pressure` is the
        performing part's (`pump.pressure`)."""
        if self.performer is None or not name.startswith("this."):
            return name
        return f"{object_path(self.performer, self.element, self.ctx.program.model)}.{name.removeprefix('this.')}"

    def scope(self) -> Frame:
        return self.root.frame

    def part_outputs(self) -> dict[str, str]:
        """The features of the parts that are the action's own: those it declares and the one
        performing it (engines/runtime/objects.py)."""
        return object_outputs(self.ctx, self.element, own=True, performer=self.performer)

    def _collect(self, frame: Frame, prefix: str, out: dict[str, str], anonymous: bool = False) -> None:
        """A frame's features and its pins', by their path; an anonymous performance's under the path
        around it, where a feature named there first keeps the name."""
        for name, value in frame.values.items():
            if anonymous:
                out.setdefault(prefix + name, spell(value))
            else:
                out[prefix + name] = spell(value)
        for name, pin in frame.pins.items():
            if not pin.anonymous:
                self._collect(pin, f"{prefix}{name}.", out)
        for pin in frame.pins.values():
            if pin.anonymous:
                self._collect(pin, prefix, out, anonymous=True)
