"""Scopes, imports, qualified names, typing and redefinition: syntax trees to one Model."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ir import syntax as s
from ir.errors import FixedValueError, ResolveError
from ir.library import LIBRARY_PATH, library_document
from ir.model import Element, Model


def _kind_of(member: s.Member) -> str | None:
    if isinstance(member, s.Package):
        return "package"
    if isinstance(member, s.Definition):
        return f"{member.kind} def"
    if isinstance(member, s.Usage):
        return member.kind
    return None


def _name_of(member: s.Member) -> str | None:
    if isinstance(member, (s.Package, s.Definition)):
        return member.name
    if isinstance(member, s.Usage):
        if member.name:
            return member.name
        if member.redefines:
            return member.redefines[0].rsplit("::", 1)[-1]
        if member.performed and member.types:
            return member.types[0].rsplit("::", 1)[-1]
    return None


def _members_of(member: s.Member) -> tuple[s.Member, ...]:
    if isinstance(member, (s.Package, s.Definition, s.Usage)):
        return member.members
    if isinstance(member, s.ThenMember) and member.member is not None:
        return (member.member,)
    return ()


def _build(member: s.Member, owner: Element, path: str, index: dict[str, Element], library: bool = False) -> None:
    for child in _members_of(member):
        if isinstance(child, s.Import):
            owner.imports.append(child)
            continue
        if isinstance(child, s.ThenMember) and child.member is not None:
            child = child.member
        if isinstance(child, s.EntryMember) and isinstance(child.behavior, s.Usage):
            child = child.behavior
        kind = _kind_of(child)
        name = _name_of(child)
        if kind is None:
            continue
        if name is None:
            name = f"${len(owner.members)}"
        qualified = f"{owner.qualified_name}::{name}" if owner.qualified_name else name
        existing = owner.members.get(name)
        if existing is not None and isinstance(child, s.Package) and existing.kind == "package":
            el = existing  # a package may be continued by another document
        else:
            el = Element(kind, name, qualified, child, owner, path, library=library)
            owner.members[name] = el
            index[qualified] = el
        _build(child, el, path, index, library)


def resolve(documents: Sequence[s.Document]) -> Model:
    """One namespace of every document (later declarations of a name replace earlier ones)."""
    root = Element("root", "", "", None, None)
    # The scalar types are visible everywhere, as the models in the wild assume.
    root.imports.append(s.Import(s.NO_SPAN, "ScalarValues", True))
    index: dict[str, Element] = {}
    library = library_document()
    _build(s.Package(s.NO_SPAN, "", library.members), root, LIBRARY_PATH, index, library=True)
    for doc in documents:
        container = s.Package(s.NO_SPAN, "", doc.members)
        _build(container, root, doc.path, index)
    model = Model(tuple(documents), root, index)
    _index_short_names(model)
    _check(model)
    from ir.names import check_names  # they look names up through this module
    from ir.ports import check_ports

    check_names(model)
    check_ports(model)
    return model


def _index_short_names(model: Model) -> None:
    """Each element's members by short name, so a lookup that misses by name does not scan them all."""
    for el in model.walk(include_library=True):
        for member in el.members.values():
            decl = member.decl
            if isinstance(decl, s.Usage) and decl.short_name is not None:
                el.short_names.setdefault(decl.short_name, member)
    root = model.root
    for member in root.members.values():
        decl = member.decl
        if isinstance(decl, s.Usage) and decl.short_name is not None:
            root.short_names.setdefault(decl.short_name, member)


# ---------------------------------------------------------------- lookup


def lookup(model: Model, scope: Element | None, name: str) -> Element | None:
    """The element `name` denotes from `scope`: its own and inherited members, imports, then owners."""
    if name.startswith("::"):
        name = name[2:]
    parts = name.split("::")
    first = _lookup_simple(model, scope, parts[0], set())
    if first is None:
        return None
    el: Element | None = first
    for part in parts[1:]:
        el = member_of(model, el, part) if el is not None else None
    return el


def lineage(model: Model, el: Element, library: bool = True) -> Iterator[Element]:
    """`el`, then what it is typed by or specializes, transitively, nearest first, each once (each
    type named from the owner of the element naming it); `library=False` does not go into the
    library's types."""
    seen: set[int] = set()
    todo = [el]
    while todo:
        at = todo.pop(0)
        if id(at) in seen:
            continue
        seen.add(id(at))
        yield at
        for name in at.type_names:
            found = lookup(model, at.owner, name)
            if found is not None and (library or not found.library):
                todo.append(found)


def member_of(model: Model, el: Element, name: str, seen: set[int] | None = None) -> Element | None:
    """A member of `el` by name, its own or inherited through its types."""
    seen = seen if seen is not None else set()
    if id(el) in seen:
        return None
    seen.add(id(el))
    if name in el.members:
        return el.members[name]
    if name in el.short_names:
        return el.short_names[name]
    for type_name in el.type_names:
        base = lookup(model, el.owner, type_name)
        if base is not None:
            found = member_of(model, base, name, seen)
            if found is not None:
                return found
    if el.kind == "package":
        return _from_imports(model, el, name, set())
    return None


