"""The environment's inputs to a machine: events it sends (signals with arguments, bare values,
operation calls) and the time it lets pass, read from `--send`/`%send` text, from the corpus's
`events` lists, and from `--advance`/`%advance` durations; bad input is a typed error saying what."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from engines.errors import EngineError
from engines.runtime.values import Value, accepted_as, spell


class EnvironmentInputError(EngineError, ValueError):
    """An event or a duration the environment cannot send: the text, and what is wrong with it."""


class UnknownSignalError(EnvironmentInputError):
    """A signal no transition, accept or declaration of the model names."""


class EventKind:
    SIGNAL = "signal"
    VALUE = "value"
    CALL = "call"


@dataclass(frozen=True)
class EnvEvent:
    """One event the environment sends: a signal (`Go`, `Go(speed=3)`), a bare value (`send 3`),
    or an operation call (`call setSpeed(value=55)`)."""

    kind: str
    name: str  # the signal's or operation's name; for a bare value, its type name
    args: tuple[tuple[str, Value], ...] = ()
    value: Value = None  # a bare value's value
    to: str | None = None  # in an instance, the object it is sent to (its path); None: whoever accepts it

    def text(self) -> str:
        """The event as `%send` takes it back."""
        if self.kind == EventKind.VALUE:
            head = spell(self.value)
        else:
            args = ", ".join(f"{k}={spell(v)}" if k else spell(v) for k, v in self.args)
            head = f"call {self.name}" if self.kind == EventKind.CALL else self.name
            head = f"{head}({args})" if args or self.kind == EventKind.CALL else head
        return head if self.to is None else f"{head} to {self.to}"


_NAME = r"[A-Za-z_][A-Za-z_0-9]*(?:::[A-Za-z_][A-Za-z_0-9]*)*"
_SEND = re.compile(rf"^\s*(?:(call)\s+)?({_NAME})\s*(?:\((.*)\))?\s*$", re.S)
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def parse_literal(text: str) -> Value:
    """A literal the environment may send: an integer, a decimal (a Real, kept exact), true or
    false, a quoted string."""
    raw = text.strip()
    if raw in ("true", "false"):
        return raw == "true"
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    if _NUMBER.match(raw):
        if re.fullmatch(r"[+-]?\d+", raw):
            return int(raw)
        return Fraction(raw)
    raise EnvironmentInputError(f"'{raw}' is not a literal (an integer, a decimal, true, false or a quoted string)")


def _split_args(text: str) -> list[str]:
    """`a=1, b="x, y"` split at the commas outside quotes."""
    parts: list[str] = []
    current = ""
    quote = ""
    for ch in text:
        if quote:
            current += ch
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            current += ch
        elif ch == ",":
            parts.append(current)
            current = ""
        else:
            current += ch
    if quote:
        raise EnvironmentInputError(f"unclosed quote in '{text}'")
    if current.strip() or parts:
        parts.append(current)
    return parts


def split_target(text: str) -> tuple[str, str | None]:
    """`Go(speed=3) to station` as the event's text and whom it is sent to (None: no `to`)."""
    head, sep, target = f" {text} ".rpartition(" to ")
    if not sep or not head.strip() or not target.strip() or ")" in target or "(" in target:
        return text.strip(), None
    return head.strip(), target.strip()


def parse_addressed(text: str) -> EnvEvent:
    """An event, optionally sent to one object of an instance: `Go`, `Go(speed=3) to station`."""
    head, target = split_target(text)
    event = parse_send(head)
    return event if target is None else replace(event, to=target)


def parse_send(text: str) -> EnvEvent:
    """`Go`, `Go(speed=3, mode="fast")`, `call setSpeed(value=55)` or a bare literal (`3`)."""
    raw = text.strip()
    if not raw:
        raise EnvironmentInputError("an empty event: write a signal name, e.g. Go or Go(speed=3)")
    try:
        value = parse_literal(raw)
    except EnvironmentInputError:
        pass
    else:
        if not isinstance(value, bool) or raw in ("true", "false"):
            return EnvEvent(EventKind.VALUE, accepted_as(value) or "String", (), value)
    m = _SEND.match(raw)
    if m is None:
        raise EnvironmentInputError(
            f"'{raw}' is not an event: write a signal name with optional arguments, Go or Go(speed=3), "
            "a call, call setSpeed(value=55), or a literal")
    call, name, inner = m.group(1), m.group(2), m.group(3)
    args: list[tuple[str, Value]] = []
    for part in _split_args(inner or ""):
        key, eq, literal = part.partition("=")
        if not eq or not re.fullmatch(r"\s*[A-Za-z_][A-Za-z_0-9]*\s*", key):
            # a positional argument (`Req(3)`): the signal definition's features name it, in order, as
            # `new Req(3)` binds them (`named_by`), once the model is known
            if args and args[-1][0]:
                raise EnvironmentInputError(f"argument '{part.strip()}' of '{raw}' comes after a named one: "
                                            "write the positional arguments first")
            try:
                args.append(("", parse_literal(part.strip())))
            except EnvironmentInputError as err:
                raise EnvironmentInputError(f"argument '{part.strip()}' of '{raw}' is neither name=value nor "
                                            f"a value: {err}") from None
            continue
        try:
            args.append((key.strip(), parse_literal(literal)))
        except EnvironmentInputError as err:
            raise EnvironmentInputError(f"argument {key.strip()} of '{raw}': {err}") from None
    return EnvEvent(EventKind.CALL if call else EventKind.SIGNAL, name, tuple(args))


