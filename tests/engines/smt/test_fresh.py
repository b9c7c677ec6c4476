"""Fresh action models (tests/engines/smt/fresh/*.sysml), each outcome set derived by hand from the
semantics (README "What a run is" and "The action language", and "Proving with the smt engine"), then
asked of both engines: smt (every witness replayed, agree.smt_outcomes) and explore.

The derivation of each model is in the comment above its expected value. Rules used throughout:
- one move is one performance: an assignment reads and writes in one move; a body's features are its
  start shot, taken before its statements; a body's direct statements with no succession between them
  are unordered; an `if` reads its guard as one move and runs its branch (in the order written) after;
  a loop reads its condition as one move and runs the pass's statements (in order) after it.
- a performed action copies its bound / same-named inputs in at its start and its outputs back at its
  end; its parameters are reported under its path (`accrue.balance`).
- an accept takes the oldest message addressed to it (or to no one) that its type admits.
- time passes only where no move is enabled, to the earliest wake still to come.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program
from engines.smt.answer import solve
from engines.witness import replay_run, unreproduced
from tests.engines.smt.agree import SECONDS, explore_outcomes, smt_outcomes
from tests.engines.smt.models import program

FRESH = Path(__file__).parent / "fresh"
CONTROL = Path(__file__).resolve().parents[1] / "runtime" / "control"  # models answered there


def model(name: str) -> Program:
    return program((FRESH / f"{name}.sysml").read_text())


def done(*rows: dict[str, str]) -> list:
    """Completed outcomes, in agree.py's shape and order."""
    return sorted(((tuple(sorted(r.items())), None) for r in rows), key=repr)


def big_explore(prog: Program, subject: str) -> list:
    """explore with a larger budget (the Filter model has more than 4,096 linearizations)."""
    explored = explore(Program(prog.model), subject, Bounds(runs=100_000))
    assert explored.verdict is Verdict.COMPLETE
    return sorted(((o.values, o.error) for o in explored.outcomes), key=repr)


def replayed(prog: Program, subject: str, answer) -> None:
    for witness in answer.witnesses:
        assert unreproduced(prog, replay_run(prog, subject, witness.text()), witness) is None


def holds(prog: Program, subject: str, prop: str, inputs: tuple[str, ...] = ()):
    """smt asked whether the property holds on every schedule (and every value of the inputs released)."""
    return solve(prog, subject, "holds", properties=(prop,), inputs=inputs, diverge=(), solver_seconds=SECONDS)


def breaking_input(prog: Program, subject: str, answer) -> tuple[str, str]:
    """The one input of a violation's witness, once the witness has replayed."""
    assert answer.verdict == "violated", answer.reason
    replayed(prog, subject, answer)
    ((name, value),) = answer.witnesses[0].inputs
    return name, value


