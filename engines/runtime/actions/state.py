"""The canonical state of an action's performance: its tokens as a multiset of where they stand (flow
path, node, join arrival, wait, loop phase) and the values of its frames; token ids excluded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engines.runtime.canon import Canon

if TYPE_CHECKING:
    from engines.runtime.actions.run import Run
    from engines.runtime.actions.tokens import Flow, Token
    from engines.runtime.evaluate import Frame


def _flow_path(canon: Canon, flow: Flow) -> tuple[tuple[object, ...], ...]:
    """Where a flow stands: the node indices of the tokens that entered it, outermost first, each with
    the block of its `if` a branch's flow runs (the two blocks are two graphs over one node) and the
    loop phase of the token entering it (a branch's flow inside a loop pass is told apart by the pass)."""
    path: list[tuple[object, ...]] = []
    token = flow.parent_token
    while token is not None:
        path.append((token.node, flow.branch, _loop(canon, token)))
        flow = token.flow
        token = flow.parent_token
    return tuple(reversed(path))


def _loop(canon: Canon, t: Token) -> tuple[object, ...]:
    """Where a loop a fine run performs pass by pass stands: its phase, and a `for` loop's place in
    its elements (a `while` pass count tells no two states apart the values do not)."""
    state = t.loop
    if state is None:
        return ()
    if not state.items:
        return (state.test,)
    if isinstance(state.items, range):  # a long range, walked lazily: its bounds say which it is
        return (state.test, state.passes, ("range", state.items.start, state.items.stop))
    return (state.test, state.passes, tuple(canon.value(x) for x in state.items))


def _readable(frame: Frame, readable: frozenset[str] | None) -> bool:
    """Whether a chain could read anything through a pin naming `frame`: a feature it or a performance
    pinned in it holds, by a name some expression reads through pins (all, where the key keeps all)."""
    if readable is None or not readable.isdisjoint(frame.values):
        return True
    return any(_readable(pin, readable) for pin in frame.pins.values())


def _grouped(canon: Canon, live: list[Token], own: dict[int, list[tuple[object, ...]]],
             paths: dict[int, tuple[tuple[object, ...], ...]]) -> tuple[tuple[object, ...], set[int], list[Flow]]:
    """The tokens as a multiset of where they stand; and where two flows with tokens in them, or around
    them, have one path (a node performed twice at once: behind a merge, with a multiplicity), which of
    the tokens stand in one performance: each flow its own tokens, its frame's values and the flows
    inside it, sorted. One performance with two statements to go and two performances with one each are
    two states (their performances end apart), and so are two whose steps hold each other's values,
    which the multiset and the values listed by path alone had taken for one. With it, the frames of the
    performances under way (the rest of the key never lists them through a pin), and those the key is
    still to list by where they stand (none where it grouped them: it holds their values)."""
    flows: dict[int, Flow] = {}
    inside: dict[int, list[Flow]] = {}
    tops: list[Flow] = []
    for t in live:
        flow = t.flow
        while id(flow) not in flows:
            flows[id(flow)] = flow
            parent = flow.parent_token
            if parent is None:
                tops.append(flow)
                break
            inside.setdefault(id(parent.flow), []).append(flow)
            flow = parent.flow
    for key, flow in flows.items():
        if key not in paths:
            paths[key] = _flow_path(canon, flow)
    performances = [f for f in flows.values() if f.parent_token is not None]
    framed = {id(f.frame) for f in performances}
    if len({paths[key] for key in flows}) == len(flows):  # each flow told by its path: the multiset says all
        return tuple(sorted(t for tokens in own.values() for t in tokens)), framed, performances

    def tree(flow: Flow) -> tuple[object, ...]:
        values: list[object] = []
        pinned = -1  # (no chain reads through the pin: which performance it names is no part of the state)
        parent = flow.parent_token
        if parent is not None:  # (a top flow's frame is the run's, keyed as ever)
            canon.frame(flow.frame, values, "", framed - {id(flow.frame)})
            if _readable(flow.frame, canon.readable):
                # which of two performances alike the node's pin names (what a chain through it reads)
                holder = parent.flow.frame
                pinned = int(any(pin is flow.frame for pin in holder.pins.values())
                             or any(pin is flow.frame for pin in holder.pin_holder().pins.values()))
        return (tuple(sorted(own.get(id(flow), ()))), tuple(values), pinned,
                tuple(sorted((tree(f) for f in inside.get(id(flow), ())), key=repr)))
    # (ordered by their spelling: two performances' values may list entries of different shapes at one place,
    # a frame's values beside another's delivered items, which Python does not order)
    return ("grouped", tuple(sorted((tree(f) for f in tops), key=repr))), framed, []


def state_key(run: Run, readable: frozenset[str] | None = None) -> tuple[object, ...]:
    """(tokens, values, status), and the moves taken where a body is paused mid-statement: its
    progress is in no field, so such states are never merged with another."""
    canon = Canon(run.ctx, readable)
    live = run.live_tokens()
    paths: dict[int, tuple[tuple[object, ...], ...]] = {}
    paused = bool(run.displayed)
    own: dict[int, list[tuple[object, ...]]] = {}  # each flow's tokens, by the flow's id
    for t in live:
        flow = t.flow
        path = paths.get(id(flow))
        if path is None:
            path = paths[id(flow)] = _flow_path(canon, flow)
        joinish = t.node in flow.graph.converging
        if t.body is not None:
            paused = True
        own.setdefault(id(flow), []).append((path, t.node, t.via if joinish else -1, t.waiting_accept,
                                             str(t.wake) if t.wake is not None else "", t.body is not None,
                                             len(t.group) if t.group else 0, _loop(canon, t)))
    tokens, seen, performances = _grouped(canon, live, own, paths)
    values: list[object] = []
    canon.frame(run.root.frame, values, "", seen)
    # A performance under way is listed by where it stands, never through the pin naming it: where its
    # node was performed twice at once, which of the two the pin names is the order they began in.
    for prefix, flow in sorted(((f"{paths[id(f)]}:", f) for f in performances), key=lambda pair: pair[0]):
        seen.discard(id(flow.frame))
        canon.frame(flow.frame, values, prefix, seen)
    for t in live:
        around: Flow | None = t.flow
        while around is not None:  # the enclosing passes' locals too, where a branch of one runs
            if id(around.frame) not in seen:
                if id(around) not in paths:
                    paths[id(around)] = _flow_path(canon, around)
                canon.frame(around.frame, values, f"{paths[id(around)]}:", seen)
            around = around.parent_token.flow if around.parent_token is not None else None
    key: tuple[object, ...] = (tuple(tokens), tuple(values), run.status)
    if run.broken_assertions:
        key += (run.broken_assertions,)  # a step's assertion found false: no state without it is this one
    if paused:
        key += (repr(run.moves_taken),)
    return key
