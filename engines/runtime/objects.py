"""Objects and parts: the world's objects (Instance), which part usage a run is performed on, which
actions a part performs, and the names a part's features are reported by (`tank.level`, `pump.pressure`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engines.errors import EngineError, RunError, UnknownBehaviorError
from engines.runtime.journal import current_epoch
from engines.runtime.values import ObjectRef, Value, spell
from ir import syntax as s
from ir.errors import close_names
from ir.model import Element, Model
from ir.resolve import lookup

if TYPE_CHECKING:
    from engines.runtime.world import Context

OBJECT_KINDS = ("part", "item", "occurrence")


@dataclass
class Instance:
    """An object of the run: what it is an instance of and the values of its features."""

    id: int
    type_name: str
    name: str
    values: dict[str, Value] = field(default_factory=dict)
    born: int = field(default_factory=current_epoch)  # see engines/runtime/journal.py


class NotPerformedError(EngineError, LookupError):
    """A part named to perform an action it does not perform, or an action of a part def run on no part."""


def part_usages(model: Model) -> list[str]:
    """Every part (item, occurrence) usage a run can be performed on, by qualified name: not one a
    definition declares (a feature of each of its instances, no object of its own)."""
    return [el.qualified_name for el in model.walk() if el.kind in OBJECT_KINDS and not _in_definition(el)]


def _in_definition(el: Element) -> bool:
    owner = el.owner
    while owner is not None:
        if owner.is_definition:
            return True
        owner = owner.owner
    return False


def find_part(model: Model, name: str) -> Element:
    """The part usage a modeler named: qualified, or unqualified (or dotted, `plant.pump`) when unique."""
    el = model.element(name) or model.element(name.replace(".", "::"))
    if el is not None and el.kind in OBJECT_KINDS:
        return el
    parts = part_usages(model)
    wanted = name.replace(".", "::")
    matches = [q for q in parts if q == wanted or q.endswith("::" + wanted)]
    if len(matches) == 1:
        found = model.element(matches[0])
        assert found is not None
        return found
    raise UnknownBehaviorError(name, "part", parts)


def feature_sources(model: Model, el: Element) -> list[Element]:
    """Where a part usage's object finds the features it starts with: its definition's generals (the
    model's, transitively), the most general first, then its definition, then the usage itself; a
    later one's feature replaces an earlier one's by name, unless it states no value (a redefinition
    `attribute :>> level;` keeps the value it redefines)."""
    definition = lookup(model, el.owner, el.decl.types[0]) \
        if isinstance(el.decl, s.Usage) and el.decl.types else None
    if definition is None:
        return [el]
    generals = [t for t in _types(model, definition) if not t.library]
    return [*reversed(generals), definition, el]


def _types(model: Model, el: Element) -> Iterator[Element]:
    """The definitions an element is typed by or specializes, transitively, nearest first."""
    seen: set[str] = set()
    todo = [el]
    while todo:
        current = todo.pop(0)
        for name in current.type_names:
            found = lookup(model, current.owner, name) if current.owner is not None else model.element(name)
            if found is not None and found.qualified_name not in seen:
                seen.add(found.qualified_name)
                yield found
                todo.append(found)


def performed_actions(model: Model, part: Element) -> list[Element]:
    """The actions a part usage performs: those its usage and its definitions own (`perform action
    prime { ... }`, `action def Prime`), and those a `perform` of theirs names (`perform Fill;`)."""
    out: dict[str, Element] = {}
    for owner in (part, *_types(model, part)):
        for member in owner.members.values():
            if member.base_kind != "action":
                continue
            decl = member.decl
            if isinstance(decl, s.Usage) and decl.performed and decl.types and not decl.has_body:
                # `perform Fill;` performs the action it names, which is what a run of it runs
                named = lookup(model, owner, decl.types[0])
                if named is member and owner.owner is not None:  # named after the action it performs
                    named = lookup(model, owner.owner, decl.types[0])
                if named is not None and named is not member and named.base_kind == "action":
                    out.setdefault(named.qualified_name, named)
                    continue
            out.setdefault(member.qualified_name, member)
    return list(out.values())


def owning_part(action: Element) -> Element | None:
    """The part usage or part definition an action is declared in (through nested actions), if any."""
    owner = action.owner
    while owner is not None and owner.base_kind == "action":
        owner = owner.owner
    if owner is not None and owner.base_kind in OBJECT_KINDS:
        return owner
    return None


def performer_for(model: Model, action: Element, name: str | None) -> Element | None:
    """The part usage a run of `action` is performed on: the one named (which must perform it), the
    part usage the action is declared in, or none; an action of a part definition needs one named."""
    owner = owning_part(action)
    if name is None:
        if owner is None:
            return None
        if not owner.is_definition:
            return owner
        candidates = [model.element(q) for q in part_usages(model)]
        performing = [p.qualified_name for p in candidates
                      if p is not None and any(a is action for a in performed_actions(model, p))]
        listed = ", ".join(performing) if performing else "none is declared yet"
        raise NotPerformedError(
            f"{action.qualified_name} is an action of {owner.kind} {owner.qualified_name}: name the part that"
            f" performs it (run or check --on <part>, or %action {action.name} on <part>); the parts that perform"
            f" it: {listed}")
    part = find_part(model, name)
    performed = performed_actions(model, part)
    if not any(a is action for a in performed):
        names = [a.qualified_name for a in performed]
        text = f"{part.kind} {part.qualified_name} does not perform {action.qualified_name}"
        text += f"; the actions it performs: {', '.join(names)}" if names else "; it performs no action"
        hint = close_names(action.name, names)
        if hint:
            text += "; did you mean " + ", ".join(f"'{h}'" for h in hint) + "?"
        raise NotPerformedError(text)
    return part


def action_on(model: Model, name: str, part_name: str) -> Element | None:
    """The action named `name` among those the named part performs (None when none matches)."""
    part = find_part(model, part_name)
    hits = [a for a in performed_actions(model, part)
            if a.qualified_name == name or a.qualified_name.endswith("::" + name)]
    return hits[0] if len(hits) == 1 else None


def object_path(qualified_name: str, action: Element, model: Model) -> str:
    """A part usage as the action's outputs name it: relative to the action when the action declares
    it (`tank`, `fill.tank`), else its name within the packages around it (`pump`, `plant.pump`)."""
    prefix = action.qualified_name + "::"
    if qualified_name.startswith(prefix):
        return qualified_name[len(prefix):].replace("::", ".")
    el = model.element(qualified_name)
    names: list[str] = []
    while el is not None and el.kind != "package" and el.kind != "root":
        names.append(el.name)
        if el.is_definition:
            break
        el = el.owner
    return ".".join(reversed(names)) if names else qualified_name.rsplit("::", 1)[-1]


def declared_parts(action: Element) -> list[Element]:
    """The part usages an action declares as its own features (nested actions' included)."""
    out: list[Element] = []
    todo = list(action.members.values())
    while todo:
        el = todo.pop(0)
        if el.kind in ("part", "item") and not el.name.startswith("$"):
            out.append(el)
        elif el.base_kind == "action":
            todo.extend(el.members.values())
    return out


def object_outputs(ctx: Context, action: Element, own: bool = False, performer: str | None = None) -> dict[str, str]:
    """The features of the parts a run holds, named `<part path>.<feature>`: every part the run has
    made an object of, and the parts the action declares that no move has read yet (their values
    as declared, without making an object: a golden trace shows a part's materialization where
    it is first read). `own` keeps only the parts that are the action's own: those it declares and
    the `performer`, what a check compares by default (a package's part the action only reads or
    writes is not one of its features, as the corpus's check oracles have it)."""
    model = ctx.program.model
    out: dict[str, str] = {}
    shown: dict[str, int] = {}
    prefix = action.qualified_name + "::"
    for qualified, ref in sorted(ctx.usage_objects.items()):
        obj = ctx.objects.get(ref.id)
        if obj is None or ref.id in ctx.clocks:
            continue
        if own and qualified != performer and not qualified.startswith(prefix):
            continue
        path = object_path(qualified, action, model)
        shown[qualified] = ref.id
        for feature, value in obj.values.items():
            if isinstance(value, ObjectRef) and ctx.usage_objects.get(f"{qualified}.{feature}") == value:
                continue  # a part the part holds: its features are reported under its own path
            out[f"{path}.{feature}"] = spell(value)
    for part in declared_parts(action):
        if part.qualified_name in shown or part.kind != "part":
            continue
        path = object_path(part.qualified_name, action, model)
        try:
            values = ctx.feature_values(part)
        except RunError:
            continue  # a declared value that cannot be read before the run reads it: shown once made
        for feature, value in values.items():
            out[f"{path}.{feature}"] = spell(value)
    return out


def part_feature_paths(model: Model, action: Element) -> set[str]:
    """Every `<part path>.<feature>` a run of `action` may report (known before any schedule ran),
    the features of the parts a part holds included (`plant.pump.pressure`)."""
    out: set[str] = set()
    for name in part_usages(model):
        part = model.element(name)
        if part is None or part.library:
            continue
        _feature_paths(model, part, object_path(name, action, model), out, 0)
    return out


NESTED_PARTS = 4  # how deep part_feature_paths follows parts held by parts (a type may hold itself)


def _feature_paths(model: Model, part: Element, path: str, out: set[str], depth: int) -> None:
    for owner in (part, *_types(model, part)):
        for member in owner.members.values():
            if member.kind in ("attribute", "feature"):
                out.add(f"{path}.{member.name}")
            elif member.kind == "part" and depth < NESTED_PARTS:
                _feature_paths(model, member, f"{path}.{member.name}", out, depth + 1)