# ---------------------------------------------------------------------------------------------------
# Completed outcome sets. Derivations:
#
# bank::Transfer (a=100, b=50). t1: start shot av := a, then `a := av - 30` and `b := b + 30`
# unordered; t2: `a := a - 20`, `b := b + 20`, each atomic. b: two atomic adds, 100 always.
# a: t2's debit before t1's start shot: av = 80, a = 50; between the start shot and t1's write:
# av = 100, t1's write 70 overwrites t2's 80 (lost update): a = 70; after t1's write: av = 100,
# a = 70 - 20 = 50. Three endings (av 80 / 100).
#
# bank::Account (balance=100). accrue : Accrue copies balance in at its start, adds rate 5 in three
# `for` passes, writes back at its end; charge subtracts 10 atomically (fee := 10). charge before
# accrue starts: accrue reads 90, ends 105 (accrue.balance 105, balance 105); charge between start and
# end: charge writes 90, then accrue writes back 115 (lost debit); charge after accrue ends: 115 - 10
# = 105 with accrue.balance 115.
#
# booking::CheckThenAct (seats=1). Each clerk's `if seats > 0` is a move; its branch (decrement,
# then sold + 1) runs after it. Both guards before either decrement: seats -1, sold 2; otherwise the
# second guard reads 0: seats 0, sold 1.
#
# retry::RetryFixed (failUntil=1). attempt's `tries := tries + 1` and `if tries > failUntil` are
# unordered. Round 1: tries 0 -> 1, the guard reads 0 or 1: not > 1, ok false, loop. Round 2: the
# guard reads 2 (increment first, ok true -> done with tries 2) or 1 (ok false, loop). Round 3: the
# guard reads 2 or 3, both > 1: ok true, tries 3. gaveUp never set.
#
# pipeline::Line (raw=7). parse: value = 70 (written back), check: 70 > 50 so valid true, store
# (bound v = value, ok = valid, s = stored): keep, stored = 70.
#
# msgs::Shake. client sends 7 to server, then waits for a Boolean; server takes 7, then (unordered)
# served := 7 and sends true to waitAck; note sees a = true: acked 1. One ending.
#
# plant::Regulate (tank.level = 10). pump: a while raising the level to 12 (guard move, increment
# move); valve subtracts 5 atomically at any point. Valve before the loop's last guard: the level is
# then below 12 and the loop raises it back to 12; valve after the guard that read 12 (loop over):
# 7. guard: 7 < 8 sets tank.alarm. The part is touched, so both its features are reported.
#
# crew::Crew. worker[3] adds 1 per performance (atomic): count 3, then finish * 10 = 30; monitor
# copies count at any point: snap 0, 1, 2 or 3.
#
# text::Door. opener writes "open"; logger appends doorState + ";" to "" atomically, before or after:
# log "closed;" (alert: doorState == "open" and log == "closed;") or "open;" (no alert).
#
# term::Monitor. heater adds 15 twice (temp 20 -> 35 -> 50, 50 at the end always). monitor's while
# passes: `checks + 1` and `if temp > 40 { terminate; }` in either order (a pass's statements are
# unordered), the terminate ending monitor's performance (the node goes on to j). temp > 40 only once
# both adds are done: the first pass p whose guard reads 50 ends the loop at checks p (its increment
# first) or p - 1 (its guard first), p = 1, 2; no pass seeing 50: checks 2 (`while checks < 2`). So 0,
# 1 or 2.
#
# term::Shutdown. line then line2 add 1 each (produced 2 at the join); stop's `if produced >= 1`
# guard reads 0 (nothing) or >= 1 (stopped := true, then terminate ends stop, which goes on). after:
# produced 200 in both.
#
# oven::Oven. heat: 20 -> 50 -> 80, then ready arms a wake at 0 + 3 s; timer waits for instant 2.
# No move is enabled until time passes: to 2 first (check: served false -> late true), then to 3
# (serve). late true, served true, temp 80.
# oven::Tie: ready waits 2 s, so both wake at instant 2 and either goes first: late true or false.
#
# probes2::Addressed. tx1 sends 1 to rxB, then tx2 sends 2 to no one. rxA can take only 2; rxB takes
# the oldest addressed to it or no one, and 1 (sent first) is on the bus before 2 exists: b 1, a 2.
# probes2::Late. wa wakes at 7; its gate `accept at 6` is then not later than now: goes on at once,
# writes 1 at 7; wb writes 2 at 8: log 12.
# probes2::When. fill raises level 0, 2, 4, 6 (a guard move and an increment move a pass); watch's
# `accept when level > 3` fires once level is 4 or later, and note reads level afterwards: 4 or 6.
# probes2::Loop. Three `perform ... Inc` in a for body, acc bound inout to total: 0+1+2+3 = 6; the
# last performance's parameters are reported (acc 6, amount 3).
# probes2::Words. "he" + "llo" sent, accepted as w, heard = w + "!".
#
# num::Rem. a = -7: `%` truncates toward zero: -7 % 3 = -1; -7 / 2 = -3.5 (Rational, exact).
# num::Guarded. d = 0: `and` / `or` are conditional, so 10 / d is never evaluated: big false,
# strict = (0 == 0) = true.
#
# probes::Cut. killer sets stopped, then a terminate at the action's level ends the whole action
# wherever p : Step stands: not started (no p.* reported), started (p.level 0 copied in), after one or
# two of its steps (p.level 1, 2, not written back), or ended (level 2 written back). stopped true.
# probes::Chain. t = 5: `else if t > 3`: "mid". probes::Until: two passes (n 0, 1 at their start,
# n 2 after); in each, `n := n + 1` is unordered with the for loop's two additions, so a pass adds 3n
# (after both), 3n + 2 (between) or 3n + 3 (before both): 3 plus two of {0, 2, 3}: 3, 5, 6, 7, 8, 9. probes::Equal: 8 / 2 is 4 (shown 4.0, a Rational), == 4 by value; 1/3 + 1/6 = 1/2.
EXPECTED = {
    ("bank", "bank::Transfer"): done({"a": "50", "b": "100", "t1.av": "100"},
                                     {"a": "50", "b": "100", "t1.av": "80"},
                                     {"a": "70", "b": "100", "t1.av": "100"}),
    ("bank", "bank::Account"): done(
        {"accrue.balance": "105", "accrue.rate": "5", "balance": "105", "fee": "10"},
        {"accrue.balance": "115", "accrue.rate": "5", "balance": "115", "fee": "10"},
        {"accrue.balance": "115", "accrue.rate": "5", "balance": "105", "fee": "10"}),
    ("booking", "booking::CheckThenAct"): done({"seats": "0", "sold": "1"}, {"seats": "-1", "sold": "2"}),
    ("retry", "retry::RetryFixed"): done(
        {"failUntil": "1", "gaveUp": "false", "ok": "true", "tries": "2"},
        {"failUntil": "1", "gaveUp": "false", "ok": "true", "tries": "3"}),
    ("pipeline", "pipeline::Line"): done({
        "raw": "7", "value": "70", "valid": "true", "stored": "70",
        "parse.raw": "7", "parse.value": "70", "check.value": "70", "check.valid": "true",
        "store.v": "70", "store.ok": "true", "store.s": "70"}),
    ("messages", "msgs::Shake"): done({"acked": "1", "served": "7", "server.req": "7", "waitAck.a": "true"}),
    ("plant", "plant::Regulate"): done({"tank.level": "12", "tank.alarm": "false"},
                                       {"tank.level": "7", "tank.alarm": "true"}),
    ("crew", "crew::Crew"): done(*({"count": "30", "snap": s} for s in ("0", "1", "2", "3"))),
    ("text", "text::Door"): done({"doorState": '"open"', "log": '"closed;"', "alert": "true"},
                                 {"doorState": '"open"', "log": '"open;"', "alert": "false"}),
    ("term", "term::Monitor"): done(*({"temp": "50", "checks": c} for c in ("0", "1", "2"))),
    ("term", "term::Shutdown"): done({"produced": "200", "stopped": "true"},
                                     {"produced": "200", "stopped": "false"}),
    ("timers", "oven::Oven"): done({"temp": "80", "served": "true", "late": "true"}),
    ("timers", "oven::Tie"): done({"temp": "80", "served": "true", "late": "true"},
                                  {"temp": "80", "served": "true", "late": "false"}),
    ("probes2", "probes2::Addressed"): done({"a": "2", "b": "1", "rxA.x": "2", "rxB.y": "1"}),
    ("probes2", "probes2::Late"): done({"log": "12"}),
    ("probes2", "probes2::When"): done({"level": "6", "seen": "4"}, {"level": "6", "seen": "6"}),
    ("probes2", "probes2::Loop"): done({"total": "6", "sum.s.acc": "6", "sum.s.amount": "3"}),
    ("probes2", "probes2::Words"): done({"heard": '"hello!"', "rx.w": '"hello"'}),
    ("numeric", "num::Rem"): done({"a": "-7", "r": "-1", "q": "-3.5"}),
    ("numeric", "num::Guarded"): done({"d": "0", "big": "false", "strict": "true"}),
    ("probes", "probes::Cut"): done(
        {"level": "0", "stopped": "true"},
        *({"level": "0", "p.level": lv, "p.scratch": "0", "stopped": "true"} for lv in ("0", "1", "2")),
        {"level": "2", "p.level": "2", "p.scratch": "0", "stopped": "true"}),
    ("probes", "probes::Chain"): done({"t": "5", "grade": '"mid"'}),
    ("probes", "probes::Until"): done(*({"n": "2", "sum": str(s)} for s in (3, 5, 6, 7, 8, 9))),
    ("probes", "probes::Equal"): done({"q": "4.0", "r": "0.5", "same": "true"}),
    # crowds: steps of multiplicity whose body is a flow of its own (one copy per performance); the
    # step's features are reported from the performance begun last, as the interpreter's pin holds it.
    # Clerks (seats 5, clerk[2] with a start shot `seen := seats`, then `seats := seen - 1`): both begin
    # before either books, seen 5 and 5, seats 4; else the second begins after the first booked: seen
    # 4, seats 3.
    ("crowds", "crowds::Clerks"): done({"seats": "3", "clerk.seen": "4"}, {"seats": "4", "clerk.seen": "5"}),
    # Loader (load 0, stage[3] each `if load < 2` as a move, then `load := load + 1`): a stage skips
    # only after two increments, so load ends 2, or 3 where two guards read 1; tally after all three.
    ("crowds", "crowds::Loader"): done({"load": "2", "done_": "1"}, {"load": "3", "done_": "1"}),
    # Shift (count 0, work[2] beside a reset to 0): both begin at 0, bumps write 10 (reset last: 0);
    # one bumps, the other begins at 10 and writes 20 (reset last: 0); the reset between the first bump
    # and the second begin: base 0, count 10. So (count, work.base): (0, 0), (10, 0), (0, 10), (20, 10).
    ("crowds", "crowds::Shift"): done({"count": "0", "work.base": "0"}, {"count": "10", "work.base": "0"},
                                      {"count": "0", "work.base": "10"}, {"count": "20", "work.base": "10"}),
    # flows: a flow's target takes, as it starts, what its source's pin holds (written, or ended with);
    # each source here ends before its target begins. Line (raw 7): read.v = 8 reaches scale.x; scale
    # reads gain 2 or (the tuner first) 3: y 16 or 24, handed to store.z and stored.
    # powers (x = 3): the square and cube read x before c zeroes it (9, 27) or after (0, 0); d's x ** -1
    # reads 3 (1/3) or, after c, 0: a run error (0 raised to a negative power), inv left 0.0.
    ("powers", "pw::Powers"): sorted(
        ((tuple(sorted({"cube": cube, "inv": inv, "sq": sq, "x": "0"}.items())),
          None if inv == "1/3" else "division by zero: 0 raised to a negative power")
         for cube in ("0", "27") for sq in ("0", "9") for inv in ("1/3", "0.0")), key=repr),
    ("flows", "flows::Line"): done(*({"gain": "3", "raw": "7", "read.v": "8", "scale.x": "8", "scale.y": y,
                                      "store.z": y, "stored": y} for y in ("16", "24"))),
    # Handover: the succession flow hands 4 to report (total 4); probe never writes p, so audit keeps its
    # own q = 100: total 104; flip sets skip false on every schedule.
    ("flows", "flows::Handover"): done({"audit.q": "100", "measure.m": "4", "probe.p": "<unset>", "report.n": "4",
                                        "skip": "false", "total": "104"}),
    # Tank (level 10): adjust reads level in as it starts and writes l + 5 back as it ends; drain (-3)
    # before its start: 7 -> 12; between: 7 overwritten by 15; after: 15 - 3 = 12 with adjust.l 15.
    ("flows", "flows::Tank"): done({"adjust.l": "12", "level": "12"}, {"adjust.l": "15", "level": "15"},
                                   {"adjust.l": "15", "level": "12"}),
    # Fuse: both pins given after the join (x 2, y 3: y's own x + 1 not taken): r = 23.
    # Relay: a's v = base + 1 reads 6 or (raise first) 7; b starts with it: res 14 or 16.
    ("flows", "flows::Relay"): done(*({"a.v": v, "b.w": v, "base": "7", "res": r} for v, r in (("7", "14"), ("8", "16")))),
    ("untyped", "ut::Mix"): done(*({"a.k": k, "base": "10", "big": "true", "half": "2.0", "next": "5", "out1": o}
                                   for k, o in (("12", "17"), ("30", "35")))),
    # library: err = |setpoint - level| reads setpoint 40 (15) or, retargeted first, 120 (65); drive,
    # after measure, clamps setpoint - level to 0..100: 0 (40) or 65 (120). Retarget before measure: (65,
    # 65); between measure and drive: (15, 65); after drive: (15, 0).
    ("library", "lib::Clamp"): done(*({"demand": d, "err": e, "level": "55", "setpoint": "120"}
                                      for e, d in (("15", "0"), ("15", "65"), ("65", "65")))),
    ("flows", "flows::Fuse"): done({"fuser.x": "2", "fuser.y": "3", "left.v": "2", "r": "23", "right.v": "3"}),
    # Calibrate: src ends with its own v = 3, delivered to the sink after two passes: got 30.
    ("flows", "flows::Calibrate"): done({"got": "30", "i": "2", "sink.w": "3", "src.v": "3"}),
    # Station: run copies raw in as it starts (1, or 10 after bump): offset o = raw + 2 flows to triple,
    # scaled = 3 * (raw + 2) = 9 or 36, written back as run ends; raw ends 10 either way.
    ("flows", "flows::Station"): done(*({"raw": "10", "run.offset.o": o, "run.raw": r, "run.scaled": sc,
                                         "run.triple.p": o, "scaled": sc}
                                        for r, o, sc in (("1", "3", "9"), ("10", "12", "36")))),
}