def json_value(entry: Any, where: str) -> Value:
    """A corpus value (`{"type": "Integer", "value": 3}`) as a run value."""
    if not isinstance(entry, dict) or "type" not in entry:
        raise EnvironmentInputError(f"{where}: expected a value such as {{\"type\": \"Integer\", \"value\": 3}}")
    kind, raw = entry["type"], entry.get("value")
    if kind == "Boolean" and isinstance(raw, bool):
        return raw
    if kind == "Integer" and ((isinstance(raw, int) and not isinstance(raw, bool)) or isinstance(raw, str)):
        try:
            return int(raw)
        except ValueError:
            pass
    if kind in ("Real", "Rational") and isinstance(raw, (int, float, str)) and not isinstance(raw, bool):
        try:
            return Fraction(str(raw))
        except (ValueError, ZeroDivisionError):
            pass
    if kind == "String" and isinstance(raw, str):
        return raw
    raise EnvironmentInputError(f"{where}: {entry!r} is not a value of type {kind}")


def events_from_json(events: Any) -> list[EnvEvent]:
    """The corpus's `events` list: `{"signal": S, "args": {...}}`, `{"signal": S, "value": V}`,
    `{"value": V}`, `{"call": C, "args": {...}}`."""
    if not isinstance(events, list):
        raise EnvironmentInputError("events: expected a list of events")
    out: list[EnvEvent] = []
    for i, entry in enumerate(events, start=1):
        where = f"event {i}"
        if not isinstance(entry, dict):
            raise EnvironmentInputError(f"{where}: expected an object such as {{\"signal\": \"Go\"}}")
        args_raw = entry.get("args") or {}
        if not isinstance(args_raw, dict):
            raise EnvironmentInputError(f"{where}: args must be an object of name -> value")
        args = tuple((k, json_value(v, f"{where}, argument {k}")) for k, v in args_raw.items())
        if "call" in entry:
            out.append(EnvEvent(EventKind.CALL, str(entry["call"]), args))
        elif "signal" in entry:
            if "value" in entry:
                value = json_value(entry["value"], f"{where}, value")
                out.append(EnvEvent(EventKind.SIGNAL, str(entry["signal"]), (("value", value),)))
            else:
                out.append(EnvEvent(EventKind.SIGNAL, str(entry["signal"]), args))
        elif "value" in entry:
            value = json_value(entry["value"], f"{where}, value")
            out.append(EnvEvent(EventKind.VALUE, str(entry["value"].get("type")), (), value))
        else:
            raise EnvironmentInputError(f"{where}: names no signal, call or value")
    return out


_UNITS = {"": Fraction(1), "s": Fraction(1), "ms": Fraction(1, 1000), "min": Fraction(60), "h": Fraction(3600)}
_DURATION = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(?:\[\s*([a-z]*)\s*\]|([a-z]*))\s*$")


def parse_duration(text: str) -> Fraction:
    """`5`, `2.5`, `5s`, `5 [s]`, `300 ms`, `2 min`: the seconds the clock moves; never negative."""
    m = _DURATION.match(text or "")
    if m is None:
        raise EnvironmentInputError(f"'{text}' is not a duration: write seconds, e.g. 5, 2.5, 5 [s] or 300 ms")
    unit = m.group(2) if m.group(2) is not None else m.group(3) or ""
    if unit not in _UNITS:
        raise EnvironmentInputError(f"'{text}': unknown time unit '{unit}' (s, ms, min, h)")
    seconds = Fraction(m.group(1)) * _UNITS[unit]
    if seconds < 0:
        raise EnvironmentInputError(f"'{text}': time only moves forward; a duration is 0 or more")
    return seconds


def named_by(event: EnvEvent, names: list[str], definition: str) -> EnvEvent:
    """The event with its positional arguments named by the signal definition's features, in their
    order (as `new Req(3)` binds them); refused where there are more than features or one is named
    twice."""
    positional = [v for k, v in event.args if not k]
    if not positional:
        return event
    if len(positional) > len(names):
        raise EnvironmentInputError(f"{event.name}: {len(positional)} arguments, and {definition} has "
                                    f"{len(names)} features ({', '.join(names) or 'none'})")
    named = list(zip(names, positional, strict=False))
    for k, v in event.args:
        if not k:
            continue
        if any(k == n for n, _ in named):
            raise EnvironmentInputError(f"{event.name}: feature '{k}' given twice")
        named.append((k, v))
    return replace(event, args=tuple(named))
