"""The message bus as accepts see it: which message a trigger matches, taken or only looked at."""

from __future__ import annotations

from engines.runtime.context import Message
from engines.runtime.core import RunCore
from engines.runtime.evaluate import Frame
from engines.runtime.values import SCALAR_TYPES, ObjectRef, Quantity, Signal, conforms
from ir import syntax as s


class MessageBus(RunCore):
    """Accept matching over the run's bus, oldest message first."""

    def _available(self, trigger: s.Trigger, receiver: str | None, frame: Frame) -> bool:
        """Whether a message the trigger would take is on the bus (nothing is taken)."""
        return any((m.to is None or receiver is None or m.to == receiver) and self._matches(trigger, m, frame)
                   for m in self.ctx.bus)

    def _take(self, trigger: s.Trigger, receiver: str | None, frame: Frame) -> Message | None:
        """The oldest message on the bus the trigger matches, taken off it; None when there is none."""
        for i, message in enumerate(self.ctx.bus):
            if message.to is not None and receiver is not None and message.to != receiver:
                continue
            if self._matches(trigger, message, frame):
                self.ctx.journal.touch(self.ctx.bus)
                del self.ctx.bus[i]
                return message
        return None

    def _matches(self, trigger: s.Trigger, message: Message, frame: Frame) -> bool:
        payload = message.payload
        if trigger.subsets is not None:
            return isinstance(payload, ObjectRef) and self.ctx.objects[payload.id].name == trigger.subsets
        expected = trigger.signal
        if expected is None:
            return True
        short = expected.rsplit("::", 1)[-1]
        if short in SCALAR_TYPES:  # a value accepted by type as a feature of that type would hold it
            return conforms(short, payload) and not isinstance(payload, Quantity)
        if isinstance(payload, Signal):
            return payload.type_name.rsplit("::", 1)[-1] == short
        if isinstance(payload, ObjectRef):
            obj = self.ctx.objects.get(payload.id)
            return obj is not None and obj.type_name.rsplit("::", 1)[-1] == short
        return False
