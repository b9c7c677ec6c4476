"""The reduction's effectiveness, ratcheted: states and moves per model, reduced and unreduced.

ratchet.tsv pins what the check searches over the reduction corpus's actions, the dependence
models and a few conformance cases. Any movement fails the test and is adjudicated: a reduced
count rising is lost reduction; one falling must keep test_reduction.py passing. To accept the
current figures, rerun with OPENSYSML_UPDATE_RATCHET=1, which rewrites the file.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest

import ir
from engines.runtime import Program
from tests.corpus_cases import CONFORMANCE, HAVE_CORPUS, NO_CORPUS, cases, entry
from tests.engines.check.machines_reduced import checked as machine_checked
from tests.engines.check.machines_reduced import machine_dependence_models, reduction_machine_models
from tests.engines.check.models import REDUCTION, checked, dependence_models, reduction_models

UPDATE = os.environ.get("OPENSYSML_UPDATE_RATCHET")
RATCHET = Path(__file__).resolve().parent / "ratchet.tsv"
HEADER = ("# States and moves the check searches, reduced then unreduced, per model.\n"
          "# Regenerate with OPENSYSML_UPDATE_RATCHET=1 and adjudicate every movement: a reduced\n"
          "# count rising loses reduction, one falling must keep test_reduction.py passing.\n"
          "# model\treduced states\treduced moves\tunreduced states\tunreduced moves\n")
HOW = "if the change is wanted, rerun with OPENSYSML_UPDATE_RATCHET=1 to rewrite tests/engines/check/ratchet.tsv"

CONFORMANCE_CASES = ("action_accept_loop_body", "action_accept_nested_blocks",
                     "action_explore_body_fork_lost_update", "action_explore_body_ordered_substeps",
                     "action_explore_write_between_branch_nodes", "action_invoked_node_body_writes_output")

Figures = tuple[int, int, int, int]


def _subjects() -> dict[str, tuple[Program, str]]:
    out: dict[str, tuple[Program, str]] = {}
    for m in reduction_models() + dependence_models():
        if m.action is not None:
            out[m.name] = (m.program(), m.action)
    by_name = {c.name: c for c in cases("action")}
    for name in CONFORMANCE_CASES:
        case = by_name.get(name)
        if case is None:  # no corpus beside the checkout
            continue
        model = ir.resolve([ir.parse(case.text, case.name)])
        out[f"conformance/{name}"] = (Program(model), entry(case, model))
    return out


SUBJECTS = _subjects()
# the machine models (a machine with its environment, or machines and actions on one clock)
MACHINES = {m.name: m for m in reduction_machine_models() + machine_dependence_models()}


@cache
def figures(name: str) -> Figures:
    if name in MACHINES:
        reduced = machine_checked(MACHINES[name], reduce=True)
        full = machine_checked(MACHINES[name], reduce=False)
    else:
        program, subject = SUBJECTS[name]
        reduced = checked(program, subject, reduce=True)
        full = checked(program, subject, reduce=False)
    return (reduced.stats.states, reduced.stats.moves, full.stats.states, full.stats.moves)


def read_ratchet(path: Path = RATCHET) -> dict[str, Figures]:
    out: dict[str, Figures] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, *numbers = line.split("\t")
        a, b, c, d = (int(n) for n in numbers)
        out[name] = (a, b, c, d)
    return out


def write_ratchet(path: Path = RATCHET) -> None:
    rows = [f"{name}\t" + "\t".join(str(n) for n in figures(name)) for name in sorted({*SUBJECTS, *MACHINES})]
    path.write_text(HEADER + "\n".join(rows) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def pinned() -> dict[str, Figures]:
    if UPDATE:
        assert HAVE_CORPUS, f"the ratchet is rewritten only with the corpus: {NO_CORPUS}"
        write_ratchet()
    return read_ratchet()


@pytest.mark.parametrize("name", sorted({*SUBJECTS, *MACHINES}))
def test_states_and_moves_are_as_pinned(name: str, pinned: dict[str, Figures]) -> None:
    assert name in pinned, f"{name} has no row in ratchet.tsv; {HOW}"
    now = figures(name)
    assert now == pinned[name], (
        f"{name}: reduced {now[0]} states / {now[1]} moves, unreduced {now[2]} / {now[3]}; "
        f"ratchet.tsv pins {pinned[name][0]} / {pinned[name][1]}, {pinned[name][2]} / {pinned[name][3]}; {HOW}")


@pytest.mark.corpus
def test_the_ratchet_names_no_model_that_is_gone(pinned: dict[str, Figures]) -> None:
    stale = sorted(set(pinned) - set(SUBJECTS) - set(MACHINES))
    assert not stale, f"ratchet.tsv pins models no longer checked: {stale}; {HOW}"


def read_expected() -> dict[str, Figures]:
    """reduction_expected.txt: reduced states, reduced moves, unreduced states, unreduced moves, name."""
    out: dict[str, Figures] = {}
    for line in (REDUCTION / "reduction_expected.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        *numbers, name = line.split("\t")
        a, b, c, d = (int(n) for n in numbers)
        out[name] = (a, b, c, d)
    return out


@pytest.mark.corpus
def test_reduction_corpus_beside_the_reference_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """Our figures beside the reference executor's (a different state granularity: compared by eye,
    not asserted); asserted only that reducing never searches more states than not reducing."""
    expected = read_expected()
    lines = [f"{'model':<22} {'ours reduced':>14} {'ours unreduced':>15} {'ref reduced':>12} {'ref unreduced':>14}"]
    names = [m.name for m in reduction_models() if m.action is not None] + [m.name for m in reduction_machine_models()]
    assert names
    for full_name in names:
        name = full_name.removeprefix("reduction/")
        rs, rm, us, um = figures(full_name)
        ref = expected.get(name)
        ref_text = (f"{ref[0]:>5}/{ref[1]:<6} {ref[2]:>6}/{ref[3]:<7}" if ref else "(not listed)")
        lines.append(f"{name:<22} {rs:>7}/{rm:<6} {us:>7}/{um:<7} {ref_text}")
        assert rs <= us, f"{name}: reduced {rs} states > unreduced {us}"
    with capsys.disabled():
        print("\nstates/moves\n" + "\n".join(lines))


@pytest.mark.corpus
def test_conformance_rows_are_cases_of_the_corpus() -> None:
    for name in CONFORMANCE_CASES:
        assert (CONFORMANCE / f"{name}.sysml").exists(), name
