"""Flows and bindings at run time (ir/connections.py says what each means): what a performance's pins
read when it starts, where a pin's value goes as it is written, and what goes back when it ends.

A connection is declared by the flow or block that runs it; its ends name pins by their path from
there (`leg.inner.w`). A performance's frame knows the frame holding it as a pin and the frame it
started in, so each write and each start looks for the connections naming it in the frames around it.
"""

from __future__ import annotations

from collections.abc import Iterator

from engines.errors import RunError
from engines.runtime.actions.core import RunCore
from engines.runtime.evaluate import Frame
from engines.runtime.values import UNSET, Value
from ir.connections import Connection, ConnectionKind, End


def around(frame: Frame) -> Iterator[tuple[Frame, tuple[str, ...]]]:
    """The frames around a performance's frame that may declare connections naming its pins, each with
    the performance's path from there (a branch's or loop body's frame adds nothing to the path)."""
    path: tuple[str, ...] = ()
    f = frame
    while True:
        host = f.host
        if host is not None:
            path = (host[1], *path)
            f = f.started_in if f.started_in is not None else host[0]
        elif f.block and f.parent is not None:
            f = f.parent
        else:
            return
        yield f, path


_NOTHING = object()


def same_value(a: Value, b: Value) -> bool:
    """One value twice (a Boolean is no number here, though Python says True == 1)."""
    return a is b or (type(a) is type(b) and a == b)


def pin_path(frame: Frame) -> tuple[str, ...]:
    """A performance's path from the frame outside every node (`("leg", "inner")`)."""
    path: tuple[str, ...] = ()
    for _, outer in around(frame):
        path = outer
    return path


def _delivery_key(end: End) -> tuple[str, str]:
    """Where a delivery to a pin is staged: the path of its node, and the pin."""
    return ".".join(end.path[:-1]), end.path[-1]


def _staging(declarer: Frame) -> Frame:
    """Where what a connection delivered waits for its target's next performance."""
    return declarer.pin_holder()