# Loops whose every schedule ends within 20 moves, asked at k = 20 rather than the default 40 so the
# query is smaller (a schedule still going at k would make the answer incomplete, and the test fail).
DEPTH = {"term::Monitor": 20, "probes::Until": 20}


@pytest.mark.parametrize(("file", "subject"), sorted(EXPECTED), ids=[s for _, s in sorted(EXPECTED)])
def test_outcomes_match_the_derivation(file: str, subject: str) -> None:
    prog = model(file)
    assert smt_outcomes(prog, subject, DEPTH.get(subject)) == EXPECTED[(file, subject)]
    assert explore_outcomes(prog, subject) == EXPECTED[(file, subject)]


# Outcomes with run errors.
#
# num::Split (total 7). add makes it 8 atomically; split assigns total / 2 to the Integer share:
# before add, 7 / 2 = 7/2 is a Rational: TypeMismatch (share 0, total 7; the run stops there);
# after add, 4.
def test_a_rational_quotient_into_an_integer_fails_on_one_schedule() -> None:
    prog = model("numeric")
    error = "assignment to share: type mismatch: share is an Integer and 3.5 is a Rational"
    expected = sorted([((("share", "0"), ("total", "7")), error), ((("share", "4"), ("total", "8")), None)], key=repr)
    assert smt_outcomes(prog, "num::Split") == expected
    assert explore_outcomes(prog, "num::Split") == expected


# num::Eager. `&` is not conditional: 10 / 0 is evaluated: DivisionByZero, big still false.
def test_a_non_conditional_and_divides_by_zero() -> None:
    prog = model("numeric")
    expected = [((("big", "false"), ("d", "0")), "division by zero")]
    assert smt_outcomes(prog, "num::Eager") == expected
    assert explore_outcomes(prog, "num::Eager") == expected


# msgs::Filter. tx sends 1.5, 4 and true in any order (unordered statements). rxBool takes true;
# rxInt takes only 4 (1.5 is no Integer); rxReal takes the oldest number (Real admits 4). If 4 is the
# oldest number when rxReal moves (1.5 not sent yet, or sent after 4) and rxInt has not taken it, rxReal
# takes 4 and rxInt waits forever: a deadlock with gotR 4 and gotB true (1.5 left on the bus).
# Otherwise gotN 4, gotR 1.5, gotB true.
def test_a_message_filter_by_type() -> None:
    prog = model("messages")
    endings = smt_outcomes(prog, "msgs::Filter")
    assert endings == big_explore(prog, "msgs::Filter")
    completed = [dict(v) for v, e in endings if e is None]
    assert completed == [{"gotB": "true", "gotN": "4", "gotR": "1.5", "rxBool.b": "true", "rxInt.n": "4",
                          "rxReal.r": "1.5"}]
    stuck = [(dict(v), e) for v, e in endings if e is not None]
    assert len(stuck) == 1
    values, error = stuck[0]
    assert values == {"gotB": "true", "gotN": "0", "gotR": "4.0", "rxBool.b": "true", "rxReal.r": "4"}
    assert error.startswith("deadlock") and "rxInt" in error


