"""What one move of a node touches, read off its lowered body once: reads, writes, sends, accepts,
the joins and merges it reaches, and whether a target is dynamic (dependent on every other move)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ir import syntax as s


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


class Touches:
    """Accumulates what statements touch."""

    def __init__(self) -> None:
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.sends = False
        self.accepts = False
        self.dynamic = False

    def statements(self, members: Iterable[s.Member]) -> None:
        for m in members:
            self.member(m)

    def member(self, m: s.Member) -> None:
        if isinstance(m, s.Assign):
            self.writes.add(m.target)
            self.reads.update(expression_reads(m.value))
            self.dynamic = self.dynamic or constructs(m.value)
        elif isinstance(m, s.If):
            self.reads.update(expression_reads(m.condition))
            self.statements(m.then.members)
            if m.otherwise is not None:
                self.statements(m.otherwise.members)
        elif isinstance(m, (s.While, s.LoopUntil)):
            condition = m.condition if isinstance(m, s.While) else m.until
            self.reads.update(expression_reads(condition))
            self.statements(m.body.members)
        elif isinstance(m, s.For):
            self.reads.update(expression_reads(m.collection))
            self.statements(m.body.members)
        elif isinstance(m, s.Send):
            self.sends = True
            self.reads.update(expression_reads(m.payload))
            self.reads.update(expression_reads(m.to))
            self.dynamic = self.dynamic or m.via is not None or constructs(m.payload)
        elif isinstance(m, s.Accept):
            self.accepts = True
            self.reads.update(expression_reads(m.trigger.expression))
            if m.trigger.payload:
                self.writes.add(m.trigger.payload)
        elif isinstance(m, s.Terminate):
            self.dynamic = True  # ending a performance cuts every move still open in it
        elif isinstance(m, s.Usage):
            self.reads.update(expression_reads(m.value))
            if m.action_body is not None:
                self.member(m.action_body)
            self.statements(m.members)
        elif isinstance(m, s.ThenMember) and m.member is not None:
            self.member(m.member)
        elif isinstance(m, (s.SuccessionMember, s.FirstMember)):
            self.reads.update(expression_reads(m.guard))
