"""What one move of a node touches, read off its lowered body once: reads, writes, sends, accepts,
the joins and merges it reaches, and whether a target is dynamic (dependent on every other move)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ir import syntax as s
from ir.graphs import Footprint


def expression_reads(e: s.Expr | None) -> Iterator[str]:
    """Every feature an expression reads, a chain by its whole path and by its head."""
    if e is None:
        return
    if isinstance(e, s.Name):
        yield e.name
    elif isinstance(e, s.Chain):
        path = chain_path(e)
        if path is not None:
            yield path
            yield path.split(".", 1)[0]
        else:
            yield from expression_reads(e.base)
    elif isinstance(e, s.Binary):
        yield from expression_reads(e.left)
        yield from expression_reads(e.right)
    elif isinstance(e, s.Unary):
        yield from expression_reads(e.operand)
    elif isinstance(e, s.Conditional):
        for part in (e.condition, e.then, e.otherwise):
            yield from expression_reads(part)
    elif isinstance(e, (s.Call, s.New)):
        for arg in e.args:
            yield from expression_reads(arg)
        for _, arg in e.named:
            yield from expression_reads(arg)
    elif isinstance(e, s.Index):
        yield from expression_reads(e.base)
        if e.positional:  # `xs#(i)` reads i; in `5 [s]` the unit is no feature
            yield from expression_reads(e.index)
    elif isinstance(e, s.SequenceExpr):
        for x in e.elements:
            yield from expression_reads(x)
    elif isinstance(e, s.Lambda):
        yield from (name for name in expression_reads(e.body) if name.split(".", 1)[0] not in e.params)


def chain_path(e: s.Expr) -> str | None:
    if isinstance(e, s.Name):
        return e.name
    if isinstance(e, s.Chain):
        base = chain_path(e.base)
        return f"{base}.{e.feature}" if base is not None else None
    return None


def constructs(e: s.Expr | None) -> bool:
    """Whether an expression makes an object (`new T()`): its effects no feature names."""
    if e is None:
        return False
    if isinstance(e, s.New):
        return True
    if isinstance(e, s.Binary):
        return constructs(e.left) or constructs(e.right)
    if isinstance(e, (s.Unary,)):
        return constructs(e.operand)
    if isinstance(e, s.Call):
        return any(constructs(a) for a in e.args)
    return False


def evaluating(e: s.Expr | None) -> Footprint[int]:
    """What evaluating an expression touches: the features it reads; a dynamic target if it makes an
    object (`new T()`), whose effects no feature names."""
    return Footprint(reads=frozenset(expression_reads(e)), dynamic=constructs(e))


def statements_footprint(members: Iterable[s.Member]) -> Footprint[int]:
    """What a statement list touches: the union of its statements'."""
    out: Footprint[int] = Footprint()
    for m in members:
        out = out | statement_footprint(m)
    return out


def statement_footprint(m: s.Member) -> Footprint[int]:
    """What one statement (or a usage's value and body) touches."""
    if isinstance(m, s.Assign):
        return evaluating(m.value) | Footprint(writes=frozenset({m.target}))
    if isinstance(m, s.If):
        out = reading(m.condition) | statements_footprint(m.then.members)
        return out | statements_footprint(m.otherwise.members) if m.otherwise is not None else out
    if isinstance(m, s.While):
        # `while c { ... } until u;` reads u after each pass
        return reading(m.condition) | reading(m.until) | statements_footprint(m.body.members)
    if isinstance(m, s.LoopUntil):
        return reading(m.until) | statements_footprint(m.body.members)
    if isinstance(m, s.For):
        return reading(m.collection) | statements_footprint(m.body.members)
    if isinstance(m, s.Send):
        # a `via` send is routed by ports no name here resolves
        return evaluating(m.payload) | reading(m.to) | Footprint(sends=True, dynamic=m.via is not None)
    if isinstance(m, s.Accept):
        payload = frozenset({m.trigger.payload}) if m.trigger.payload else frozenset()
        return reading(m.trigger.expression) | Footprint(writes=payload, accepts=True)
    if isinstance(m, s.Terminate):
        return Footprint(dynamic=True)  # ending a performance cuts every move still open in it
    if isinstance(m, s.Usage):
        out = reading(m.value)
        if m.action_body is not None:
            out = out | statement_footprint(m.action_body)
        return out | statements_footprint(m.members)
    if isinstance(m, s.ThenMember) and m.member is not None:
        return statement_footprint(m.member)
    if isinstance(m, (s.SuccessionMember, s.FirstMember)):
        return reading(m.guard)
    return Footprint()


def reading(e: s.Expr | None) -> Footprint[int]:
    """The features an expression reads (what a value it makes does counts only where a statement
    says so: an assignment's value, a send's payload, a start shot's feature values)."""
    return Footprint(reads=frozenset(expression_reads(e)))