# num::Nat (stock : Natural = 1). Check-then-act twice: both guards read 1, then the second decrement
# writes -1 into a Natural: TypeMismatch; otherwise stock 0. Two distinct endings (values, error);
# the failure may happen in x's or y's assignment, and the outcome names neither.
def test_a_natural_overdrawn_is_a_type_mismatch() -> None:
    prog = model("numeric")
    error = "assignment to stock: type mismatch: stock is a Natural and -1 is an Integer"
    expected = sorted([((("stock", "0"),), None), ((("stock", "0"),), error)], key=repr)
    assert smt_outcomes(prog, "num::Nat") == expected
    assert explore_outcomes(prog, "num::Nat") == expected


# smt listed the TypeMismatch ending twice, once per failing node (its states tell the two error sites
# apart, the reported values and error do not); fixed in engines/smt/queries.py `outcomes`.
def test_smt_lists_each_outcome_once() -> None:
    prog = model("numeric")
    assert smt_outcomes(prog, "num::Nat") == explore_outcomes(prog, "num::Nat")


# ---------------------------------------------------------------------------------------------------
# Properties (holds), with free inputs where the model declares them.


# retry::Retry, failUntil free. A round r may fail iff some order of its two unordered statements
# leaves the guard false: the guard reads r - 1 or r, so failure is possible iff r - 1 <= failUntil.
# Three failed rounds (gaveUp) are possible iff failUntil >= 2. tries never passes 3 (the decision
# leaves the loop at 3): AtMostThree proved for every input; NeverGaveUp violated, witness >= 2;
# assuming failUntil <= 1 proved; assuming failUntil == 2 still violated (every round's guard first).
def test_retry_bound_is_proved_for_every_input() -> None:
    answer = solve(model("retry"), "retry::Retry", "holds", properties=("retry::AtMostThree",),
                   inputs=("failUntil",), diverge=(), solver_seconds=SECONDS)
    assert answer.verdict == "proved"


# As the check engine does, a property's question compares the features between schedules too (every
# attribute, where none is named): the property holds, and tries still ends 2 or 3 for one input (with
# failUntil 1: the second round's guard reads 1 or 2), so the answer is sensitive, the proof said beside.
def test_a_property_that_holds_does_not_hide_a_sensitive_feature() -> None:
    answer = solve(model("retry"), "retry::Retry", "holds", properties=("retry::AtMostThree",),
                   inputs=("failUntil",), diverge=("tries",), solver_seconds=SECONDS)
    assert answer.verdict == "sensitive", answer.reason
    assert "the properties: proved" in answer.notes
    ((feature, values),) = answer.divergent
    assert feature == "tries" and len({v for v, _ in values}) == 2
    prog = model("retry")
    for witness in answer.witnesses:
        assert unreproduced(prog, replay_run(prog, "retry::Retry", witness.text()), witness) is None


def test_giving_up_needs_a_large_enough_input() -> None:
    prog = model("retry")
    answer = solve(prog, "retry::Retry", "holds", properties=("retry::NeverGaveUp",), inputs=("failUntil",),
                   solver_seconds=SECONDS)
    assert answer.verdict == "violated"
    witness = answer.witnesses[0]  # the violation's (the sensitivity's of tries follow it)
    ((name, value),) = witness.inputs
    assert name == "failUntil" and int(value) >= 2
    replayed(prog, "retry::Retry", answer)
    reliable = solve(prog, "retry::Retry", "holds", properties=("retry::NeverGaveUp",), inputs=("failUntil",),
                     assumptions=("retry::Reliable",), diverge=(), solver_seconds=SECONDS)
    assert reliable.verdict == "proved"
    edge = solve(prog, "retry::Retry", "holds", properties=("retry::NeverGaveUp",), inputs=("failUntil",),
                 assumptions=("retry::Exactly2",), solver_seconds=SECONDS)
    assert edge.verdict == "violated"
    assert edge.witnesses[0].inputs == (("failUntil", "2"),)
    replayed(prog, "retry::Retry", edge)


# pipeline::OpenLine, raw free: stored = raw * 10 when raw * 10 > 50, else 0 (and -1 before store
# ends). Capped (stored <= 100) breaks iff raw * 10 > 100, raw >= 11.
def test_pipeline_cap_breaks_only_for_large_raw() -> None:
    prog = model("pipeline")
    answer = solve(prog, "pipeline::OpenLine", "holds", properties=("pipeline::Capped",), inputs=("raw",),
                   solver_seconds=SECONDS)
    assert answer.verdict == "violated"
    ((name, value),) = answer.witnesses[0].inputs
    assert name == "raw" and int(value) >= 11
    replayed(prog, "pipeline::OpenLine", answer)


# z3's search depends on the terms its context already holds: in one context shared by a session's
# questions, OpenLine's witness was raw = 100 asked first and raw = 11 asked again after pw::Powers (and
# pw::Square's BelowHundred, violated in 0.1 s asked first, was undecided at its timeout asked after
# OpenLine, the bound stated on magnitudes as it is now).
# Each question has a context of its own, so it answers alike whatever was asked, or made, before it:
# here another question, then terms left in z3's default context (as a question made them before).
def test_a_question_answers_alike_whatever_was_asked_before() -> None:
    import z3

    def capped() -> list[str]:
        answer = solve(model("pipeline"), "pipeline::OpenLine", "holds", properties=("pipeline::Capped",),
                       inputs=("raw",), solver_seconds=SECONDS)
        assert answer.verdict == "violated", answer.reason
        return [witness.text() for witness in answer.witnesses]

    first = capped()
    assert solve(model("powers"), "pw::Powers", "outcomes", solver_seconds=SECONDS).verdict == "complete"
    assert capped() == first
    left = [z3.Int(f"left{i}") for i in range(100)]
    assert capped() == first
    assert all(term.ctx is z3.main_ctx() for term in left)  # the default context is the one it was


# text::Console, cmd a free String: halted only when cmd == "stop" + "!" = "stop!".
def test_a_free_string_command_halts_only_as_stop_bang() -> None:
    prog = model("text")
    answer = solve(prog, "text::Console", "holds", properties=("text::NotHalted",), inputs=("cmd",),
                   solver_seconds=SECONDS)
    assert answer.verdict == "violated"
    assert answer.witnesses[0].inputs == (("cmd", '"stop!"'),)
    replayed(prog, "text::Console", answer)


# num::FreeRem, a free: r = a % 4 truncates toward zero, so r < 0 exactly for a negative a that 4
# does not divide (z3's own mod is never negative: the encoding must not use it unadjusted).
def test_truncating_remainder_is_negative_for_some_input() -> None:
    prog = model("numeric")
    answer = solve(prog, "num::FreeRem", "holds", properties=("num::NonNegRem",), inputs=("a",),
                   solver_seconds=SECONDS)
    assert answer.verdict == "violated"
    ((_, value),) = answer.witnesses[0].inputs
    assert int(value) < 0 and int(value) % 4 != 0
    replayed(prog, "num::FreeRem", answer)


