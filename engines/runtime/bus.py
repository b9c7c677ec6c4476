"""The world's message bus: the messages in flight, and which one a trigger matches, taken or only
looked at (oldest first). Every behavior that accepts reads the bus through these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engines.runtime.values import SCALAR_TYPES, ObjectRef, Quantity, Signal, Value, conforms
from ir import syntax as s
from ir.resolve import lineage

if TYPE_CHECKING:
    from engines.runtime.world import Context


@dataclass
class Message:
    """A message on the bus: its payload, who it is addressed to (a node or receiver name), who sent it."""

    payload: Value
    to: str | None
    sender: int
    via: str | None = None  # the sender's port it goes out through (`send x via outPort`)
    # the object an instance delivered it to (addressed to it, or over a connection to its port), for
    # an action that object performs to accept: no other object's action may take it
    holder: ObjectRef | None = None


def _for(message: Message, receiver: str | None, performer: ObjectRef | None, within: tuple[str, ...]) -> bool:
    """Whether an accept named `receiver`, a step of the performances named `within` (innermost first),
    of an action `performer` performs, may take the message: one addressed to no one, to `this` (the
    performance the accept is a step of), to it or to a performance it is a step of by name; one an
    instance delivered to an object only there."""
    if message.holder is not None and (performer is None or performer.id != message.holder.id):
        return False
    return message.to in (None, "this") or receiver is None or message.to == receiver or message.to in within


def available(ctx: Context, trigger: s.Trigger, receiver: str | None, performer: ObjectRef | None = None,
              within: tuple[str, ...] = ()) -> bool:
    """Whether a message the trigger would take is on the bus (nothing is taken)."""
    return any(_for(m, receiver, performer, within) and matches(ctx, trigger, m) for m in ctx.bus)


def take(ctx: Context, trigger: s.Trigger, receiver: str | None, performer: ObjectRef | None = None,
         within: tuple[str, ...] = ()) -> Message | None:
    """The oldest message on the bus the trigger matches, taken off it; None when there is none."""
    for i, message in enumerate(ctx.bus):
        if not _for(message, receiver, performer, within):
            continue
        if matches(ctx, trigger, message):
            ctx.journal.touch(ctx.bus)
            del ctx.bus[i]
            return message
    return None


def matches(ctx: Context, trigger: s.Trigger, message: Message) -> bool:
    payload = message.payload
    if trigger.subsets is not None:
        return isinstance(payload, ObjectRef) and ctx.objects[payload.id].name == trigger.subsets
    expected = trigger.signal
    if expected is None:
        return True
    short = expected.rsplit("::", 1)[-1]
    if short in SCALAR_TYPES:  # a value accepted by type as a feature of that type would hold it
        return conforms(short, payload) and not isinstance(payload, Quantity)
    if isinstance(payload, Signal):
        return _is_a(ctx, payload.type_name, short)
    if isinstance(payload, ObjectRef):
        obj = ctx.objects.get(payload.id)
        return obj is not None and _is_a(ctx, obj.type_name, short)
    return False


def _is_a(ctx: Context, type_name: str, short: str) -> bool:
    """Whether an instance of `type_name` is one of the definition named `short`: itself, or one it
    specializes (`accept x : Base` takes a Derived, `attribute def Derived :> Base`)."""
    if type_name.rsplit("::", 1)[-1] == short:
        return True
    made = ctx.program.model.element(type_name)
    return made is not None and any(a.name == short for a in lineage(ctx.program.model, made))