def _from_imports(model: Model, scope: Element, name: str, seen: set[int]) -> Element | None:
    for imp in scope.imports:
        if imp.wildcard:
            pkg = lookup(model, scope.owner, imp.target) or model.by_name.get(imp.target)
            if pkg is not None and id(pkg) not in seen:
                seen.add(id(pkg))
                if name in pkg.members:
                    return pkg.members[name]
                found = _from_imports(model, pkg, name, seen)
                if found is not None:
                    return found
        elif imp.target.rsplit("::", 1)[-1] == name:
            target = lookup(model, scope.owner, imp.target) or model.by_name.get(imp.target)
            if target is not None:
                return target
    return None


def _lookup_simple(model: Model, scope: Element | None, name: str, seen: set[int]) -> Element | None:
    while scope is not None:
        found = member_of(model, scope, name)
        if found is not None:
            return found
        found = _from_imports(model, scope, name, set())
        if found is not None:
            return found
        scope = scope.owner
    return model.root.members.get(name)


def visible_names(model: Model, scope: Element | None) -> list[str]:
    """Names a reference in `scope` could mean, for "did you mean" hints."""
    names: set[str] = set()
    while scope is not None:
        names.update(n for n in scope.members if not n.startswith("$"))
        for imp in scope.imports:
            pkg = model.by_name.get(imp.target)
            if pkg is not None and imp.wildcard:
                names.update(n for n in pkg.members if not n.startswith("$"))
        scope = scope.owner
    names.update(el.qualified_name for el in model.walk())
    return sorted(names)


# ---------------------------------------------------------------- checks


def _check(model: Model) -> None:
    """Every import and every type a declaration names must exist."""
    for el in list(model.walk()):
        scope = el.owner
        for imp in el.imports:
            if lookup(model, el.owner, imp.target) is None and imp.target not in model.by_name:
                raise _unknown(model, imp.target, el, imp, "package")
        for type_name in el.type_names:
            if lookup(model, scope, type_name) is None:
                decl = el.decl
                raise _unknown(model, type_name, el, decl, "type")
        decl = el.decl
        if isinstance(decl, s.Usage):
            for target in decl.redefines + decl.subsets:
                if "." in target:
                    continue
                found = _lookup_feature(model, el, target)
                if found is None:
                    raise _unknown(model, target, el, decl, "feature")
                if target in decl.redefines:
                    _overridable(model, el, decl, found)


def _overridable(model: Model, el: Element, decl: s.Usage, redefined: Element) -> None:
    """A redefinition stating a value of its own may override only a default value: a feature declared
    with `=` or `:=` holds that value in every redefinition (KerML's validateFeatureValueOverriding: every
    feature the featureWithValue redefines, directly or through redefinitions stating no value, has only
    default values), so giving it another is an error of the model, as the peer and the pilot
    implementation report it. Parameters are left out: `in rate : Integer = 3` reads as a default wherever
    a step binds it, as the interpreter and the corpus use it."""
    if decl.value is None or decl.direction:
        return
    fixed = redefined.decl
    seen = {id(el)}
    while isinstance(fixed, s.Usage) and fixed.value is None and fixed.redefines and id(redefined) not in seen:
        # (a redefinition stating no value holds the value it redefines: look through it)
        seen.add(id(redefined))
        further = _lookup_feature(model, redefined, fixed.redefines[0]) if "." not in fixed.redefines[0] else None
        if further is None:
            return
        redefined, fixed = further, further.decl
    if redefined.library or not isinstance(fixed, s.Usage) or fixed.value is None \
            or fixed.value_kind in (None, s.FeatureValueKind.DEFAULT) or fixed.direction:
        return
    kind = fixed.value_kind.value
    raise FixedValueError(
        f"{el.qualified_name} gives {redefined.name} a value of its own, but {redefined.qualified_name} is declared "
        f"with `{kind}`, a value fixed for every redefinition; declare it with `default {kind}` to let a "
        "redefinition give its own", el.path, decl.span.line, decl.span.column)


# What a definition or usage of each kind specializes when it names nothing: a state is a
# StateAction, whose features (isRunToCompletion, runToCompletionScope) it may redefine.
IMPLICIT_BASE = {"state": "States::StateAction", "action": "Actions::Action", "part": "Parts::Part",
                 "item": "Items::Item"}


def _lookup_feature(model: Model, el: Element, name: str) -> Element | None:
    """A redefined or subsetted feature: a member of the owner's types (or of the library type its
    kind implicitly specializes), or any visible name."""
    owner = el.owner
    if owner is not None:
        implicit = IMPLICIT_BASE.get(owner.base_kind)
        for type_name in (*owner.type_names, *((implicit,) if implicit else ())):
            base = lookup(model, owner.owner, type_name)
            if base is not None:
                found = member_of(model, base, name)
                if found is not None:
                    return found
    found = lookup(model, owner, name)
    if found is el and owner is not None:
        # `:>> a` declares a member named `a` itself: what it redefines is another one
        found = lookup(model, owner.owner, name) if owner.owner is not None else None
    return found


def _unknown(model: Model, name: str, el: Element, decl: s.Member | None, what: str) -> ResolveError:
    span = decl.span if decl is not None else s.NO_SPAN
    referrer = f"{el.kind} {el.qualified_name}"
    return ResolveError(name, referrer, visible_names(model, el.owner), el.path, span.line, span.column, what)