# plant::Regulate: the lowest level is 5 (valve first, from 10); 6 is broken by that schedule.
def test_tank_floor_proved_and_a_higher_floor_broken() -> None:
    prog = model("plant")
    assert solve(prog, "plant::Regulate", "holds", properties=("plant::Floor",),
                 solver_seconds=SECONDS).verdict == "proved"
    broken = solve(prog, "plant::Regulate", "holds", properties=("plant::HighFloor",), solver_seconds=SECONDS)
    assert broken.verdict == "violated"
    replayed(prog, "plant::Regulate", broken)
    assert explore_outcomes(prog, "plant::Regulate")  # the model runs to the end under explore too


# booking::CheckThenAct: both guards before either decrement overbook (seats -1).
def test_check_then_act_overbooks() -> None:
    prog = model("booking")
    answer = solve(prog, "booking::CheckThenAct", "holds", properties=("booking::NoOverbook",),
                   solver_seconds=SECONDS)
    assert answer.verdict == "violated"
    replayed(prog, "booking::CheckThenAct", answer)


# ---------------------------------------------------------------------------------------------------
# Sensitivity (two schedules, both replayed).


# bank::Transfer: a ends 50 or 70 (sensitive); b ends 100 on every schedule (not sensitive).
def test_transfer_debit_is_sensitive_and_credit_is_not() -> None:
    prog = model("bank")
    a = solve(prog, "bank::Transfer", "sensitive", diverge=("a",), solver_seconds=SECONDS)
    assert a.verdict == "sensitive"
    ((_, values),) = a.divergent
    assert {v for v, _ in values} == {"50", "70"}
    replayed(prog, "bank::Transfer", a)
    b = solve(prog, "bank::Transfer", "sensitive", diverge=("b",), solver_seconds=SECONDS)
    assert b.verdict == "not sensitive"


# oven::Tie: two wakes at instant 2, either first: late sensitive; oven::Oven orders them by the
# clock (2 before 3): late is true on every schedule.
def test_a_timer_tie_is_sensitive_and_ordered_timers_are_not() -> None:
    prog = model("timers")
    tie = solve(prog, "oven::Tie", "sensitive", diverge=("late",), solver_seconds=SECONDS)
    assert tie.verdict == "sensitive"
    ((_, values),) = tie.divergent
    assert {v for v, _ in values} == {"false", "true"}
    replayed(prog, "oven::Tie", tie)
    ordered = solve(prog, "oven::Oven", "sensitive", diverge=("late",), solver_seconds=SECONDS)
    assert ordered.verdict == "not sensitive"


# tests/engines/runtime/control/unordered_bodies.sysml, answered there: a pass's statements unordered
# (Stage: total 3-6) and the statements after an accept after it (Worker: work 5). The solver gives the
# same sets. Dispatch declares a feature in a branch, taking its value as the branch starts (granted 0),
# and its log reads the grant before or after it is made: log 0 or 4 (the encoding refused the feature).
def test_a_pass_is_unordered_and_an_accept_keeps_its_place_for_the_solver_too() -> None:
    prog = program((CONTROL / "unordered_bodies.sysml").read_text(encoding="utf-8"))
    stage = smt_outcomes(prog, "bodies::Stage")
    assert stage == explore_outcomes(prog, "bodies::Stage")
    assert sorted(dict(v)["total"] for v, _ in stage) == ["3", "4", "5", "6"]
    worker = smt_outcomes(prog, "bodies::Worker")
    assert [dict(v)["work"] for v, e in worker if e is None] == ["5"] and len(worker) == 1
    dispatch = smt_outcomes(prog, "bodies::Dispatch")
    assert dispatch == explore_outcomes(prog, "bodies::Dispatch")
    assert sorted(dict(v)["log"] for v, _ in dispatch) == ["0", "4"]


# tests/engines/runtime/control/addressed_steps.sysml, answered there: messages sent to the desk step are
# taken by the accepts within it, in arrival order (the encoding took only those addressed to the accept).
def test_a_message_to_a_step_reaches_the_accepts_within_it_for_the_solver_too() -> None:
    prog = program((CONTROL / "addressed_steps.sysml").read_text(encoding="utf-8"))
    counter = smt_outcomes(prog, "addressed::Counter")
    assert counter == explore_outcomes(prog, "addressed::Counter")
    assert sorted(dict(v)["last"] for v, e in counter if e is None) == ["2", "3"] and len(counter) == 2


# fresh/this_context.sysml: `this.c` in an action no part performs is c (the chain was refused). Twice:
# c 2 on every schedule; Clerks: stock 0, or 1 where both read before either writes.
def test_this_of_a_free_action_is_its_own_context_for_the_solver() -> None:
    prog = program((FRESH / "this_context.sysml").read_text(encoding="utf-8"))
    twice = smt_outcomes(prog, "ctx::Twice")
    assert twice == explore_outcomes(prog, "ctx::Twice") and [dict(v)["c"] for v, _ in twice] == ["2"]
    clerks = smt_outcomes(prog, "ctx::Clerks")
    assert clerks == explore_outcomes(prog, "ctx::Clerks")
    assert sorted({dict(v)["stock"] for v, _ in clerks}) == ["0", "1"]


# fresh/literal_loops.sysml: a `for` over literals (the encoding took only ranges). Controller: boosts 2,
# log "b-e-b-". Race: the doubling before, between or after the adder's two passes: (1.0*2+0.5-1.5) = 1.0,
# ((1.0+0.5)*2-1.5) = 1.5, (1.0+0.5-1.5)*2 = 0.0. Rates: literals bound to an untyped feature: 12, 9 or 7.
def test_a_for_over_literals_for_the_solver() -> None:
    prog = program((FRESH / "literal_loops.sysml").read_text(encoding="utf-8"))
    controller = smt_outcomes(prog, "loops::Controller")
    assert controller == explore_outcomes(prog, "loops::Controller")
    assert [(dict(v)["boosts"], dict(v)["log"]) for v, _ in controller] == [("2", '"b-e-b-"')]
    race = smt_outcomes(prog, "loops::Race")
    assert race == explore_outcomes(prog, "loops::Race")
    assert sorted(dict(v)["total"] for v, _ in race) == ["0.0", "1.0", "1.5"]
    rates = smt_outcomes(prog, "loops::Rates")  # the literals an untyped feature is bound to
    assert rates == explore_outcomes(prog, "loops::Rates")
    assert sorted(int(dict(v)["total"]) for v, _ in rates) == [7, 9, 12]
    assert {dict(v)["rates"] for v, _ in rates} == {"(2, 3)"}  # reported as the run spells it


# fresh/constants.sysml: a package's attributes bound to literals are constants (the names were refused);
# the check reads the level before or after the pour: over false or true, level 6.0 (rate 2 is a Real).
def test_a_packages_bound_attributes_are_constants_for_the_solver() -> None:
    prog = program((FRESH / "constants.sysml").read_text(encoding="utf-8"))
    fill = smt_outcomes(prog, "plant::Fill")
    assert fill == explore_outcomes(prog, "plant::Fill")
    assert sorted((dict(v)["over"], dict(v)["level"]) for v, _ in fill) == [("false", "6.0"), ("true", "6.0")]


