"""Declared types enforced when a feature is given a value (an initial value, a binding, an assignment).

A feature typed by a ScalarValues type (Boolean, String, Integer, Natural, Positive, Rational,
Real, ...), by a type specializing one, or by an enumeration holds only instances of it; any
other value is a `TypeMismatch` naming the feature, its type, the value and the value's type.
Membership is by value (`values.conforms`): 8/2 is the Integer 4, 11/2 is no Integer, a Natural
is never negative. Types the runtime does not model as values (parts, items, quantities' own
types, Anything) are not checked. `null` and the empty sequence are always accepted: how many
values a feature holds is its multiplicity's business, not its type's.
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.errors import TypeMismatch
from engines.runtime.values import (
    SCALAR_TYPES,
    UNSET,
    EnumValue,
    Sequence,
    Value,
    as_declared,
    conforms,
    spell,
    type_name,
    with_article,
)
from ir.model import Element, Model
from ir.resolve import lineage, lookup


@dataclass(frozen=True)
class TypeRule:
    """What a declared type admits: a ScalarValues type's instances, or an enumeration's literals."""

    enumeration: bool
    name: str  # the ScalarValues type, or the enumeration's name
    written: str  # the type as the declaration names it (for the message)


def rule_for(model: Model, scope: Element | None, type_text: str,
             cache: dict[tuple[int, str], TypeRule | None]) -> TypeRule | None:
    """The rule a declared type imposes, or None when it imposes none the runtime can check."""
    key = (id(scope), type_text)
    if key in cache:
        return cache[key]
    el = lookup(model, scope, type_text) if scope is not None else model.element(type_text)
    rule = _rule(model, el, type_text)
    cache[key] = rule
    return rule


def _rule(model: Model, el: Element | None, type_text: str) -> TypeRule | None:
    written = type_text.rsplit("::", 1)[-1]
    if el is None:
        return TypeRule(False, written, written) if written in SCALAR_TYPES else None
    for current in lineage(model, el):
        if current.kind == "enum def":
            return TypeRule(True, current.name, written)
        if current.library and current.owner is not None and current.owner.name == "ScalarValues" \
                and current.name in SCALAR_TYPES:
            return TypeRule(False, current.name, written)
    return None


def checked(rule: TypeRule, feature: str, value: Value, where: str) -> Value:
    """The value as the feature holds it, or a TypeMismatch saying `where` it was refused."""
    if type(value) is int and rule.name == "Integer" and not rule.enumeration:
        return value  # an Integer held as an Integer: conforms, and is held as it is
    elements = value.elements if isinstance(value, Sequence) else (value,)
    for v in elements:
        if v is None or v is UNSET:
            continue
        if rule.enumeration:
            ok = isinstance(v, EnumValue) and v.enumeration == rule.name
        else:
            ok = conforms(rule.name, v)
        if not ok:
            raise TypeMismatch(f"{where} {feature}: type mismatch: {feature} is {with_article(rule.written)} "
                               f"and {spell(v)} is {with_article(type_name(v))}")
    if rule.enumeration or isinstance(value, Sequence):
        return value
    return as_declared(rule.name, value)
