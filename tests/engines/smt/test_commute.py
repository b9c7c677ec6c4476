"""Moves that commute, read off the encoding (engines/smt/encode.Builder.independent): the outcome and
sensitivity queries hold such a pair to one order, which is sound only if every pair named truly
commutes. The pairs are derived here by hand; the outcome sets stay explore's."""

from __future__ import annotations

from engines.smt.answer import solve
from engines.smt.encode import Builder
from engines.smt.net import build
from tests.engines.smt.agree import SECONDS, smt_outcomes
from tests.engines.smt.models import program

# A station: two sensors write their own readings; two loggers both write the log (one adds, one
# doubles: the order decides it); a scaler divides by a factor no move writes, which may still be 0
# as far as the moves tell (the run's start gives it 4), so it may fail; a tally reads the first
# sensor's reading. Two counters add to one count (either order ends alike), two labellers append to
# one label (the order decides it), and two alarms both raise one flag.
STATION = """package st {
    private import ScalarValues::*;
    action def Station {
        attribute north : Integer := 0;
        attribute south : Integer := 0;
        attribute log : Integer := 1;
        attribute factor : Integer := 4;
        attribute scaled : Integer := 0;
        attribute seen : Integer := 0;
        attribute hits : Integer := 0;
        attribute label : String := "";
        attribute raised : Boolean := false;
        first start;
        then fork f;
        then readNorth;
        then readSouth;
        then addLog;
        then doubleLog;
        then scale;
        then tally;
        then countOne;
        then countTwo;
        then tagA;
        then tagB;
        then alarmA;
        then alarmB;
        action readNorth { assign north := north + 3; }
        action readSouth { assign south := south + 5; }
        action addLog { assign log := log + 1; }
        action doubleLog { assign log := log * 2; }
        action scale { assign scaled := 12 / factor; }
        action tally { assign seen := north; }
        action countOne { assign hits := hits + 1; }
        action countTwo { assign hits := hits + 2; }
        action tagA { assign label := label + "a"; }
        action tagB { assign label := label + "b"; }
        action alarmA { assign raised := true; }
        action alarmB { assign raised := true; }
        join j;
        succession readNorth then j;
        succession readSouth then j;
        succession addLog then j;
        succession doubleLog then j;
        succession scale then j;
        succession tally then j;
        succession countOne then j;
        succession countTwo then j;
        succession tagA then j;
        succession tagB then j;
        succession alarmA then j;
        succession alarmB then j;
        succession j then done;
    }
}"""


def _commuting() -> set[frozenset[str]]:
    prog = program(STATION)
    net = build(prog, prog.action("st::Station"))
    builder = Builder(net, 4)
    names = [net.places[ch.place].node.name if not ch.clock else "clock" for ch in builder.choices]
    valued = {f.index for f in net.features if f.owner is None}
    return {frozenset((names[a], names[b])) for a, b in builder.independent(builder.state(0), valued)}


def test_moves_on_features_of_their_own_commute() -> None:
    pairs = _commuting()
    assert frozenset(("readNorth", "readSouth")) in pairs
    assert frozenset(("readSouth", "addLog")) in pairs
    assert frozenset(("readSouth", "tally")) in pairs


def test_moves_that_only_add_to_one_feature_commute() -> None:
    pairs = _commuting()
    assert frozenset(("countOne", "countTwo")) in pairs  # 0 + 1 + 2 either way
    assert frozenset(("alarmA", "alarmB")) in pairs  # raised either way


def test_moves_writing_one_feature_or_reading_what_another_writes_do_not() -> None:
    pairs = _commuting()
    assert frozenset(("addLog", "doubleLog")) not in pairs  # (1 + 1) * 2 = 4, 1 * 2 + 1 = 3
    assert frozenset(("readNorth", "tally")) not in pairs  # seen is 0 or 3
    assert frozenset(("tagA", "tagB")) not in pairs  # "ab" or "ba": appending is no addition


def test_a_move_that_may_fail_commutes_with_none() -> None:
    pairs = _commuting()
    assert not any("scale" in pair for pair in pairs)  # a failure would end the run before the other
    assert frozenset(("j", "readNorth")) not in pairs  # the join's arrivals: one counter


# The end-to-end check, on the station's orders that matter (a smaller one, for the solver's time):
# north 3, hits 3 on every schedule; log (1 + 1) * 2 = 4 or 1 * 2 + 1 = 3 by the loggers' order; seen 0
# or 3 by the tally's place against the north sensor's: four endings, each pair of the two orders.
SMALL = """package st {
    private import ScalarValues::*;
    action def Desk {
        attribute north : Integer := 0;
        attribute log : Integer := 1;
        attribute seen : Integer := 0;
        attribute hits : Integer := 0;
        first start;
        then fork f;
        then readNorth;
        then addLog;
        then doubleLog;
        then tally;
        then countOne;
        then countTwo;
        action readNorth { assign north := north + 3; }
        action addLog { assign log := log + 1; }
        action doubleLog { assign log := log * 2; }
        action tally { assign seen := north; }
        action countOne { assign hits := hits + 1; }
        action countTwo { assign hits := hits + 2; }
        join j;
        succession readNorth then j;
        succession addLog then j;
        succession doubleLog then j;
        succession tally then j;
        succession countOne then j;
        succession countTwo then j;
        succession j then done;
    }
}"""


def test_outcomes_and_sensitivity_over_the_canonical_order_are_the_derived_ones() -> None:
    prog = program(SMALL)
    expected = sorted(((tuple(sorted({"hits": "3", "log": log, "north": "3", "seen": seen}.items())), None)
                       for log in ("3", "4") for seen in ("0", "3")), key=repr)
    assert smt_outcomes(prog, "st::Desk") == expected
    answer = solve(prog, "st::Desk", "sensitive", diverge=("log", "seen", "north", "hits"), solver_seconds=SECONDS)
    assert answer.verdict == "sensitive", answer.reason
    assert {name for name, _ in answer.divergent} == {"log", "seen"}