# Models of tests/engines/runtime/control/, answered there; the solver gives explore's sets.
# - while_until.sysml: `while c { ... } until u;` reads u after each pass, then c. Fill ends at level 6
#   whatever the gauge reads (0, 3 or 6); Stop counts to 1, 2 or 3 as the flag the until reads is raised
#   (the encoding refused the until).
# - timed_branches.sysml: waits for time in a step's body (a loop pass's `accept after`, a body's
#   statement) on the one clock. The encoding refused a body statement's wait (the interpreter moved the
#   clock within the move); each is a timer of its own now, in both.
@pytest.mark.parametrize("model, subject", [
    ("while_until", "filling::Fill"), ("while_until", "filling::Stop"),
    ("timed_branches", "timers::Alarms"), ("timed_branches", "timers::Poll"),
    ("timed_branches", "timers::Kettle"), ("timed_branches", "timers::OrderedKettle"),
])
def test_a_control_model_for_the_solver_too(model: str, subject: str) -> None:
    prog = program((CONTROL / f"{model}.sysml").read_text(encoding="utf-8"))
    assert smt_outcomes(prog, subject) == explore_outcomes(prog, subject)


# fresh/audit_branch.sysml: a node with features of its own in an `if` branch is encoded (it was refused);
# its features are no outputs, as a run reports none: flagged -1 or 5, explore's set.
def test_a_branch_nodes_features_for_the_solver() -> None:
    prog = program((FRESH / "audit_branch.sysml").read_text(encoding="utf-8"))
    outcomes = smt_outcomes(prog, "BR::Audit")
    assert outcomes == explore_outcomes(prog, "BR::Audit")
    assert sorted(dict(v)["flagged"] for v, _ in outcomes) == ["-1", "5"]


# fresh/loop_steps.sysml: a step with features of its own in a loop's body is encoded (it was refused:
# each pass's performance starts its features afresh, so one slot per feature holds them pass after pass).
# Product (acc = 1; mul's start shot reads acc and k + 1, its assign writes seen * factor, k = 1, 2, 3; the
# meddler adds 1 atomically at any point): before pass 1's shot 2*2*3*4 = 48; inside a pass (between its
# shot and its write) the meddler's write is lost: 24; between passes 1 and 2: 3*3*4 = 36; between 2 and
# 3: 7*4 = 28; after: 25. Reinit: each pass starts local at 10, adds n, copies it: last 12, n 3. Pair: a
# step declared in a body keeps its place (the oracle's "Direct statements of one body ..."), so left then
# right each pass: a 0 -> 1 -> 3 -> 4 -> 6, the until read after each pass; the reader sees 0, 1, 3, 4 or 6.
@pytest.mark.parametrize("subject, feature, values", [
    ("loops::Product", "acc", ["24", "25", "28", "36", "48"]),
    ("loops::Reinit", "last", ["12"]),
    ("loops::Pair", "seen", ["0", "1", "3", "4", "6"]),
])
def test_a_loop_bodys_step_with_features_for_the_solver(subject: str, feature: str, values: list[str]) -> None:
    prog = model("loop_steps")
    outcomes = smt_outcomes(prog, subject)
    assert outcomes == explore_outcomes(prog, subject)
    assert sorted(dict(v)[feature] for v, _ in outcomes) == values


# fresh/block_features.sysml: features a branch or a pass declares are encoded (they were refused), one
# slot each, set as the branch or pass starts; a run reports none of them. Branchy (x = 3): the `if` reads
# x before or after the other branch of the fork writes -1; the then branch starts t at x * 2 = 6 and
# writes y := 7, the else branch's u is 8: y 7 or 8, x -1. Loopy: each pass starts sq at n + n + 1
# (1, 3, 5) and adds it: s 9, n 3.
@pytest.mark.parametrize("subject, feature, values", [
    ("blk::Branchy", "y", ["7", "8"]),
    ("blk::Loopy", "s", ["9"]),
])
def test_a_branch_or_pass_declaring_features_for_the_solver(subject: str, feature: str, values: list[str]) -> None:
    prog = model("block_features")
    outcomes = smt_outcomes(prog, subject)
    assert outcomes == explore_outcomes(prog, subject)
    assert sorted(dict(v)[feature] for v, _ in outcomes) == values


def test_one_name_declared_in_both_branches_is_refused_not_confused() -> None:
    """One slot per name per statement: a feature both branches declare would be one slot read by both,
    so the encoding refuses it, naming it, rather than risk reading the other branch's."""
    prog = program("package twice { private import ScalarValues::*; action A { attribute c : Integer := 1;\n"
                   "attribute y : Integer := 0;\n"
                   "if c > 0 { attribute t : Integer := 2; assign y := t; } else { attribute t : Integer := 3;"
                   " assign y := t; } } }")
    refused = solve(prog, "twice::A", "outcomes", solver_seconds=SECONDS)
    assert refused.verdict == "not covered" and "'t' declared in both branches" in (refused.reason or "")


# fresh/pins.sysml: a node's own parameters (no flow or binding reaches them) start as its attributes do,
# from their values or with none, and a sibling reads them by path (`low.v`); a fork inside a loop's pass
# runs its branches there. Sampler: each pass sums low.v + high.v (1 + 10, then 2 + 20) into total, one
# atomic assignment; the meddler doubles total once at any point: before the first sum 0 -> 11 -> 33,
# between the sums 22 -> 44, after them 66.
@pytest.mark.parametrize("subject, feature, values", [
    ("pins::Sampler", "total", ["33", "44", "66"]),
])
def test_a_nodes_parameters_read_by_path_for_the_solver(subject: str, feature: str, values: list[str]) -> None:
    prog = model("pins")
    outcomes = smt_outcomes(prog, subject)
    assert outcomes == big_explore(prog, subject)
    assert sorted(dict(v)[feature] for v, _ in outcomes) == values
    assert all(error is None for _, error in outcomes)


def test_a_copy_of_a_nodes_parameter_it_has_not_written_fails_for_the_solver_as_in_the_run() -> None:
    """Handoff: consume copies produce.v into r before produce has started (a path through a step with no
    performance navigates no value), between its start and its write (v has none yet), or after (5). r is
    of multiplicity [1], so a copy of no value fails (the oracle: an order before the producing step reads
    the unset output and fails): r is 5, or the run fails naming produce.v, with produce not begun or
    begun (its v reported as holding none)."""
    prog = model("pins")
    outcomes = smt_outcomes(prog, "pins::Handoff")
    assert outcomes == big_explore(prog, "pins::Handoff")
    assert [dict(v)["r"] for v, error in outcomes if error is None] == ["5"]
    failed = [(dict(v).get("produce.v"), error) for v, error in outcomes if error is not None]
    assert sorted(v or "" for v, _ in failed) == ["", "<unset>"]
    assert all("'produce.v' holds no value here" in error for _, error in failed)


