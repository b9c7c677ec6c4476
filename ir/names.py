"""Names resolved when a model is submitted: what bodies, guards, successions and conditions read.

A name a body reads, an assignment's target, a succession's ends: each must denote something when
the model is submitted, so a misspelling is a ResolveError naming it and where it stands, never a
run that fails halfway or a property reported violated.

Some names are bound only when a behavior runs, and the rule admits them by where they are declared
rather than by lexical scope alone:
- names declared anywhere inside the top-level element around the reference: nodes and their pins
  (`rx.v`), accept payloads, loop variables, features of nested steps;
- features of any part, item, occurrence or port (the object performing an action reads its own
  features by their bare names);
- in a constraint, requirement or calculation, any feature the model declares: a property's
  condition reads the features of whichever behavior is checked against it (which one is known
  only then: `unknown_names` checks that pairing when a check is asked);
- `this`, `self`, `that`, `localClock`, and the names in a quantity's unit (`5 [s]`).
Called functions are not checked (library functions are found by name when evaluated).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ir import syntax as s
from ir.errors import ResolveError
from ir.model import Element, Model
from ir.resolve import lineage, lookup, member_of, visible_names

CONTEXT_NAMES = frozenset({"this", "self", "that", "localClock"})
NODE_NAMES = frozenset({"start", "done"})
PROPERTY_KINDS = ("constraint", "requirement", "calc", "concern", "verification", "analysis", "case",
                  "use case")
_PERFORMER_KINDS = ("part", "item", "occurrence", "port")


@dataclass(frozen=True)
class Reference:
    """A name as written, what kind of reference it is, and where."""

    name: str
    what: str  # "name", "assignment target", "succession target", "type", ...
    span: s.Span
    chain: str | None = None  # the whole `a.b.c` when the features after the head are checked too


# ---------------------------------------------------------------- what a text declares


def declared_names(members: Iterable[s.Member]) -> set[str]:
    """Every name declared anywhere among `members` and inside them."""
    out: set[str] = set()
    for m in members:
        _declare(m, out)
    return out


def _declare(m: s.Member | s.Block | None, out: set[str]) -> None:
    if m is None:
        return
    if isinstance(m, s.Block):
        for inner in m.members:
            _declare(inner, out)
        return
    for attr in ("name", "short_name"):
        value = getattr(m, attr, None)
        if isinstance(value, str):
            out.add(value)
    if isinstance(m, s.Usage):
        out.update(r.rsplit("::", 1)[-1] for r in m.redefines)
    if isinstance(m, s.For):
        out.add(m.variable)
    if isinstance(m, s.Accept) and m.trigger.payload:
        out.add(m.trigger.payload)
    if isinstance(m, (s.Transition, s.StateTriggerShorthand)) and m.trigger is not None and m.trigger.payload:
        out.add(m.trigger.payload)
    if isinstance(m, s.FirstMember) and m.target is None:
        out.add(m.source.split(".", 1)[0])  # `first begin;` names a start node of its own
    for child in _children(m):
        _declare(child, out)


def _children(m: s.Member) -> Iterator[s.Member | s.Block | None]:
    """The members and blocks a member holds."""
    if isinstance(m, (s.Package, s.Definition, s.Metadata, s.ConstraintMember, s.FirstMember,
                      s.SuccessionMember, s.ControlNode, s.Accept)):
        yield from m.members
    if isinstance(m, s.Usage):
        yield from m.members
        yield m.action_body
    if isinstance(m, s.ThenMember):
        yield m.member
    if isinstance(m, s.EntryMember):
        yield m.behavior
        yield m.block
    if isinstance(m, s.If):
        yield m.then
        yield m.otherwise
    if isinstance(m, (s.While, s.For, s.LoopUntil)):
        yield m.body
    if isinstance(m, (s.Transition, s.StateTriggerShorthand)) and isinstance(m.effect, (s.Member, s.Block)):
        yield m.effect


# ---------------------------------------------------------------- what a text reads


def expression_names(e: s.Expr | None) -> Iterator[s.Name]:
    """The names an expression reads (a chain's base, not the features it reaches; no callee)."""
    if e is None:
        return
    if isinstance(e, s.Name):
        yield e
    elif isinstance(e, s.Chain):
        yield from expression_names(e.base)
    elif isinstance(e, (s.Call, s.New)):
        if isinstance(e, s.Call) and not isinstance(e.callee, s.Name):
            yield from expression_names(e.callee)
        for arg in e.args:
            yield from expression_names(arg)
        for _, arg in e.named:
            yield from expression_names(arg)
    elif isinstance(e, s.Index):
        yield from expression_names(e.base)
        if e.positional or not isinstance(e.index, (s.Name, s.Binary, s.Chain)):  # a unit: `5 [s]`, `[m/s]`
            yield from expression_names(e.index)
    elif isinstance(e, s.Unary):
        yield from expression_names(e.operand)
    elif isinstance(e, s.Binary):
        yield from expression_names(e.left)
        yield from expression_names(e.right)
    elif isinstance(e, s.Conditional):
        yield from expression_names(e.condition)
        yield from expression_names(e.then)
        yield from expression_names(e.otherwise)
    elif isinstance(e, s.SequenceExpr):
        for x in e.elements:
            yield from expression_names(x)
    elif isinstance(e, s.Lambda):  # `{in x; x > limit}`: its parameters are its own
        yield from (n for n in expression_names(e.body) if n.name not in e.params)


def _exprs(refs: list[Reference], e: s.Expr | None) -> None:
    refs.extend(Reference(n.name, "name", n.span) for n in expression_names(e))
    if isinstance(e, s.New):
        refs.append(Reference(e.type_name, "type", e.span))
    for inner in _subexpressions(e):
        if isinstance(inner, s.New):
            refs.append(Reference(inner.type_name, "type", inner.span))


def _subexpressions(e: s.Expr | None) -> Iterator[s.Expr]:
    if e is None:
        return
    for value in vars(e).values():
        if isinstance(value, s.Expr):
            yield value
            yield from _subexpressions(value)
        elif isinstance(value, tuple):
            for x in value:
                item = x[1] if isinstance(x, tuple) else x
                if isinstance(item, s.Expr):
                    yield item
                    yield from _subexpressions(item)


def _path(refs: list[Reference], path: str | None, what: str, span: s.Span) -> None:
    if path:
        refs.append(Reference(path.split(".", 1)[0], what, span, path if what in _CHAINED else None))


# references whose whole chain is checked (a flow's or binding's end: `conv.input`)
_CHAINED = ("flow source", "flow target", "binding end")


def references(m: s.Member | s.Block | None, registered: bool = False) -> list[Reference]:
    """What a member reads and names, and (unless it is an element checked on its own, `registered`)
    what the members it holds read."""
    refs: list[Reference] = []
    _references(m, refs, registered)
    return refs


def _references(m: s.Member | s.Block | None, refs: list[Reference], top: bool = False) -> None:
    if m is None:
        return
    if isinstance(m, s.Block):
        for inner in m.members:
            _references(inner, refs)
        return
    span = m.span
    if isinstance(m, s.Usage):
        _exprs(refs, m.value)
        _exprs(refs, m.result)
        if m.action_body is not None:
            _references(m.action_body, refs)
        if top:
            return  # its members are elements, or are read where the element's own members are
    elif isinstance(m, s.Definition):
        _exprs(refs, m.result)
        if top:
            return
    elif isinstance(m, s.Assign):
        _path(refs, m.target, "assignment target", span)
        _exprs(refs, m.value)
    elif isinstance(m, (s.If, s.While)):
        _exprs(refs, m.condition)
        if isinstance(m, s.While):
            _exprs(refs, m.until)
    elif isinstance(m, s.For):
        _exprs(refs, m.collection)
    elif isinstance(m, s.LoopUntil):
        _exprs(refs, m.until)
    elif isinstance(m, s.Send):
        _exprs(refs, m.payload)
        _exprs(refs, m.to)
        _path(refs, m.via, "port", span)
    elif isinstance(m, s.Accept):
        _trigger(refs, m.trigger, span)
    elif isinstance(m, s.Terminate):
        _path(refs, m.target, "terminate target", span)
    elif isinstance(m, s.FirstMember):
        _path(refs, m.source if m.target is not None else None, "succession source", span)
        _path(refs, m.target, "succession target", span)
        _exprs(refs, m.guard)
    elif isinstance(m, s.SuccessionMember):
        _path(refs, m.source, "succession source", span)
        _path(refs, m.target, "succession target", span)
        _exprs(refs, m.guard)
    elif isinstance(m, s.ThenMember):
        _path(refs, m.target, "succession target", span)
    elif isinstance(m, s.DecisionBranch):
        _exprs(refs, m.guard)
        _path(refs, m.target, "succession target", span)
    elif isinstance(m, s.FlowMember):
        _path(refs, m.source, "flow source", span)
        _path(refs, m.target, "flow target", span)
    elif isinstance(m, s.BindMember):
        _path(refs, m.left, "binding end", span)
        _path(refs, m.right, "binding end", span)
    elif isinstance(m, s.ConnectMember):
        _path(refs, m.source, "connection end", span)
        _path(refs, m.target, "connection end", span)
    elif isinstance(m, s.ConstraintMember):
        _exprs(refs, m.expression)
    elif isinstance(m, s.Transition):
        _path(refs, m.source, "transition source", span)
        _path(refs, m.target, "transition target", span)
        if m.trigger is not None:
            _trigger(refs, m.trigger, span)
        _exprs(refs, m.guard)
    elif isinstance(m, s.StateTriggerShorthand):
        _trigger(refs, m.trigger, span)
        _exprs(refs, m.guard)
        _path(refs, m.target, "transition target", span)
    elif isinstance(m, s.Metadata):
        return  # its values are annotations, not behavior
    for child in _children(m):
        if not (isinstance(m, s.Usage) and child is m.action_body):
            _references(child, refs)


def _trigger(refs: list[Reference], trigger: s.Trigger, span: s.Span) -> None:
    _exprs(refs, trigger.expression)
    _path(refs, trigger.via, "port", span)
    if trigger.kind is s.TriggerKind.SIGNAL:
        _path(refs, trigger.subsets, "accepted feature", span)


# ---------------------------------------------------------------- the check at submission


class _Names:
    """What one model admits: names declared per top-level element, performers' features, all names."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self._per_top: dict[int, set[str]] = {}
        self.everywhere = set()
        for doc in model.documents:
            self.everywhere |= declared_names(doc.members)
        self.performers: set[str] = set()
        for el in model.walk():
            if el.base_kind in _PERFORMER_KINDS and isinstance(el.decl, (s.Definition, s.Usage)):
                self.performers |= declared_names(el.decl.members)

    def declared_around(self, el: Element) -> set[str]:
        top = el
        while top.owner is not None and top.owner.kind != "package" and top.owner.owner is not None:
            top = top.owner
        names = self._per_top.get(id(top))
        if names is None:
            names = declared_names((top.decl,)) if top.decl is not None else set()
            self._per_top[id(top)] = names
        return names

    def in_property(self, el: Element) -> bool:
        e: Element | None = el
        while e is not None:
            if e.base_kind in PROPERTY_KINDS:
                return True
            e = e.owner
        return False

    def known(self, ref: Reference, scope: Element) -> bool:
        name = ref.name
        if ref.what == "type":
            return lookup(self.model, scope, name) is not None or name in self.everywhere
        if "::" in name:
            return lookup(self.model, scope, name) is not None
        if name in CONTEXT_NAMES or name in self.declared_around(scope):
            return True
        if ref.what.startswith(("succession", "transition")) and name in NODE_NAMES:
            return True
        if name in self.performers or (self.in_property(scope) and name in self.everywhere):
            return True
        return lookup(self.model, scope, name) is not None


def features_of(model: Model, el: Element) -> set[str]:
    """The names `el` declares inside it, and those its types (and theirs) declare."""
    out: set[str] = set()
    for at in lineage(model, el):
        if at.decl is not None:
            out |= declared_names((at.decl,)) - {at.name}
    return out


def performer_features(model: Model) -> set[str]:
    """The features any part, item, occurrence or port declares (a performer's, read by bare name)."""
    return _Names(model).performers


def check_names(model: Model) -> None:
    """Refuse the model at the first name that denotes nothing (in declaration order)."""
    names = _Names(model)
    for el in model.walk():
        decl = el.decl
        if not isinstance(decl, (s.Usage, s.Definition)):
            continue
        own: list[Reference] = []
        if isinstance(decl, s.Usage):
            # a feature's value and multiplicity read in its owner's namespace; its body in its own
            outer: list[Reference] = []
            _exprs(outer, decl.value)
            mult = decl.multiplicity
            for bound in (mult.lower_ref, mult.upper_ref) if mult is not None else ():
                _path(outer, bound, "multiplicity bound", decl.span)
            for ref in outer:
                _require(names, ref, el.owner or el, el)
            _exprs(own, decl.result)
            if decl.action_body is not None:
                own.extend(references(decl.action_body))
        else:
            _exprs(own, decl.result)
        for member in decl.members:
            if not _registered(member):
                own.extend(references(member))
        for ref in own:
            _require(names, ref, el, el)


def _registered(m: s.Member) -> bool:
    """Whether a member is an element of its own (checked when the walk reaches it)."""
    if isinstance(m, s.ThenMember) and m.member is not None:
        return _registered(m.member)
    if isinstance(m, s.EntryMember):
        return isinstance(m.behavior, s.Usage)
    return isinstance(m, (s.Package, s.Definition, s.Usage, s.Import))


def _require(names: _Names, ref: Reference, scope: Element, el: Element) -> None:
    if names.known(ref, scope):
        if ref.chain is not None:
            _require_chain(names.model, ref, scope, el)
        return
    candidates = set(visible_names(names.model, scope)) | names.declared_around(scope)
    raise ResolveError(ref.name, f"{el.kind} {el.qualified_name}", candidates, el.path, ref.span.line,
                       ref.span.column, ref.what)


def unknown_names(model: Model, scope: Element, exprs: Iterable[s.Expr], admitted: Iterable[str]) -> \
        list[s.Name]:
    """The names among `exprs` that neither `admitted` nor a lookup from `scope` (nor the context
    names) resolve: what a property reads that the behavior checked against it does not have."""
    allowed = set(admitted) | CONTEXT_NAMES
    out = []
    for e in exprs:
        for n in expression_names(e):
            if n.name in allowed:
                continue
            if lookup(model, scope, n.name) is not None:
                continue
            out.append(n)
    return out


def _require_chain(model: Model, ref: Reference, scope: Element, el: Element) -> None:
    """Each feature after a chain's head is a feature of what the chain reached, as far as the model
    states that statically (a usage referring to another, or one whose type is not found, stops it)."""
    assert ref.chain is not None
    head, *rest = ref.chain.split(".")
    at = lookup(model, scope, head)
    for part in rest:
        if at is None or not isinstance(at.decl, (s.Usage, s.Definition)):
            return
        if isinstance(at.decl, s.Usage) and (at.decl.references or at.decl.action_body is not None):
            return
        if any(lookup(model, at.owner, t) is None for t in at.type_names):
            return
        found = member_of(model, at, part)
        if found is None:
            candidates = [f"{at.name}.{n}" for n in _feature_names(model, at)]
            raise ResolveError(f"{at.name}.{part}", f"{el.kind} {el.qualified_name}", candidates, el.path,
                               ref.span.line, ref.span.column, "feature")
        at = found


def _feature_names(model: Model, el: Element) -> list[str]:
    names = [n for n in el.members if not n.startswith("$")]
    for t in el.type_names:
        base = lookup(model, el.owner, t)
        if base is not None:
            names.extend(n for n in base.members if not n.startswith("$"))
    return names
