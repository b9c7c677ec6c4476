"""A partition keeps its inbox in batches as it fills and sends its successors in batches as they
gather (engines/check/parallel.BATCH), which bounds a round's memory: what it keeps must not depend on
the batches. Partitions driven in this process, round by round as the Ray driver drives them (no Ray
needed): the same states, levels, parents and claims with batches of 3 messages as with one batch a
round, for a flat action and a machine whose states travel as schedules."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

import ir
from engines.check import parallel
from engines.check.machine import machine_start
from engines.check.parallel import Partition, Recipe, SubjectKind
from engines.check.search import readable_after_end
from engines.framework import feature_paths
from engines.runtime import Program, Script
from engines.runtime.states import MachineRun, parse_send

HERE = Path(__file__).parent


@pytest.fixture(autouse=True)
def _collector_as_it_was() -> Any:
    """A partition sets the collector for its search (off for a flat one, on with what it holds frozen for
    an interpreter's), as a worker's own process may; driven in this process, it is set back after."""
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


class _Peer:
    """A partition as another's `peers[i]` sees it: `receive.remote(batch, search)`, called here at once."""

    def __init__(self, part: Partition) -> None:
        self.receive = self
        self.part = part

    def remote(self, batch: Any, search: int) -> None:
        self.part.receive(batch, search)


class _Recording(_Peer):
    """A peer that also keeps the fingerprints of each batch it receives."""

    def __init__(self, part: Partition) -> None:
        super().__init__(part)
        self.batches: list[list[bytes]] = []

    def remote(self, batch: Any, search: int) -> None:
        self.batches.append([message[0] for message in parallel.unpack(batch, self.part.recipe.flat)])
        super().remote(batch, search)


def _search(path: Path, recipe: Recipe, count: int, peer: type[_Peer] = _Peer,
            peers: list[Any] | None = None) -> tuple[int, list[Any], list[Any]]:
    """The search driven round by round; `peers`, where given, is filled with the partitions' peers."""
    sources = [(str(path), path.read_text(encoding="utf-8"))]
    parts = [Partition() for _ in range(count)]
    for i, part in enumerate(parts):
        part.load(sources, recipe, True, i, count)
    made = [peer(p) for p in parts]
    if peers is not None:
        peers.extend(made)
    states = sum(p.start() for p in parts)
    round_ = 0
    while True:
        for part in parts:
            part.expand(made, round_, 10_000)
        settled = [part.settle() for part in parts]
        states += sum(s.counted for s in settled)
        levels = [s.lowest for s in settled if s.lowest >= 0]
        if not levels:
            break
        round_ = min(levels)
    kept = sorted((fp, seen[0]) for part in parts for fp, seen in part.visited.items())
    reports = [part.report() for part in parts]
    claims = [(r.finals, r.violations, r.deadlocks, r.failures, r.deepest) for r in reports]
    return states, kept, claims


def _action() -> tuple[Path, Recipe]:
    path = HERE / "flat" / "booking.sysml"
    program = Program(ir.resolve([ir.parse(path.read_text(encoding="utf-8"), str(path))]))
    subject = program.action("Book").qualified_name
    probe = program.start_action(subject, None, fine=True)
    diverge = feature_paths(probe, subject, None)
    recipe = Recipe(SubjectKind.ACTION, subject, None, None, (), diverge, readable_after_end(program.model, diverge or ()),
                    flat=True, max_steps=probe.world.max_steps)
    return path, recipe


def _machine_in(path: Path, name: str, script: Script) -> Recipe:
    """The recipe of the machine `name` of the model at `path`, with its environment `script`."""
    program = Program(ir.resolve([ir.parse(path.read_text(encoding="utf-8"), str(path))]))
    start, subject = machine_start(program, name, script)
    return Recipe(SubjectKind.MACHINE, subject, script=script, features=feature_paths(start(), subject, None))


def _machine() -> tuple[Path, Recipe]:
    path = HERE / "machines" / "door.sysml"
    script = Script(alphabet=(parse_send("Open"), parse_send("Close")), max_events=3)
    return path, _machine_in(path, "DoorMachine", script)


@pytest.mark.parametrize("made", [_action, _machine], ids=["flat action", "machine"])
@pytest.mark.parametrize("count", [1, 2])
def test_what_a_partition_keeps_does_not_depend_on_its_batches(made: Any, count: int,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path, recipe = made()
    whole = _search(path, recipe, count)
    monkeypatch.setattr(parallel, "BATCH", 3)
    batched = _search(path, recipe, count)
    assert whole[0] > 3 and whole == batched


@pytest.mark.parametrize("why", ["cancelled", "memory"])
def test_a_round_stopped_short_leaves_the_rest_of_its_level_to_expand(why: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker looks at its task's cancel flag (the driver cancels a round on an interrupt or at the timeout)
    and at its memory every LOOK states of a round: where either says so, it stops there, the states it did
    not expand held as they were, and says why at the barrier."""
    monkeypatch.setattr(parallel, "LOOK", 2)
    path, recipe = _action()
    part = Partition()
    part.load([(str(path), path.read_text(encoding="utf-8"))], recipe, False, 0, 1, memory=2**40)
    peers = [_Peer(part)]
    part.start()
    round_ = 0
    while len(part.pending.get(round_, {})) < 5:  # a level of 5 states or more
        part.expand(peers, round_, 10_000)
        settled = part.settle()
        assert settled.stopped is None and settled.lowest >= 0
        round_ = settled.lowest
    level = dict(part.pending[round_])
    if why == "cancelled":
        part.cancelled = lambda: True
    else:
        part.memory_share = 1
    part.expand(peers, round_, 10_000)
    settled = part.settle()
    assert settled.stopped == why
    assert part.pending[round_] == {fp: level[fp] for fp in list(level)[2:]}  # two expanded, the rest held
    assert settled.figures.frontier >= len(level) - 2


# a lift whose Go starts a loop that never ends inside one move: the step budget, or a bound, stops it
SPINNER = """package lift {
    private import ScalarValues::*;
    attribute def Go;
    state def Spinner {
        attribute turns : Integer := 0;
        entry; then idle;
        state idle;
        state busy;
        transition first idle accept Go do action spin { while true { assign turns := turns + 1; } } then busy;
    }
}
"""


def test_a_round_is_stopped_inside_a_long_move(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An interpreter's move may run long: inside it the worker's run looks at its task's cancel flag (every
    10 ms, as the sequential search's looks at the interrupt), and the round stops there."""
    monkeypatch.setenv("OPENSYSML_MAX_ACTION_STEPS", str(10**6))  # (spent in seconds: without the look, the move fails)
    path = tmp_path / "lift.sysml"
    path.write_text(SPINNER, encoding="utf-8")
    recipe = _machine_in(path, "Spinner", Script(alphabet=(parse_send("Go"),), max_events=1))
    part = Partition()
    part.load([(str(path), SPINNER)], recipe, False, 0, 1)
    looks = iter(range(3))
    part.cancelled = lambda: next(looks, None) is None  # set once the run has looked three times
    part.start()
    level = dict(part.pending[0])
    part.expand([_Peer(part)], 0, 10_000)
    settled = part.settle()
    assert settled.stopped == "cancelled" and part.pending[0] == level


def test_a_flat_state_reached_from_several_predecessors_is_sent_to_its_owner_once() -> None:
    """A successor another worker owns is sent once a batch, from its predecessor first in the fixed order:
    no batch names a state twice, though the search reaches states from several predecessors."""
    path, recipe = _action()
    peers: list[_Recording] = []
    _, kept, _ = _search(path, recipe, 2, _Recording, peers)
    batches = [b for peer in peers for b in peer.batches]
    assert batches and all(len(b) == len(set(b)) for b in batches)
    moves = sum(peer.part.moves for peer in peers)
    assert moves > len(kept)  # (states are reached more than once: there were repeats to leave out)


# three valves filling one mixing tank and its stirrer, each region a chain of completions: the machine's first firing
# enters the regions, and every state before its end is partway through it, with no snapshot
MIXER = """package mixing {
    private import ScalarValues::*;
    state def Mixer parallel {
        attribute volume : Integer := 0;
        state water { entry; then closed; state closed; state open; state shut;
            transition first closed do assign volume := volume * 2 + 1 then open;
            transition first open do assign volume := volume * 2 + 1 then shut; }
        state syrup { entry; then closed; state closed; state open; state shut;
            transition first closed do assign volume := volume * 3 then open;
            transition first open do assign volume := volume * 3 then shut; }
        state gas { entry; then closed; state closed; state open; state shut;
            transition first closed do assign volume := volume + 5 then open;
            transition first open do assign volume := volume - 1 then shut; }
        state mixer { entry; then idle; state idle; state stirring; state done;
            transition first idle do assign volume := volume * 2 then stirring;
            transition first stirring do assign volume := volume - 2 then done; }
    }
}
"""


def test_the_runs_a_machine_partition_replaces_are_freed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine partway through its first firing is replayed from a fresh run, which replaces the last:
    the runs replaced (which hold reference cycles) are freed as the search goes, not kept to its end."""
    path = tmp_path / "mixer.sysml"
    path.write_text(MIXER, encoding="utf-8")
    recipe = _machine_in(path, "Mixer", Script())
    made = [0]
    init = MachineRun.__init__

    def counted(self: MachineRun, *args: Any, **kwargs: Any) -> None:
        made[0] += 1
        init(self, *args, **kwargs)
    monkeypatch.setattr(MachineRun, "__init__", counted)
    states, _, _ = _search(path, recipe, 1)
    alive = sum(1 for o in gc.get_objects() if isinstance(o, MachineRun))
    assert states > 100 and made[0] > 50  # (runs were made afresh, again and again)
    assert alive < made[0] / 3  # (the collector's young generations free them: 8 of 65 alive here, 53 without)


def test_a_batch_sent_in_a_search_given_up_is_not_kept() -> None:
    """The workers are kept after a flat search given up partway: a batch a peer sent in it may reach a
    partition once the next search has loaded it, and is left unkept there; one of its own search is kept."""
    path, recipe = _action()
    part = Partition()
    part.load([(str(path), path.read_text(encoding="utf-8"))], recipe, True, 0, 1, search=2)
    part.start()
    state = part.run.state()
    stranger = b"\x01" * 8
    batch = parallel.pack([(stranger, b"", 0, 1, True, False, state)], True)
    part.receive(batch, 1)
    assert part.settle().fresh == 0 and stranger not in part.visited
    part.receive(batch, 2)
    assert part.settle().fresh == 1 and part.visited[stranger] == (1, b"", 0)
