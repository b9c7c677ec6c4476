"""Diagrams: `%show` draws an action's graph (a machine's states) as Mermaid in text/markdown, with a
plain-text fallback; after a check, the witness's path: each move numbered on the edge it came in by,
the node where the property fails marked; a check's JSON carries the same diagram."""

from __future__ import annotations

import re

import pytest

from engines.errors import UnknownBehaviorError
from opensysml_kernel.commands import execute
from opensysml_kernel.errors import UsageError
from opensysml_kernel.reports import CheckReport
from opensysml_kernel.session import Session

# A boiler fed and bled at once: the pressure dips below zero when the bleed goes first, and ends
# at 1 or -3 by the order.
BOILER = """package boiler {
    private import ScalarValues::*;
    action Cycle {
        attribute pressure : Integer := 1;
        first start;
        then fork f;
            then feed;
            then bleed;
        action feed { assign pressure := pressure * 3; }
        action bleed { assign pressure := pressure - 2; }
        succession feed then j;
        succession bleed then j;
        join j;
        then done;
    }
    requirement Positive {
        require constraint { pressure >= 0 }
    }
    item def Heat;
    item def Cool;
    state def Burner {
        entry; then off;
        state off;
        state on;
        transition first off accept Heat then on;
        transition first on accept Cool then off;
    }
}
"""


@pytest.fixture
def boiler() -> Session:
    session = Session()
    session.submit(BOILER, "boiler.sysml")
    return session


def test_show_draws_every_node_and_succession(boiler: Session) -> None:
    result = execute(boiler, "%show Cycle")
    bundle = result._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/markdown"}
    markdown = bundle["text/markdown"]
    assert markdown.startswith("```mermaid\nflowchart TD\n") and markdown.endswith("\n```")
    graph = boiler.program().graph(boiler.program().action("Cycle"))
    assert len(re.findall(r"^    n\d+[(\[{]", markdown, re.M)) == len(graph.nodes)
    assert len(re.findall(r"^    n\d+ -->", markdown, re.M)) == len(graph.edges)
    assert '"fork f"' in markdown and '"join j"' in markdown and "==>" not in markdown
    assert result.text.splitlines()[0] == "action boiler::Cycle"
    assert "  f → bleed" in result.text.splitlines()


def test_after_a_check_the_witness_path_is_drawn(boiler: Session) -> None:
    execute(boiler, "%check-property Positive")
    report = execute(boiler, "%action Cycle")
    assert isinstance(report, CheckReport)
    (violation,) = report.checks[0].result.violations
    assert violation.moves == 3
    drawn = execute(boiler, "%show Cycle")
    markdown = drawn.markdown
    # move 1 is the start itself, move 2 came into the fork, move 3 (the bleed) into bleed, where it fails
    assert re.search(r'^    n\d+\(\("start · 1"\)\)$', markdown, re.M)
    assert re.search(r'^    n\d+ ==>\|"2"\| n\d+$', markdown, re.M)
    bleed = re.search(r'^    (n\d+)\("✗ bleed"\)$', markdown, re.M)
    assert bleed is not None
    assert re.search(rf'^    n\d+ ==>\|"3"\| {bleed.group(1)}$', markdown, re.M)
    assert f"    class {bleed.group(1)} failing" in markdown
    assert drawn.text.splitlines()[-1] == (f"witness {violation.witness}: 1 start, 2 f, 3 bleed"
                                           " ✗ property: boiler::Positive")
    document = report.document()["checks"][0]
    assert "```mermaid\n" + document["diagram"] + "\n```" == markdown


def test_a_named_witness_and_a_machine(boiler: Session) -> None:
    execute(boiler, "%engine check")
    execute(boiler, "%action Cycle")  # divergent: two witnesses, one per final pressure
    second = execute(boiler, "%show Cycle witness 2").text.splitlines()[-1]
    assert second.startswith("witness 2: 1 start, 2 f, 3 bleed, 4 feed")
    with pytest.raises(UsageError, match="has 2 witnesses, not 3"):
        execute(boiler, "%show Cycle witness 3")
    machine = execute(boiler, "%show Burner")
    assert machine.markdown.startswith("```mermaid\nstateDiagram-v2\n")
    assert re.search(r"^    s\d+ --> s\d+ : Heat$", machine.markdown, re.M)
    assert machine.text.splitlines() == ["state machine boiler::Burner", "  off → on  (Heat)", "  on → off  (Cool)"]
    with pytest.raises(UnknownBehaviorError, match="did you mean 'boiler::Cycle'"):
        execute(boiler, "%show Cycel")


def test_a_machine_witness_numbers_the_transitions_it_fired() -> None:
    from tests.opensysml_kernel.test_machine_replay import HEATER

    session = Session()
    session.submit(HEATER, "heater.sysml")
    for line in ("%engine check", "%events alphabet Cold,Warm max=3", "%check-property heater::oneCycle"):
        execute(session, line)
    report = execute(session, "%state Heater")
    assert isinstance(report, CheckReport)
    number = report.checks[0].result.violations[0].witness
    drawn = execute(session, "%show Heater")
    # the witness heats on Cold, cools when its time is up, and heats again: the second cycle it forbids
    assert drawn.text.splitlines()[1:] == [
        "  idle → heat  (1, 3 · Cold)", "  heat → idle  (Warm)", "  heat → idle  (2 · after)",
        f"witness {number}: 1 idle -> heat (accept Cold), 2 heat -> idle (time), 3 idle -> heat (accept Cold)"
        " ✗ property: heater::oneCycle"]
    heat = re.search(r"^    (s\d+) : heat$", drawn.markdown, re.M)
    assert heat is not None and f"    class {heat.group(1)} failing" in drawn.markdown