# fresh/calcs.sysml: a calculation the model defines is inlined where it is invoked (it was refused): its
# arguments read in order, then its result over them, as the interpreter evaluates it in a frame of its
# parameters alone; defaults for the parameters not given, named arguments, one calculation invoking
# another. Setpoint: apply reads demand 9 (27 clamped to 20) or, after the nudge, 5 (15). Limiter: the
# level doubled is clamped to 20 for every level, so `ceiling` (<= 20) is proved and `tight` (<= 19) is
# violated at a level of 10 or more. Share: 12 / count fails at count = 0. Countdown: Steps(7) on a fixed
# argument recurses as far as its condition says: 7, 5, 3, 1, -1: 4. Open: Steps(n) on a feature's value
# cannot be unrolled (its condition is the solver's to choose), so it is refused by name.
def test_a_calculation_is_inlined_for_the_solver() -> None:
    prog = model("calcs")
    for subject in ("calcs::Setpoint", "calcs::Countdown"):
        assert smt_outcomes(prog, subject) == explore_outcomes(prog, subject)
    assert sorted(dict(v)["result"] for v, _ in smt_outcomes(prog, "calcs::Setpoint")) == ["15", "20"]
    assert [dict(v)["steps"] for v, _ in smt_outcomes(prog, "calcs::Countdown")] == ["4"]
    proved = solve(prog, "calcs::Limiter", "holds", properties=("ceiling",), inputs=("level",),
                   solver_seconds=SECONDS)
    assert proved.verdict == "proved"
    broken = solve(prog, "calcs::Limiter", "holds", properties=("tight",), inputs=("level",),
                   solver_seconds=SECONDS)
    assert broken.verdict == "violated"
    ((name, level),) = broken.witnesses[0].inputs
    assert name == "level" and int(level) >= 10
    replayed(prog, "calcs::Limiter", broken)
    failing = solve(prog, "calcs::Share", "holds", inputs=("count",), solver_seconds=SECONDS)
    assert failing.verdict == "violated" and failing.witnesses[0].inputs == (("count", "0"),)
    replayed(prog, "calcs::Share", failing)
    refused = solve(prog, "calcs::Open", "outcomes", solver_seconds=SECONDS)
    assert refused.verdict == "not covered" and "Steps" in (refused.reason or "")


# fresh/clock.sysml: `localClock.currentTime` reads the run's one clock (it was refused). Time passes only
# where no move is enabled, to the earliest wake still to come: `now` stamps 0 before any wait ends, the
# 1 s waiter's stamp is enabled at 1 (so the clock cannot pass to 3 before it is taken): 1.0, the 3 s
# waiter's 3.0. With no wait in the action the clock never moves: 0.0.
@pytest.mark.parametrize("subject, expected", [
    ("clocked::Stamps", {"t0": "0.0", "t1": "1.0", "t3": "3.0"}),
    ("clocked::Still", {"stamped": "0.0"}),
])
def test_the_clock_read_for_the_solver(subject: str, expected: dict[str, str]) -> None:
    prog = model("clock")
    outcomes = smt_outcomes(prog, subject)
    assert outcomes == explore_outcomes(prog, subject)
    assert outcomes == done(expected)


# fresh/calc_usage.sysml: a calc usage (`calc n : Net { in gross = salary; }`) names an invocation whose
# result is computed where it is read (`n.amount`), from its inputs' values then (the interpreter's rule);
# its own statement is a move that computes nothing. The raise (+5) races the pay: paid 10 - 2 = 8 or
# 15 - 2 = 13 (tax takes its default 2). A calc usage of a loop body read by its path is refused by name.
def test_a_calc_usage_is_invoked_where_its_result_is_read() -> None:
    prog = model("calc_usage")
    outcomes = smt_outcomes(prog, "payroll::Payroll")
    assert outcomes == explore_outcomes(prog, "payroll::Payroll")
    assert sorted(dict(v)["paid"] for v, _ in outcomes) == ["13", "8"]


# A flow between steps performed at once streams each value written into the running target: no
# outcome of smt's reads it, so the question is refused before any query, naming the two steps.
def test_a_flow_between_steps_performed_at_once_is_refused() -> None:
    answer = solve(model("flows"), "flows::Stream", "outcomes", solver_seconds=SECONDS)
    assert answer.verdict == "not covered"
    assert "a flow from 'produce' to 'consume', which may be performed at once" in answer.reason


# An Integer raised to an integer literal is a product of the base: (x - 1) ** 2 written out is never
# negative for any x (proved), and reaches 100 or more for x >= 11 or x <= -9 (violated, the witness's
# input one of those).
def test_a_power_of_a_free_input() -> None:
    prog = model("powers")
    proved = holds(prog, "pw::Square", "pw::NonNegY")
    assert proved.verdict == "proved", proved.reason
    name, value = breaking_input(prog, "pw::Square", holds(prog, "pw::Square", "pw::BelowHundred"))
    assert name == "x" and (int(value) - 1) ** 2 >= 100


# flows::Meter: sense starts with offset 0 (skew after its start) or -5; its reading 3 or -2 flows into
# grade's Natural x as grade starts: 3 grades to level 30 (written back), -2 is refused by the binding's
# type check, the run failing there with level still 0. Both engines, smt's witnesses replayed.
def test_a_flow_into_a_performed_actions_parameter_is_type_checked() -> None:
    prog = model("flows")
    expected = sorted([
        ((("grade.level", "30"), ("grade.x", "3"), ("level", "30"), ("offset", "-5"), ("sense.offset", "0"),
          ("sense.v", "3")), None),
        ((("level", "0"), ("offset", "-5"), ("sense.offset", "-5"), ("sense.v", "-2")),
         "binding of x: type mismatch: x is a Natural and -2 is an Integer")], key=repr)
    assert smt_outcomes(prog, "flows::Meter") == expected
    assert explore_outcomes(prog, "flows::Meter") == expected


# The library's max and min clamp the demand to 0..100 whatever the level: proved for every Integer level;
# without the min, a level far enough below the setpoint breaks it (violated: with the setpoint retargeted
# to 120 first, any level below 20; the witness's level is one).
def test_the_librarys_max_and_min_over_a_free_input() -> None:
    prog = model("library")
    proved = holds(prog, "lib::Clamp", "lib::InRange", ("level",))
    assert proved.verdict == "proved", proved.reason
    open_top = program((FRESH / "library.sysml").read_text().replace("min(max(setpoint - level, 0), 100)",
                                                                     "max(setpoint - level, 0)"))
    name, value = breaking_input(open_top, "lib::Clamp", holds(open_top, "lib::Clamp", "lib::InRange", ("level",)))
    assert name == "level" and int(value) < 20



