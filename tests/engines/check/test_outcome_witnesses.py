"""Each outcome of a check names a witness whose schedule ends in it, where one of the check's witnesses
took that schedule: the witness replays to exactly the outcome's values (an action, a machine driven
by an alphabet, an instance). Before, only an outcome that violated a property named one."""

from __future__ import annotations

from pathlib import Path

import ir
from engines.check.machine import check_machine, replay_machine
from engines.check.search import check
from engines.framework import Bounds, Result
from engines.runtime import Program, Script
from engines.runtime.states import parse_send
from engines.witness import replay_run

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def program(name: str) -> Program:
    path = EXAMPLES / name
    return Program(ir.resolve([ir.parse(path.read_text(encoding="utf-8"), path.name)]))


def linked(result: Result) -> list[tuple[dict[str, str], int]]:
    pairs = [(dict(o.values), o.witness) for o in result.outcomes]
    assert len(result.outcomes) > 1 and all(w for _, w in pairs), pairs
    return pairs


def test_an_actions_outcomes_name_witnesses_that_end_in_them() -> None:
    prog = program("interleavings.sysml")
    result = check(prog, "Race", Bounds())
    for values, number in linked(result):
        run = replay_run(prog, "interleavings::Race", result.witnesses[number - 1])
        assert {k: v for k, v in run.own_outputs().items() if k in values} == values


def test_a_machines_and_an_instances_outcomes_name_witnesses_that_end_in_them() -> None:
    door = program("door.sysml")
    alphabet = Script(alphabet=(parse_send("Open"), parse_send("Lock")), max_events=2)
    pipeline = Path(__file__).resolve().parent / "instances" / "pipeline.sysml"
    line = Program(ir.resolve([ir.parse(pipeline.read_text(encoding="utf-8"), pipeline.name)]))
    for prog, result in ((door, check_machine(door, "Door", alphabet, Bounds())),
                         (line, check_machine(line, "Line", Script(), Bounds(), part=True))):
        for values, number in linked(result):
            run = replay_machine(prog, result.witnesses[number - 1])
            assert {k: v for k, v in run.own_outputs().items() if k in values} == values
