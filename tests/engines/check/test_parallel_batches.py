"""A partition keeps its inbox in batches as it fills and sends its successors in batches as they
gather (engines/check/parallel.BATCH), which bounds a round's memory: what it keeps must not depend on
the batches. Partitions driven in this process, round by round as the Ray driver drives them (no Ray
needed): the same states, levels, parents and claims with batches of 3 messages as with one batch a
round, for a flat action and a machine whose states travel as schedules."""

from __future__ import annotations

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
from engines.runtime.states import parse_send

HERE = Path(__file__).parent


class _Peer:
    """A partition as another's `peers[i]` sees it: `receive.remote(batch)`, called here at once."""

    def __init__(self, part: Partition) -> None:
        self.receive = self
        self.part = part

    def remote(self, batch: Any) -> None:
        self.part.receive(batch)


class _Recording(_Peer):
    """A peer that also keeps the fingerprints of each batch it receives."""

    def __init__(self, part: Partition) -> None:
        super().__init__(part)
        self.batches: list[list[bytes]] = []

    def remote(self, batch: Any) -> None:
        self.batches.append([message[0] for message in parallel.unpack(batch)])
        super().remote(batch)


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
        states += sum(counted for _, counted, _ in settled)
        levels = [level for _, _, level in settled if level >= 0]
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


def _machine() -> tuple[Path, Recipe]:
    path = HERE / "machines" / "door.sysml"
    program = Program(ir.resolve([ir.parse(path.read_text(encoding="utf-8"), str(path))]))
    script = Script(alphabet=(parse_send("Open"), parse_send("Close")), max_events=3)
    start, subject = machine_start(program, "DoorMachine", script)
    return path, Recipe(SubjectKind.MACHINE, subject, script=script, features=feature_paths(start(), subject, None))


@pytest.mark.parametrize("made", [_action, _machine], ids=["flat action", "machine"])
@pytest.mark.parametrize("count", [1, 2])
def test_what_a_partition_keeps_does_not_depend_on_its_batches(made: Any, count: int,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path, recipe = made()
    whole = _search(path, recipe, count)
    monkeypatch.setattr(parallel, "BATCH", 3)
    batched = _search(path, recipe, count)
    assert whole[0] > 3 and whole == batched


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