# Signals with features (fresh/signals.sysml). A construction's arguments bind the signal's features in
# their order, positional then by name; the object it makes is numbered in the order the run makes
# objects, and an accept's payload is reported by that number (`instance#1`) while its features are read
# by path or by the payload's name.
# - Thermostat: SetPoint(22, true) is the only object (#1); apply reads 22 + reading - 20, the sensor's
#   21 written before apply (23) or after (22); rushed true either way.
# - Numbers: Ready() and SetPoint(5, false) are made in either order, so the SetPoint taken is #1 or #2;
#   seen 5 on both.
# - Till: Order(price = 2.5, qty = 4) by name, billed by the payload's bare name: 4 * 2.5 = 10.0.
# - Desk: Book(7) and Book(9) race; the desk takes the oldest first, so one.b is always #1 and two.b #2,
#   the seats 7 then 9 or 9 then 7.
# - Logger: Reading(4, true) is sent before Reading(5, false); the loop's accept takes the oldest each
#   pass (its payload reported by no run, as a pass's is not): total 4, bad 5, count 2.
SIGNALS = {
    "signals::Logger": done({"bad": "5", "count": "2", "total": "4"}),
    "signals::Thermostat": done(*({"heater.sp": "instance#1", "reading": "21", "rushed": "true", "target": t}
                                   for t in ("22", "23"))),
    "signals::Numbers": done(*({"seen": "5", "takePoint.sp": f"instance#{n}"} for n in (1, 2))),
    "signals::Till": done({"take.o": "instance#1", "total": "10.0"}),
    "signals::Desk": done(*({"firstSeat": a, "one.b": "instance#1", "secondSeat": b, "two.b": "instance#2"}
                            for a, b in (("7", "9"), ("9", "7")))),
}


@pytest.mark.parametrize("subject", sorted(SIGNALS))
def test_signals_with_features_for_the_solver(subject: str) -> None:
    prog = model("signals")
    assert smt_outcomes(prog, subject) == SIGNALS[subject]
    assert explore_outcomes(prog, subject) == SIGNALS[subject]


def test_the_two_seats_booked_decide_which_is_first() -> None:
    prog = model("signals")
    answer = solve(prog, "signals::Desk", "sensitive", diverge=("firstSeat",), solver_seconds=SECONDS)
    assert answer.verdict == "sensitive", answer.reason
    assert {v for _, entries in answer.divergent for v, _ in entries} == {"7", "9"}
    replayed(prog, "signals::Desk", answer)


# What the encoding does not state is refused before any query, naming it: a send leaving a feature
# with no value (the interpreter fails constructing it), and a payload read whole (its object).
@pytest.mark.parametrize(("subject", "reason"), [
    ("signals::Partial", "a send of SetPoint leaving urgent with no value at node 's'"),
    ("signals::Whole", "the signal 'r.b' read whole"),
])
def test_a_signal_the_encoding_does_not_state_is_refused(subject: str, reason: str) -> None:
    answer = solve(model("signals"), subject, "outcomes", solver_seconds=SECONDS)
    assert answer.verdict == "not covered"
    assert reason in (answer.reason or "")


# The library's rounding functions (fresh/rounding.sysml), as ir/library.py computes them: floor, round
# half toward positive infinity, ToInteger toward zero, ToRational, isZero.
# rnd::Meter (reading 2.5): bill's three assignments are unordered and each reads the reading before the
# calibration (2.5: billed 3, poured 2, shown 2) or after it (-0.5: billed 0, poured -1, shown 0), so
# all 8 combinations end; poured is never 0, so empty stays false; the reading ends -0.5.
def test_the_librarys_rounding_for_the_solver() -> None:
    prog = model("rounding")
    expected = done(*({"billed": b, "empty": "false", "poured": p, "reading": "-0.5", "shown": s}
                      for b in ("3", "0") for p in ("2", "-1") for s in ("2", "0")))
    assert smt_outcomes(prog, "rnd::Meter") == expected
    assert explore_outcomes(prog, "rnd::Meter") == expected


# rnd::Bill over every Real litres: round(l) is floor(l) or floor(l) + 1 (proved); it equals floor(l)
# only where l's fraction is under a half, so Exact is violated, the witness's litres one whose
# fraction is a half or more.
def test_rounding_is_fair_for_every_reading_and_exact_for_none_with_half_or_more() -> None:
    from fractions import Fraction
    from math import floor

    prog = model("rounding")
    fair = holds(prog, "rnd::Bill", "rnd::Fair", ("litres",))
    assert fair.verdict == "proved", fair.reason
    name, value = breaking_input(prog, "rnd::Bill", holds(prog, "rnd::Bill", "rnd::Exact", ("litres",)))
    litres = Fraction(value)
    assert name == "litres" and litres - floor(litres) >= Fraction(1, 2)


# An accept of a signal takes the signals that specialize it (engines/runtime/bus.matches): the encoding
# matches every sent tag that specializes the accepted signal, and reads the accepted signal's features
# from the slots of whichever was sent (fresh/alarms.sysml). Derivations:
# alarms::Panel: Warning(1) and Alarm(5) raised in either order; listen1 takes the oldest, listen2 the
# other (both are Warnings): earliest is the first sent (1 or 5), total 6; the first object made is the
# first sent, so listen1.w is instance#1 and listen2.v instance#2 on every schedule.
# alarms::Siren: `accept a : Alarm` takes Fire(level 9), never the plain Warning(2): level 9; a is
# instance#1 when the smoke was sent first, #2 otherwise; the attribute zone is never written.
# alarms::Zones: `accept x : Fire` takes the Fire (zone 2, level 8) and not the Alarm(4): zone 10.
ALARMS = {
    "alarms::Panel": done(*({"earliest": e, "listen1.w": "instance#1", "listen2.v": "instance#2", "total": "6"}
                            for e in ("1", "5"))),
    "alarms::Siren": done(*({"level": "9", "sound.a": f"instance#{n}", "zone": "0"} for n in (1, 2))),
    "alarms::Zones": done(*({"take.x": f"instance#{n}", "zone": "10"} for n in (1, 2))),
}


@pytest.mark.parametrize("subject", sorted(ALARMS))
def test_an_accept_takes_the_signals_that_specialize_it(subject: str) -> None:
    prog = model("alarms")
    assert smt_outcomes(prog, subject) == ALARMS[subject]
    assert explore_outcomes(prog, subject) == ALARMS[subject]


def test_which_warning_the_panel_takes_first_is_the_schedules() -> None:
    prog = model("alarms")
    answer = solve(prog, "alarms::Panel", "sensitive", diverge=("earliest", "total"), solver_seconds=SECONDS)
    assert answer.verdict == "sensitive", answer.reason
    assert {(name, v) for name, entries in answer.divergent for v, _ in entries} == {("earliest", "1"),
                                                                                       ("earliest", "5")}
    replayed(prog, "alarms::Panel", answer)


# A specialization that redefines a feature of what the accept takes travels it in another domain: refused.
def test_an_accept_of_a_signal_whose_feature_a_specialization_redefines_is_refused() -> None:
    prog = program("""package t {
        private import ScalarValues::*;
        attribute def Warning { attribute level : Integer; }
        attribute def Alarm :> Warning { attribute redefines level : Real; }
        action def W {
            attribute got : Integer := 0;
            first start;
            then action tell { send Alarm(7.5); }
            then action listen accept x : Warning;
            then done;
        }
    }""")
    answer = solve(prog, "t::W", "outcomes", solver_seconds=SECONDS)
    assert answer.verdict == "not covered"
    assert "an accept of Warning taking the sent Alarm, whose feature 'level' is redefined" in (answer.reason or "")
