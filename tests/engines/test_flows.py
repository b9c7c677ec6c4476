"""Flows and bindings between performances' parameters: `flow read.value to conv.input;` (and `flow
from`, named flows) streams what a typed usage's output is written to the next one's input; a
`succession flow` hands it over when its source ends and orders the two; `bind` and `flow` written
in a branch or loop body address that body's own nodes, every pass. Each model's answer is derived by
hand below and checked under run, explore and check."""

from __future__ import annotations

import pytest

import ir
from engines.check import check
from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program

# A sensor -> converter -> logger chain: (20 + 1) * 2 = 42 logged into 100; with succession flows only,
# (4 + 1) * 2 = 10; a producer streaming 1 then 2 to a consumer forked beside it, which reads once.
CHAIN = """package chain {
    private import ScalarValues::*;
    action def Sample {
        in base : Integer;
        out value : Integer;
        first start;
        then action r assign value := base + 1;
        then done;
    }
    action def Convert { in input : Integer; out output : Integer; assign output := input * 2; }
    action def Log { in line : Integer; inout total : Integer; assign total := total + line; }
    action Monitor {
        attribute logged : Integer := 100;
        first start;
        then action read : Sample { in base = 20; }
        then action conv : Convert;
        then action log : Log { inout total = logged; }
        then done;
        flow read.value to conv.input;
        flow from conv.output to log.line;
    }
    action Ordered {
        attribute logged : Integer := 0;
        action read : Sample { in base = 4; }
        action conv : Convert;
        action log : Log { inout total = logged; }
        first start then read;
        succession flow read.value to conv.input;
        succession flow fwd from conv.output to log.line;
        first log then done;
    }
    action def Produce {
        out value : Integer;
        first start;
        then action one assign value := 1;
        then action two assign value := 2;
        then done;
    }
    action Watch {
        attribute seen : Integer := -1;
        first start;
        then fork f;
            then producer;
            then consumer;
        action producer : Produce;
        action consumer { in value : Integer := 0; assign seen := value; }
        join j;
        succession producer then j;
        succession consumer then j;
        then done;
        flow producer.value to consumer.value;
    }
}
"""

# A billing loop: each pass binds the seats, prices them at 10 and flows the cost into the total
# (10 + 20 + 30); an alarm block binds a pin to a feature both ways (73 - 50 = 23), and raced by a
# heater adding 10 first (83 - 50 = 33).
BLOCKS = """package billing {
    private import ScalarValues::*;
    action def Price {
        in seats : Integer;
        in rate : Integer;
        out cost : Integer;
        assign cost := seats * rate;
    }
    action Invoice {
        attribute total : Integer := 0;
        first start;
        then action bill {
            for n in (1, 2, 3) {
                bind price.seats = n;
                action price : Price { in rate = 10; }
                flow price.cost to add.amount;
                action add { in amount : Integer; assign total := total + amount; }
            }
        }
        then done;
    }
    action Alarm {
        attribute temp : Integer := 73;
        attribute lastCode : Integer := 0;
        first start;
        then action watch {
            if temp > 50 {
                bind alarm.level = temp;
                action alarm { in level : Integer; out code : Integer; assign code := level - 50; }
                bind alarm.code = lastCode;
            }
        }
        then done;
    }
    action AlarmRace {
        attribute temp : Integer := 73;
        attribute lastCode : Integer := 0;
        first start;
        then fork f;
            then heat;
            then watch;
        action heat { assign temp := temp + 10; }
        action watch {
            if temp > 50 {
                bind alarm.level = temp;
                action alarm { in level : Integer; out code : Integer; assign code := level - 50; }
                bind alarm.code = lastCode;
            }
        }
        join j;
        succession heat then j;
        succession watch then j;
        then done;
    }
}
"""


def _program(text: str) -> Program:
    return Program(ir.resolve([ir.parse(text, "flows.sysml")]))


def _all_ways(text: str, action: str, feature: str) -> tuple[str, set[str], set[str], set[str]]:
    """The default run's value of `feature`, and the values explore and check (reduced and not) reach."""
    run = _program(text).start_action(action)
    run.run_to_end()
    explored = explore(_program(text), action, Bounds(runs=5_000))
    assert explored.verdict is not Verdict.INCOMPLETE
    checked = [check(_program(text), action, Bounds(depth=500, states=20_000), diverge=(feature,), reduce=r)
               for r in (True, False)]
    return (run.outputs()[feature], {dict(o.values)[feature] for o in explored.outcomes},
            {dict(o.values)[feature] for o in checked[0].outcomes}, {dict(o.values)[feature] for o in checked[1].outcomes})


@pytest.mark.parametrize(("text", "action", "feature", "values"), [
    (CHAIN, "Monitor", "logged", {"142"}),
    (CHAIN, "Ordered", "logged", {"10"}),
    (CHAIN, "Watch", "seen", {"0", "1", "2"}),  # before the first write, between, after both
    (BLOCKS, "Invoice", "total", {"60"}),
    (BLOCKS, "Alarm", "lastCode", {"23"}),
    (BLOCKS, "AlarmRace", "lastCode", {"23", "33"}),
])
def test_flows_and_bindings_carry_the_values_the_semantics_gives(text: str, action: str, feature: str,
                                                                 values: set[str]) -> None:
    ran, explored, reduced, unreduced = _all_ways(text, action, feature)
    assert ran in values
    assert explored == reduced == unreduced == values


def test_a_flow_carries_between_typed_usages_pins() -> None:
    run = _program(CHAIN).start_action("Monitor")
    run.run_to_end()
    out = run.outputs()
    assert (out["read.value"], out["conv.input"], out["conv.output"], out["log.line"]) == ("21", "21", "42", "42")


def test_a_succession_flow_orders_its_ends() -> None:
    # no `then` orders read, conv and log: only the succession flows do
    run = _program(CHAIN).start_action("Ordered")
    lines = run.run_to_end()
    root = ["step 1: token 1@read", "step 2: token 1@conv", "step 3: token 1@log", "step 4: token 1@done"]
    assert [line for line in lines if line in root] == root  # the performed actions number their own steps


def test_a_streaming_flow_reaches_a_consumer_under_way() -> None:
    result = explore(_program(CHAIN), "Watch", Bounds(runs=5_000))
    by_seen = {dict(o.values)["seen"]: dict(o.values) for o in result.outcomes}
    assert by_seen["1"]["consumer.value"] == "1"  # the first write reached the running consumer


def test_succession_flow_syntax_forms_parse() -> None:
    doc = ir.parse("""package p { action a {
        flow x.o to y.i;
        flow from x.o to y.i;
        flow f : Flow of Integer from x.o to y.i;
        succession flow x.o to y.i;
        succession flow g from x.o to y.i { }
    } }""", "p.sysml")
    flows = doc.members[0].members[0].members  # type: ignore[attr-defined]
    assert [(f.name, f.source, f.target, f.succession) for f in flows] == [
        (None, "x.o", "y.i", False), (None, "x.o", "y.i", False), ("f", "x.o", "y.i", False),
        (None, "x.o", "y.i", True), ("g", "x.o", "y.i", True)]