class Connections(RunCore):
    """Flows and bindings between the pins of performances (see the module docstring)."""

    def _pin(self, holder: Frame, name: str, frame: Frame, started_in: Frame | None) -> None:
        """`frame`, a performance of node `name` started in `started_in`, becomes `holder`'s pin."""
        self.ctx.journal.touch_part(holder, holder.pins)
        holder.pins[name] = frame
        starting = self.starting
        if starting is not None and name == starting[1] and holder is starting[0].flow.frame:
            self.ctx.journal.touch(starting[0])
            starting[0].performance = frame
        self._place(frame, holder, name, started_in)

    def _place(self, frame: Frame, holder: Frame, name: str, started_in: Frame | None) -> None:
        """Where a performance stands (before it is a pin: its inputs are bound first)."""
        self.ctx.journal.touch(frame)
        frame.host = (holder, name)
        frame.started_in = started_in if started_in is not holder else None

    def _declare(self, frame: Frame, connections: tuple[Connection, ...]) -> None:
        """The flow or block running in `frame` declares these connections."""
        if connections and frame.connections != connections:
            self.ctx.journal.touch(frame)
            frame.connections = tuple(dict.fromkeys((*frame.connections, *connections)))

    # ------------------------------------------------------------ a performance starts

    def _connect_in(self, frame: Frame, depth: int) -> frozenset[str]:
        """A performance starting: its pins a flow delivered to, or a binding ties to a pin or a feature;
        returns the pins it gave a value.

        A pin bound to a feature reads it now (traced: it is an argument of the performance), unless
        the pin is an output; a pin bound to another pin, or a flow's target, takes the value the
        other end holds or last delivered."""
        given: set[str] = set()
        for declarer, path in around(frame):
            if not declarer.connections:
                continue
            depth_of_path = len(path)
            for conn in declarer.connections:
                for near, far in conn.ends():
                    if not far.pin or len(far.path) != depth_of_path + 1 or far.path[:-1] != path:
                        continue
                    pin = far.path[-1]
                    if conn.kind is ConnectionKind.BIND and not near.pin:
                        if frame.directions.get(pin) == "out":
                            continue
                        value = self.evaluator.eval(near.expression(), declarer, depth)
                    else:
                        if conn.kind is ConnectionKind.BIND and frame.directions.get(pin) == "out":
                            continue  # its own performance writes it: a start takes nothing into it
                        found = self._held(declarer, far, near, conn.kind is ConnectionKind.BIND)
                        if found is None:
                            continue
                        value = found
                        self._taken(declarer, far)
                    self.ctx.journal.touch(frame)
                    frame.values[pin] = value
                    given.add(pin)
        return frozenset(given)

    def _held(self, declarer: Frame, target: End, source: End, bound: bool) -> Value | None:
        """What a connection has for a pin at its performance's start: the staged delivery, else (a
        binding between pins) what the other pin holds now; None when nothing. A flow carries only
        what was written (or what its source ended with): a source's initial value is not a transfer."""
        staged = _staging(declarer).delivered.get(_delivery_key(target), _NOTHING)
        if staged is not _NOTHING and staged is not UNSET:
            return staged  # type: ignore[return-value]
        if bound and source.pin:
            other = _pin_frame(declarer, source)
            if other is not None and source.path[-1] in other.values:
                value = other.values[source.path[-1]]
                return None if value is UNSET else value
        return None

    # ------------------------------------------------------------ a pin is written

    def _stream(self, holder: Frame, name: str, value: Value) -> None:
        """A pin written: flows stream it to their targets, bindings to the pins they tie it to."""
        for declarer, path in around(holder):
            if not declarer.connections:
                continue
            written = (*path, name)
            for conn in declarer.connections:
                if conn.kind is ConnectionKind.SUCCESSION_FLOW:
                    continue
                for near, far in conn.ends():
                    if near.pin and far.pin and near.path == written:
                        self._deliver(declarer, far, value)

    def _deliver(self, declarer: Frame, target: End, value: Value) -> None:
        """A value reaches a pin: now, if its node is being performed, and for its next performance."""
        staging = _staging(declarer)
        key = _delivery_key(target)
        self.ctx.journal.touch_part(staging, staging.delivered)
        staging.delivered[key] = value
        frame = _pin_frame(declarer, target)
        if frame is not None and not frame.sealed and not same_value(frame.values.get(target.path[-1], UNSET), value):
            self._write(frame, target.path[-1], value)

    def _taken(self, declarer: Frame, target: End) -> None:
        """A performance took what was delivered to its pin: a later performance of the node (the next
        pass of a loop) holds only what a delivery brings it anew. The entry stays, as UNSET, so a
        source that ends does not deliver its start value again."""
        staging = _staging(declarer)
        key = _delivery_key(target)
        if staging.delivered.get(key, UNSET) is not UNSET:
            self.ctx.journal.touch_part(staging, staging.delivered)
            staging.delivered[key] = UNSET

    # ------------------------------------------------------------ a performance ends

    def _connect_out(self, frame: Frame) -> None:
        """A performance ending: a pin bound to a feature is written back to it (an input is not); a
        succession flow hands its source's value over; a flow whose source was never written (its
        value given at the start) delivers it now."""
        for declarer, path in around(frame):
            if not declarer.connections:
                continue
            for conn in declarer.connections:
                for near, far in conn.ends():
                    if not near.pin or near.path[:-1] != path or near.path[-1] not in frame.values:
                        continue
                    pin = near.path[-1]
                    value = frame.values[pin]
                    if conn.kind is ConnectionKind.BIND and not far.pin:
                        if frame.directions.get(pin) == "in":
                            continue
                        if value is UNSET:
                            raise RunError(f"assignment to {far.text}: multiplicity violation: 0 value(s) bound to "
                                           "a feature with multiplicity lower bound 1", path[-1])
                        self._assign(far.text, value, declarer, 0)
                    elif far.pin and value is not UNSET and (
                            conn.kind is ConnectionKind.SUCCESSION_FLOW
                            or _delivery_key(far) not in _staging(declarer).delivered):
                        self._deliver(declarer, far, value)


def _pin_frame(declarer: Frame, end: End) -> Frame | None:
    """The performance whose pin an end names, if there is one now."""
    frame = declarer.pin(end.path[0])
    for part in end.path[1:-1]:
        if frame is None:
            return None
        frame = frame.pins.get(part)
    return frame
