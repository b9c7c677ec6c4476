"""Fresh single state machines (tests/engines/check/fresh_machines/) checked against an environment, a
script of sends or an alphabet up to N. Every expected answer was derived by hand from the semantics
before the tool was run (README "check --state"; ../shared/reference/bounded-model-checking.md "The
choice points", "The atomic step", "The properties"; ../shared/corpus/oracle/ and the referee cases
tests/referee/states/*), and is asserted against `check_machine` reduced and unreduced and against
`explore_machine`; every witness the check writes is replayed.

Rules the derivations lean on:
- the script's events arrive in order, any of them between any two of the machine's moves; an
  alphabet's environment sends any of its events, in any order, up to N, and may stop where the
  machine rests (README "check --state");
- one dispatch is run to completion: exit, effect, entry in that order (referee
  guard_exit_effect_entry_vending, nest_entry_exit_effect_order); pool events dispatch in arrival
  order; a completion event precedes pool events (reference "State machine");
- an event no transition of the active state takes (or whose guard is false) is dropped unless the
  state defers it; a deferred event is dispatched, in its arrival order, once a state that does not
  defer it is active (referee defer_two_events_keep_their_order);
- a guard on an accept reads the accepted payload (referee sig_payload_in_guard); a choice reads its
  guards after the incoming segment's effect (pseudo_vending_choice);
- one event selects transitions in several regions once, against the state before any reaction, and
  the reactions' order is open (reference "Regions", referee reg_selection_before_any_reaction);
- a timer is armed when its state is entered; an external self-transition re-arms it; time passes to
  the next timer as a move against the environment's sends; a timer due after the horizon never
  fires (README; referee time_motion_keeps_door_open);
- reaching the machine's `done` ends it, a terminate ends it at once; later events are never taken
  (referee final_machine_done_ignores_later, final_terminate_on_fault);
- a machine that rests is an outcome (quiescent), never a deadlock;
- properties are evaluated at stable states only: "Properties are evaluated only at states where no
  body is mid-run ... so a transient value inside one performance is never a false violation", and
  "For a state machine the atomic unit is one dispatch" (reference "The atomic step", "The
  properties").
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import ir
from engines.check.machine import check_machine, explore_machine, replay_machine, unreproduced_machine
from engines.framework import Bounds, Result, Strength, Verdict
from engines.runtime import Program, Script
from engines.runtime.states import parse_send
from engines.witness import parse_witness

BOUNDS = Bounds(depth=200, states=20_000)
RUNS = Bounds(runs=20_000)
HERE = Path(__file__).resolve().parent / "fresh_machines"


def program(name: str) -> Program:
    path = HERE / name
    return Program(ir.resolve([ir.parse(path.read_text(encoding="utf-8"), str(path))]))


def script(*sends: str, horizon: float | None = None) -> Script:
    events = tuple(parse_send(s) for s in sends)
    return Script(events) if horizon is None else Script(events, horizon=horizon)


def alphabet(*sends: str, n: int) -> Script:
    return Script(alphabet=tuple(parse_send(s) for s in sends), max_events=n)


def project(result: Result, keys: tuple[str, ...]) -> set[tuple[str, ...]]:
    """The outcomes (no failing ones) as the values of `keys`; a key an outcome lacks fails (KeyError)."""
    assert all(o.error is None for o in result.outcomes), [o.error for o in result.outcomes]
    return {tuple(dict(o.values)[k] for k in keys) for o in result.outcomes}


def replays(prog: Program, machine: str, result: Result) -> None:
    """Every witness of the check replays and re-establishes what it claims."""
    for witness in result.witnesses:
        parsed = parse_witness(witness.text(), "w")
        run = replay_machine(prog, parsed, machine)
        assert unreproduced_machine(prog, run, parsed) is None, witness.text()


def all_three(prog: Program, machine: str, env: Script, keys: tuple[str, ...], wanted: set[tuple[str, ...]],
              properties: tuple[str, ...] = (), bounds: Bounds = BOUNDS, replay: bool = True) -> tuple[Result, Result]:
    reduced = check_machine(prog, machine, env, bounds, properties=properties)
    full = check_machine(prog, machine, env, bounds, properties=properties, reduce=False)
    explored = explore_machine(prog, machine, env, RUNS)
    for r in (reduced, full, explored):
        assert r.incomplete is None, r.incomplete
    assert project(reduced, keys) == wanted
    assert project(full, keys) == wanted
    assert project(explored, keys) == wanted
    for r in (reduced, full):
        assert not [v for v in r.violations if v.kind in ("deadlock", "fails")], r.violations
        if replay:
            replays(prog, machine, r)
    return reduced, full


def violated(result: Result) -> set[str]:
    return {v.text.split(" is false")[0] for v in result.violations if v.kind == "property"}


def sends_of(result: Result, number: int) -> list[str]:
    return [c.taken for c in result.witnesses[number - 1].choices if c.taken.startswith("send ")]


# ---------------------------------------------------------------- 1. vending machine
# Coin(20) fails the payload guard (20 < 50) and is dropped; Coin(50): credit 50, the choice reads 50 <
# 100, back to idle; Coin(100): credit 150, the choice takes dispensing, whose entry sells one and
# charges 100 (credit 50), and its completion returns to idle. One outcome; noDebt holds.

def test_vending_refuses_a_small_coin_and_sells_once() -> None:
    prog = program("vending.sysml")
    reduced, full = all_three(prog, "Vendor", script("Coin(value=20)", "Coin(value=50)", "Coin(value=100)"),
                              ("finalState", "credit", "sold", "returned"), {("idle", "50", "1", "0")},
                              properties=("noDebt",))
    for r in (reduced, full):
        assert r.verdict is Verdict.EXHAUSTIVE and not r.violations


# Every driver of {Coin(50), Refund} up to 3: 15 words (none, C, R, CC, CR, RC, RR, CCC, CCR, CRC, CRR,
# RCC, RCR, RRC, RRR) reach six (credit, sold, returned) ends; at most 3 coins sell at most once.
def test_vending_alphabet_up_to_three_never_sells_twice() -> None:
    prog = program("vending.sysml")
    wanted = {("idle", c, s, r) for c, s, r in [("0", "0", "0"), ("50", "0", "0"), ("0", "1", "0"), ("0", "0", "50"),
                                                  ("50", "1", "0"), ("50", "0", "50")]}
    reduced, full = all_three(prog, "Vendor", alphabet("Coin(value=50)", "Refund", n=3),
                              ("finalState", "credit", "sold", "returned"), wanted, properties=("soldAtMostOnce",))
    for r in (reduced, full):
        assert not r.violations
        assert r.verdict is Verdict.DIVERGENT


# Up to 4: only four coins in a row sell twice (a Refund anywhere leaves at most 3 coins); the violating
# witness's environment is exactly Coin x4, and the outcome (idle, credit 0, sold 2) violates it.
def test_vending_alphabet_finds_the_one_driver_that_sells_twice() -> None:
    prog = program("vending.sysml")
    env = alphabet("Coin(value=50)", "Refund", n=4)
    reduced = check_machine(prog, "Vendor", env, BOUNDS, properties=("soldAtMostOnce",))
    full = check_machine(prog, "Vendor", env, BOUNDS, properties=("soldAtMostOnce",), reduce=False)
    explored = explore_machine(prog, "Vendor", env, RUNS)
    keys = ("credit", "sold", "returned")
    assert ("0", "2", "0") in project(explored, keys)
    assert {k for k in project(explored, keys) if k[1] == "2"} == {("0", "2", "0")}
    for r in (reduced, full):
        assert r.verdict is Verdict.VIOLATION
        assert project(r, keys) == project(explored, keys)
        assert violated(r) == {"FreshVend::soldAtMostOnce"}
        (v,) = [v for v in r.violations if v.kind == "property"]
        assert sends_of(r, v.witness) == ["send Coin(value=50)"] * 4
        bad = [o for o in r.outcomes if o.violates]
        assert [dict(o.values)["sold"] for o in bad] == ["2"]
        replays(prog, "Vendor", r)


# ---------------------------------------------------------------- 2. lift door: a press races the timer
# Call opens (openings 1, timer due at 5). Each Hold either comes at t=0 (re-entering open, re-arming
# the timer at 5) or after time passed to 5 (the door closed, Hold dropped). Once closed, a later Hold
# is dropped too. Three Holds-or-not ends: holds 0, 1, 2 with openings = 1 + holds, all closed (the
# timer always fires at last: no horizon). heldAtMostOnce is violated by the ends with holds 2.

def test_lift_door_holds_race_the_close_timer() -> None:
    prog = program("liftdoor.sysml")
    reduced, full = all_three(prog, "LiftDoor", script("Call", "Hold", "Hold"), ("finalState", "openings", "holds"),
                              {("closed", "1", "0"), ("closed", "2", "1"), ("closed", "3", "2")},
                              properties=("heldAtMostOnce",))
    for r in (reduced, full):
        assert r.verdict is Verdict.VIOLATION
        assert violated(r) == {"FreshLift::heldAtMostOnce"}
        assert {dict(o.values)["holds"] for o in r.outcomes if o.violates} == {"2"}


# Horizon 4 s: the timer (due at 5) never fires, so Hold is always taken in open: one end, open.
def test_lift_door_within_four_seconds_stays_open() -> None:
    prog = program("liftdoor.sysml")
    reduced, full = all_three(prog, "LiftDoor", script("Call", "Hold", horizon=4), ("finalState", "openings", "holds"),
                              {("open", "2", "1")})
    assert reduced.verdict is Verdict.EXHAUSTIVE and full.verdict is Verdict.EXHAUSTIVE


# Horizon 5 s: a timer due at 5 is not due *after* the horizon, so it fires: Hold at t=0 re-arms it at 5
# (closed, 2, 1); time passing to 5 before Hold closes the door (closed, 1, 0). And a Hold sent at t=5
# ties with the timer due at 5: "time-trigger events [are unordered] with the earliest pool event of the
# same timestamp" (reference "State machine"), so Hold may be dispatched first, re-entering open at 5
# with its timer due at 10, past the horizon: (open, 2, 1). (My first derivation missed this tie.)
def test_lift_door_timer_due_at_the_horizon_fires_or_ties_with_hold() -> None:
    prog = program("liftdoor.sysml")
    all_three(prog, "LiftDoor", script("Call", "Hold", horizon=5), ("finalState", "openings", "holds"),
              {("closed", "1", "0"), ("closed", "2", "1"), ("open", "2", "1")}, replay=False)


# A witness of a check under a horizon: {Call} up to 1 within 1 s ends closed (nothing sent) or open
# (Call taken, its 5 s timer past the horizon, the machine rests). Each witness must replay: the open
# one is refused ("the replay has not ended after 2 moves") because the witness does not carry the
# horizon and replay_script builds a Script without one, so the replayed machine still waits on the
# timer due at 5 (the CLI's `replay --witness` refuses it too, and has no --advance).
def test_lift_door_horizon_outcomes() -> None:
    prog = program("liftdoor.sysml")
    all_three(prog, "LiftDoor", Script(alphabet=(parse_send("Call"),), max_events=1, horizon=1),
              ("finalState", "openings"), {("closed", "0"), ("open", "1")}, replay=False)


def test_lift_door_horizon_witnesses_replay() -> None:
    prog = program("liftdoor.sysml")
    env = Script(alphabet=(parse_send("Call"),), max_events=1, horizon=1)
    for reduce in (True, False):
        r = check_machine(prog, "LiftDoor", env, BOUNDS, reduce=reduce)
        assert r.witnesses
        replays(prog, "LiftDoor", r)


# ---------------------------------------------------------------- 3. mixer: two regions, one counter
# Start selects pump's and gauge's transitions (both from the initial config); pump first: (1+2)*3 = 9,
# gauge first: 1*3+2 = 5; the configuration is high+running either way (region names sorted: gauge,
# pump). belowNine is false at the end with 9 (a stable state). Drain then resets level to 0.

def test_mixer_region_order_decides_the_level() -> None:
    prog = program("mixer.sysml")
    reduced, full = all_three(prog, "Mixer", script("Start"), ("finalState", "level"),
                              {("high+running", "5"), ("high+running", "9")}, properties=("belowNine",))
    for r in (reduced, full):
        assert r.verdict is Verdict.VIOLATION
        assert {dict(o.values)["level"] for o in r.outcomes if o.violates} == {"9"}
    plain = check_machine(prog, "Mixer", script("Start"), BOUNDS)
    assert plain.verdict is Verdict.DIVERGENT
    assert {f for f, _ in plain.divergent} == {"level"}


def test_mixer_drain_after_start_empties_whatever_the_order() -> None:
    prog = program("mixer.sysml")
    reduced, full = all_three(prog, "Mixer", script("Start", "Drain"), ("finalState", "level"),
                              {("high+idle", "0")})
    assert reduced.verdict is Verdict.EXHAUSTIVE and full.verdict is Verdict.EXHAUSTIVE


# ---------------------------------------------------------------- 4. washer with shallow history
# Start: cycle entered (C), wash. Next: rinse (r). Pause: rinse left, cycle left (c), paused (P).
# Resume -> history: cycle entered (C), rinse restored (r). Next: spin (s). "CrcPCrs", spin.
# Restart instead enters cycle at wash: "CrcPC", and Next then rinse: "CrcPCr".

@pytest.mark.parametrize(("again", "leaf", "log"), [("Resume", "spin", "CrcPCrs"), ("Restart", "rinse", "CrcPCr")])
def test_washer_history_resumes_the_phase_it_left(again: str, leaf: str, log: str) -> None:
    prog = program("washer.sysml")
    reduced, full = all_three(prog, "Washer", script("Next", "Pause", again, "Next"), ("finalState", "log"),
                              {(leaf, f'"{log}"')})
    assert reduced.verdict is Verdict.EXHAUSTIVE and full.verdict is Verdict.EXHAUSTIVE


# Pausing twice in a row: the second Pause finds paused (no transition) and is dropped; Resume still
# restores wash (never left for rinse): "CcPC", wash.
def test_washer_history_of_the_initial_phase() -> None:
    prog = program("washer.sysml")
    all_three(prog, "Washer", script("Pause", "Pause", "Resume"), ("finalState", "log"), {("wash", '"CcPC"')})


# ---------------------------------------------------------------- 5. printer deferring jobs
# Job1 -> printing (jobs 1), timer due at 2. Job2 is deferred while printing; Done follows it.
# (a) Job2, Done both at t=0: Done -> ready "d", Job2 -> printing (jobs 2), timer fires: "dt".
# (b)/(c) time passes to 2 before Done (Job2 sent before or after): ready "t", Job2 -> printing at 2
#     (timer 4); Done before 4: "td"; time to 4 first: "tt" and Done dropped in ready.
# jobs 2 on every schedule, ready at the end.

def test_printer_deferred_job_races_the_page_timer() -> None:
    prog = program("printer.sysml")
    reduced, full = all_three(prog, "Printer", script("Job", "Job", "Done"), ("finalState", "jobs", "log"),
                              {("ready", "2", '"dt"'), ("ready", "2", '"td"'), ("ready", "2", '"tt"')})
    for r in (reduced, full):
        assert r.verdict is Verdict.DIVERGENT
        assert {f for f, _ in r.divergent} == {"log"}


# Horizon 1 s: no page timer fires. Job2 deferred, Done -> ready "d", Job2 released -> printing, jobs 2.
def test_printer_within_a_second_releases_the_deferred_job() -> None:
    prog = program("printer.sysml")
    all_three(prog, "Printer", script("Job", "Job", "Done", horizon=1), ("finalState", "jobs", "log"),
              {("printing", "2", '"d"')})


# ---------------------------------------------------------------- 6. oven: entry/exit/effect order
# Start: standby exit "s-", effect "/start", active entry "A+", heating entry "h+". Hot: "h-", "/hot",
# "k+". Stop from the composite: innermost exit first "k-", then "A-", then the effect "/stop", standby
# has no entry. With Stop before Hot, Hot finds standby and is dropped.

@pytest.mark.parametrize(("order", "log"), [
    (("Start", "Hot", "Stop"), "s-/startA+h+h-/hotk+k-A-/stop"),
    (("Start", "Stop", "Hot"), "s-/startA+h+h-A-/stop"),
])
def test_oven_runs_exit_effect_entry_in_order(order: tuple[str, ...], log: str) -> None:
    prog = program("oven.sysml")
    reduced, full = all_three(prog, "Oven", script(*order), ("finalState", "log"), {("standby", f'"{log}"')})
    assert reduced.verdict is Verdict.EXHAUSTIVE and full.verdict is Verdict.EXHAUSTIVE


# ---------------------------------------------------------------- 7. batch: final state and terminate
# Item (1), Seal with 1 item: guard false, dropped; Item (2); Seal -> done, the machine ends; the last
# Item is never taken: done, items 2, fewItems holds.
def test_batch_ends_at_its_final_state_while_items_still_come() -> None:
    prog = program("batch.sysml")
    reduced, full = all_three(prog, "Batch", script("Item", "Seal", "Item", "Seal", "Item"), ("finalState", "items"),
                              {("done", "2")}, properties=("fewItems",))
    assert reduced.verdict is Verdict.EXHAUSTIVE and not reduced.violations and not full.violations


# Abort terminates at once: the Item after it is never dispatched, items 1.
def test_batch_abort_terminates_and_ignores_later_items() -> None:
    prog = program("batch.sysml")
    all_three(prog, "Batch", script("Item", "Abort", "Item"), ("finalState", "items"), {("(terminated)", "1")})


# Alphabet {Item, Seal} up to 3, property fewItems (items <= 2): three Items break it; a Seal with
# 2 items ends the batch. Ends: none (loading 0), I (1), S (0, dropped), II (2), IS, SI (1), SS (0),
# III (3, violating), IIS (done 2), ISI/SII (1 or 2) ...: loading with 0..3 items, done with 2.
def test_batch_alphabet_three_items_break_few_items() -> None:
    prog = program("batch.sysml")
    reduced, full = all_three(prog, "Batch", alphabet("Item", "Seal", n=3), ("finalState", "items"),
                              {("loading", "0"), ("loading", "1"), ("loading", "2"), ("loading", "3"), ("done", "2")},
                              properties=("fewItems",))
    for r in (reduced, full):
        assert r.verdict is Verdict.VIOLATION
        (v,) = [v for v in r.violations if v.kind == "property"]
        assert sends_of(r, v.witness) == ["send Item"] * 3


# ---------------------------------------------------------------- 8. keypad: the one driver
# {K1, K3} up to 2: none (s0, 0), K1 (s0, 1), K3 (s1, 0), K1K1 (s0, 2), K1K3 (s1, 1), K3K1 (unlocked, 0),
# K3K3 (s1, 0). Only K3 then K1 opens: the violation's witness sends exactly that.
def test_keypad_alphabet_finds_the_one_opening_driver() -> None:
    prog = program("keypad.sysml")
    wanted = {("s0", "false", "0"), ("s0", "false", "1"), ("s1", "false", "0"), ("s0", "false", "2"),
              ("s1", "false", "1"), ("unlocked", "true", "0")}
    reduced, full = all_three(prog, "Keypad", alphabet("K1", "K3", n=2), ("finalState", "opened", "wrong"), wanted,
                              properties=("sealed",))
    for r in (reduced, full):
        assert r.verdict is Verdict.VIOLATION
        (v,) = [v for v in r.violations if v.kind == "property"]
        assert sends_of(r, v.witness) == ["send K3", "send K1"]
        assert [dict(o.values)["finalState"] for o in r.outcomes if o.violates] == ["unlocked"]


# With K2 too, up to 3: K3 K2 K1 does not open (K2 resets), K3 K3 K1 and K1 K3 K1 and K3 K1 x do.
def test_keypad_reset_key_keeps_it_sealed_with_one_key_only() -> None:
    prog = program("keypad.sysml")
    r = check_machine(prog, "Keypad", alphabet("K2", "K1", n=3), BOUNDS, properties=("sealed",))
    assert r.incomplete is None and not r.violations
    assert project(r, ("finalState", "wrong")) == {("s0", w) for w in ("0", "1", "2", "3")}


# ---------------------------------------------------------------- 9. plant: guard reads the other region
# Go #1: selection reads pressure 0: relief's guard false, only pump (pressure 5, pumping).
# Go #2: selection reads 5: both pump's self-transition and relief's shut->open selected. pump first:
# 10 then relief's entry 0 (vented 1); relief first: 0 then pump's +5 = 5. Ends: pressure 0 or 5.
def test_plant_relief_guard_reads_pressure_at_selection() -> None:
    prog = program("plant.sysml")
    all_three(prog, "Plant", script("Go"), ("finalState", "pressure", "vented"), {("pumping+shut", "5", "0")})
    reduced, full = all_three(prog, "Plant", script("Go", "Go"), ("finalState", "pressure", "vented"),
                              {("pumping+open", "0", "1"), ("pumping+open", "5", "1")})
    for r in (reduced, full):
        assert {f for f, _ in r.divergent} == {"pressure"}


# `contained` (pressure <= 5) holds at every stable state: 0, 5 after Go, 0 or 5 after the second.
# The 10 exists only inside the second Go's dispatch, between pump's effect and relief's entry.
def test_plant_pressure_is_contained_at_every_stable_state() -> None:
    prog = program("plant.sysml")
    for reduce in (True, False):
        r = check_machine(prog, "Plant", script("Go", "Go"), BOUNDS, properties=("contained",), reduce=reduce)
        assert not r.violations, r.violations


# ---------------------------------------------------------------- 10. ledger: a transient inside one dispatch
# Tick selects both regions' transitions; +10 and -10 in either order end at 0. The one-region machine
# Single writes the same +10 (effect) then -10 (entry) in one dispatch. `bounded` (|balance| <= 5)
# holds at every stable state of both; ours agrees for Single and not for Ledger.
def test_single_region_transient_is_not_a_violation() -> None:
    prog = program("balance.sysml")
    reduced, full = all_three(prog, "Single", script("Tick"), ("finalState", "balance"), {("settled", "0")},
                              properties=("bounded",))
    assert not reduced.violations and not full.violations


def test_ledger_outcome_is_zero_either_order() -> None:
    prog = program("balance.sysml")
    all_three(prog, "Ledger", script("Tick"), ("finalState", "balance"), {("repaid+lent", "0")})


def test_ledger_transient_between_region_reactions_is_not_a_violation() -> None:
    prog = program("balance.sysml")
    for reduce in (True, False):
        r = check_machine(prog, "Ledger", script("Tick"), BOUNDS, properties=("bounded",), reduce=reduce)
        assert not r.violations, r.violations
        assert r.verdict is Verdict.EXHAUSTIVE


# ---------------------------------------------------------------- 11. charger: Stop against do steps
# The do behavior adds 10 three times, one step each; Stop may be dispatched before any step or
# between any two, leaving charge 0, 10 or 20 in stopped; once the do behavior ends the completion
# event (before any pool event) takes charging to full with 30, and a later Stop is dropped there.
# Whether Stop can still come between the last assignment and the flow reaching `done` (stopped, 30)
# is not settled by the sources read, so it is asserted neither way; all engines must agree on it.
def test_charger_stop_cuts_the_do_behavior_between_steps() -> None:
    prog = program("charger.sysml")
    env = script("Stop")
    reduced = check_machine(prog, "Charger", env, BOUNDS)
    full = check_machine(prog, "Charger", env, BOUNDS, reduce=False)
    explored = explore_machine(prog, "Charger", env, RUNS)
    keys = ("finalState", "charge")
    ends = project(explored, keys)
    assert project(reduced, keys) == ends == project(full, keys)
    assert {("stopped", "0"), ("stopped", "10"), ("stopped", "20"), ("full", "30")} <= ends
    assert ends <= {("stopped", "0"), ("stopped", "10"), ("stopped", "20"), ("stopped", "30"), ("full", "30")}
    for r in (reduced, full):
        assert not r.violations
        replays(prog, "Charger", r)


# Without Stop: the do behavior runs out, full with 30, one outcome.
def test_charger_without_stop_fills_up() -> None:
    prog = program("charger.sysml")
    all_three(prog, "Charger", Script(), ("finalState", "charge"), {("full", "30")})


# ---------------------------------------------------------------- press: a region leaves its owner
# One Stop selects a transition in each region of Running: motion's moving -> Halted leaves Running,
# logger's idle -> noted stays inside it. A transition begun inside Running is part of Running's
# performance, which ends before Running's exit (StatePerformances.kerml `succession [*] middle then
# [1] exit`; oracle "Transitions into a join" derives the owner's exit after the segments' effects
# the same way), and one not begun when Running is left is dropped, its source left (reference
# "Regions": "a sibling region's candidate whose leaf was left is dropped when its turn comes").
# So: motion first, "R- H+ "; logger begun first, its effect and both entries of noted, then
# Running's exit and Halted's entry, "e N+ S+ R- H+ ". Never an entry into noted or stamped after
# "R- " (both are inside Running), never "e" with noted not entered.
def test_a_region_leaving_its_owner_waits_for_a_sibling_transition_begun() -> None:
    prog = program("press.sysml")
    all_three(prog, "Press", script("Stop"), ("finalState", "log"),
              {("Halted", '"R- H+ "'), ("Halted", '"e N+ S+ R- H+ "')})


# With a third region (counter: c0 -> c1 on the same Stop, effect "c ", entry "C+ "): each of logger's
# and counter's reactions either runs whole before Running's exit or is dropped. Neither begun: "R- H+ ";
# one: "e N+ R- H+ ", "c C+ R- H+ "; both: their units in any interleaving that keeps each reaction's
# order (effect before entry), 6 of them, then "R- H+ ". Motion, once let go after waiting for one
# reaction, still drops the other if it has not begun.
def test_leaving_waits_for_every_sibling_begun_and_drops_the_rest() -> None:
    prog = program("press3.sysml")
    both = ["c C+ e N+ ", "c e C+ N+ ", "c e N+ C+ ", "e N+ c C+ ", "e c C+ N+ ", "e c N+ C+ "]
    wanted = {("Halted", f'"{pre}R- H+ "') for pre in ["", "c C+ ", "e N+ ", *both]}
    all_three(prog, "Press", script("Stop"), ("finalState", "log"), wanted)


# ---------------------------------------------------------------- panel: a behavior's statements
# An entry's (exit's, effect's) statements are unordered unless `then` orders them (the oracle's
# "Direct statements of one body ...", which names a state's entry, do and exit bodies; the peer
# interleaves them too). lit's entry raises count to 1 and shows count before or after: shown 0 or 1.
# The second Press's effect shows 5, then logs what is shown: logged 5, never 0 or 1.
def test_an_entrys_statements_take_either_order_and_then_orders_an_effects() -> None:
    prog = program("panel.sysml")
    all_three(prog, "Panel", script("Press"), ("finalState", "count", "shown", "logged"),
              {("lit", "1", "0", "0"), ("lit", "1", "1", "0")})
    all_three(prog, "Panel", script("Press", "Press"), ("finalState", "count", "shown", "logged"),
              {("idle", "1", "5", "5")})


# Display: the entry's statements are A `mode := 1`, B `first := mode`, and an `if` whose guard G comes
# before its branch's D `mode := 2` and E `second := mode`, nothing else ordered. mode ends 2 when D
# comes after A, else 1; first and second each read 0, 1 or 2 (no write yet, A last, D last), and every
# one of the 2 * 3 * 3 combinations has an order (e.g. G E D B A: mode 1, first 2, second 0). The peer
# gives the same 18.
def test_an_entrys_branch_statements_are_chains_too() -> None:
    prog = program("panel.sysml")
    reduced, full = all_three(prog, "Display", Script(), ("finalState", "mode", "first", "second"),
                              {("on", mode, first, second) for mode in ("1", "2") for first in ("0", "1", "2")
                               for second in ("0", "1", "2")})
    # each statement's chain has its own footprint: the guard `true` reads nothing, so its order against
    # the others is one choice, and the reduced search takes fewer moves (with the entry's whole
    # footprint for each chain it took all 69)
    assert reduced.stats.moves < full.stats.moves == 69


# ---------------------------------------------------------------- router: conflicts are choices
# Where two transitions out of one state (a completion's too) or two branches of a junction are enabled,
# exactly one fires and which is open: Sorter's weight 8 passes both guards (bin 1 or 2, the fixed
# policies' first declared being 1); Switch's junction has two unguarded branches (lane 1 or 2), on an
# event as on a completion (Scale); a choice's branches are read after the incoming effect (Chute), the
# branch taken a unit move of the firing. Where one guard alone holds there is no choice. Each was one
# outcome (the first declared) before.
def test_two_enabled_transitions_or_junction_branches_are_a_choice() -> None:
    prog = program("router.sysml")
    all_three(prog, "Sorter", script("Parcel(weight = 8)"), ("finalState", "bin"), {("belt", "1"), ("crane", "2")})
    all_three(prog, "Sorter", script("Parcel(weight = 6)"), ("finalState", "bin"), {("belt", "1")})
    all_three(prog, "Switch", script("Parcel(weight = 1)"), ("finalState", "lane"), {("left", "1"), ("right", "2")})
    all_three(prog, "Scale", script("Parcel(weight = 9)"), ("finalState", "lane"), {("light", "1"), ("heavy", "2")})
    all_three(prog, "Scale", script("Parcel(weight = 3)"), ("finalState", "lane"), {("light", "1")})
    all_three(prog, "Chute", script("Parcel(weight = 8)"), ("finalState", "bin"), {("small", "1"), ("large", "2")})
    all_three(prog, "Chute", script("Parcel(weight = 4)"), ("finalState", "bin"), {("small", "1")})


# An initial transition (the machine's, a composite's) or a history's default that goes to a junction or
# a choice goes on through it, its branches a choice where several are enabled; the machine rested at
# the pseudostate before (lane 0).
def test_an_initial_or_history_default_goes_through_a_junction_or_choice() -> None:
    prog = program("router.sysml")
    all_three(prog, "Dock", Script(), ("finalState", "lane"), {("left", "1"), ("right", "2")})
    all_three(prog, "Bay", script("Parcel(weight = 1)"), ("finalState", "lane"), {("front", "3")})
    all_three(prog, "Bay", script("Parcel(weight = 1)", "Parcel(weight = 1)"), ("finalState", "lane"),
              {("top", "4"), ("bottom", "5")})



# Regions that are simple states of their own: the machine rests in both (a+b), each entry's
# statements interleave with the other's (six outcomes, derived in boot.sysml; the peer finds four,
# keeping each entry whole).
def test_regions_that_are_simple_states_are_the_final_state() -> None:
    prog = program("boot.sysml")
    all_three(prog, "Boot", Script(), ("finalState", "x", "y"),
              {("a+b", x, y) for x, y in (("6", "2"), ("6", "6"), ("4", "1"), ("4", "3"), ("6", "1"), ("4", "4"))})


# ---------------------------------------------------------------- behaviors that assert
# heater_asserts.sysml: an entry, a do and an exit behavior given as action usages assert of each of their
# performances (judged where it ends, in the machine's frame). Go up to N from idle (level 0, cycles 0):
# N = 1: idle's exit counts 1 (twice holds), heating's entry warms to 1 (low holds), boost ends at 3
# (capped holds). N = 3: idle -> heating -> idle -> heating: the second exit counts 2 (holds), the second
# entry warms 3 (boost done) or 1 (cut by the second Go) to 4 or 2: low is false; the second boost ends at
# 6 or 4: capped is false. N = 5: a third exit of idle counts 3: twice is false too.
ASSERTED = ("warm.low", "boost.capped", "count.twice")


@pytest.mark.parametrize("n, broken", [
    (1, set()),
    (3, {"oven::Heater::warm.low", "oven::Heater::boost.capped"}),
    (5, {"oven::Heater::warm.low", "oven::Heater::boost.capped", "oven::Heater::count.twice"}),
])
def test_a_machines_behaviors_assertions_are_judged_where_each_ends(n: int, broken: set[str]) -> None:
    prog = program("heater_asserts.sysml")
    for reduce in (True, False):
        result = check_machine(prog, "Heater", alphabet("Go", n=n), BOUNDS, properties=ASSERTED, reduce=reduce)
        assert violated(result) == broken
        assert result.verdict is (Verdict.VIOLATION if broken else Verdict.EXHAUSTIVE) or \
            (not broken and result.verdict is Verdict.DIVERGENT)
        replays(prog, "Heater", result)


# bakery_asserts.sysml: an instance. Both ovens exhibit the Heater usage, the bakery performs Stock and
# asserts it is open. Go goes to both ovens; up to N: N = 1 or 2, nothing false (each heater's level is 1);
# N = 3: heating again at level 2, so warm.low is false (named by the usage both ovens exhibit); load.fits
# (3 trays) and opened hold on every schedule. The driver may stop after any Go: after k, both ovens stand
# alike, idle at 0 (k = 0), heating at 1, idle at 1, heating at 2; each machine's level is its object's
# slot `heater.level`.
BAKERY = ("bakery::Oven::heater::warm.low", "bakery::Bakery::stock::load.fits", "bakery::bakery::opened")


@pytest.mark.parametrize("n, broken", [(1, set()), (2, set()), (3, {"bakery::Oven::heater::warm.low"})])
def test_an_instances_machines_and_performed_actions_are_judged_where_each_ends(n: int, broken: set[str]) -> None:
    prog = program("bakery_asserts.sysml")
    for reduce in (True, False):
        result = check_machine(prog, "bakery::bakery", alphabet("Go", n=n), BOUNDS, properties=BAKERY,
                               reduce=reduce, part=True)
        assert result.incomplete is None, result.incomplete
        assert violated(result) == broken
        ends = [("idle", "0"), ("heating", "1"), ("idle", "1"), ("heating", "2")][:n + 1]
        assert project(result, ("left.heater", "left.heater.level", "right.heater", "right.heater.level")) == \
            {(state, level, state, level) for state, level in ends}
        replays(prog, "bakery::bakery", result)


# turnstile_asserts.sysml: transitions' effects given as action usages assert too. Coin and Push up to N
# from locked (total 0, passes 0): only Coin moves locked, only Push moves unlocked, so the machine
# alternates Coin, Push, Coin, ... N = 2: pay ends at 6 (bounded: <= 10 holds), count at 1 (one holds).
# N = 3: the second Coin pays to 12: bounded is false. N = 4: the second Push counts 2: one is false too.
@pytest.mark.parametrize("n, broken", [
    (2, set()),
    (3, {"gate::Turnstile::pay.bounded"}),
    (4, {"gate::Turnstile::pay.bounded", "gate::Turnstile::count.one"}),
])
def test_a_transitions_effects_assertions_are_judged_where_each_ends(n: int, broken: set[str]) -> None:
    prog = program("turnstile_asserts.sysml")
    for reduce in (True, False):
        result = check_machine(prog, "Turnstile", alphabet("Coin", "Push", n=n), BOUNDS,
                               properties=("pay.bounded", "count.one"), reduce=reduce)
        assert violated(result) == broken
        replays(prog, "Turnstile", result)


# ---------------------------------------------------------------- do behaviors that wait for time
# A do behavior written as statements waits for time on the machine's clock, as a timer does: the
# clock moves there where nothing else can, never past the horizon, and a send may come between any
# two of its waits. (Each wait moved the clock at once inside the do step: `while true` around one never
# yielded, so the run spent its step limit at move 0, and a bounded loop ran past `--advance`.)
# Sampler takes a sample at t=2, 4, 6, ...: by t=10, 5 samples; Stop sent at t=5 (after the wakes at 2
# and 4) leaves 2. Checked with Stop and time up to 5s, Stop may come before the first wake (0 samples),
# between the wakes (1) or after both (2). Beacon's loop stands at two waits with the same values around
# them but for `lit`: at t=1 it lights (1 flash), at t=2 it goes dark, at t=3 lights again (2 flashes),
# at t=4 dark. Probe's own action sends Stop to its object at t=5: 2 samples on every schedule.
# FlowSampler is Sampler with its do behavior written as a flow (a step whose body waits, a merge loop):
# the same answers (its wait parked the flow for good after the first sample, and where its tokens
# stood was left out of the compared state, so check found 0 or 1 alone).

def _fixed_run(*args: str, code: int = 0) -> dict[str, object]:
    import contextlib
    import io
    import json

    from opensysml_kernel.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["run", str(HERE / "sampler.sysml"), *args, "--json"]) == code
    document: dict[str, object] = json.loads(out.getvalue())
    return document


# Probe's machine writes the part's `samples`: run on no object of Probe, it fails there, and the failure
# says what to do (it said only "no feature 'samples' in run"); on the part `probe` it samples 5 times by
# t=10 (its action, which would stop it, runs with --instantiate alone).
def test_a_part_definitions_machine_run_on_no_object_says_to_name_one() -> None:
    failed = _fixed_run("--state", "sampler::Probe::run", "--advance", "10", code=1)
    assert "samples is a feature of part def sampler::Probe" in str(failed["error"])
    assert "--on <part>" in str(failed["error"])
    on = _fixed_run("--state", "sampler::Probe::run", "--on", "sampler::probe", "--advance", "10")
    assert on["outputs"] == {"probe.samples": "5"}


@pytest.mark.parametrize("machine", ["sampler::Sampler", "sampler::FlowSampler"])
@pytest.mark.parametrize(("args", "final", "samples"), [
    (("--advance", "10"), "sampling", "5"),
    (("--advance", "5", "--send", "Stop"), "stopped", "2"),
    (("--send", "Stop"), "stopped", "0"),
])
def test_a_do_behaviors_wait_for_time_keeps_to_the_clock_in_the_default_run(machine: str, args: tuple[str, ...],
                                                                             final: str, samples: str) -> None:
    document = _fixed_run("--state", machine, *args)
    assert (document["finalState"], document["outputs"]) == (final, {"samples": samples})


def test_a_do_behavior_stands_at_one_of_two_waits_in_its_loop() -> None:
    assert _fixed_run("--state", "sampler::Beacon", "--advance", "3")["outputs"] == {"lit": "true", "flashes": "2"}
    prog = program("sampler.sysml")
    for horizon, lit in ((3, "true"), (4, "false")):
        all_three(prog, "sampler::Beacon", Script(horizon=horizon), ("finalState", "flashes", "lit"),
                  {("blinking", "2", lit)})


@pytest.mark.parametrize("machine", ["sampler::Sampler", "sampler::FlowSampler"])
def test_a_send_may_come_before_between_or_after_a_do_behaviors_waits(machine: str) -> None:
    all_three(program("sampler.sysml"), machine, script("Stop", horizon=5), ("finalState", "samples"),
              {("stopped", "0"), ("stopped", "1"), ("stopped", "2")})


def test_an_objects_own_action_stops_its_sampling_machine_on_the_shared_clock() -> None:
    run = _fixed_run("--instantiate", "sampler::probe", "--advance", "10")
    (probe,) = run["objects"]  # type: ignore[misc]
    assert (probe["finalState"], probe["slots"]["samples"]) == ("stopped", "2")
    prog = program("sampler.sysml")
    env = Script(horizon=10)
    for reduce in (True, False):
        searched = check_machine(prog, "sampler::probe", env, BOUNDS, part=True, reduce=reduce)
        assert searched.incomplete is None and not searched.violations
        assert project(searched, ("probe.run", "samples")) == {("stopped", "2")}


# ---------------------------------------------------------------- a send between the machine's own instants
# The environment may send at any instant up to the horizon, not only where the machine's own time stops
# (t=0 and its timers' dues): a send then arms timers due at instants no timer of the machine reaches.
# Stages, one Ping, time up to 7: a Ping at s <= 1 ends in over (dues s+3, s+6 <= 7), at 1 < s <= 4 in
# second_half, after 4 in first_half. Relay, one Reset, time up to 5.5: at s <= 0.5 the re-armed relay
# closes at s+3 and trips at s+5 <= 5.5 (tripped, 1 reset); at 0.5 < s <= 2.5 it closes by 5.5 and trips
# after (closed, 1); at 2.5 < s <= 3 it closes after 5.5 (armed, 1); once closed, Reset is dropped
# (tripped, 0). The check searched sends at t=0, 3 and 5 alone: it missed second_half and first_half, and
# (closed, 1), and called its set exhaustive.

def test_a_send_may_come_between_the_machines_own_instants() -> None:
    prog = program("relay.sysml")
    all_three(prog, "relay::Stages", script("Ping", horizon=7), ("finalState",),
              {("over",), ("second_half",), ("first_half",)})
    all_three(prog, "relay::Relay", script("Reset", horizon=Fraction(11, 2)), ("finalState", "resets"),
              {("tripped", "1"), ("closed", "1"), ("armed", "1"), ("tripped", "0")})


# Two Pings an alphabet may send, time up to 7: a second Ping is dropped by every state but idle, so the
# outcomes are Stages' three (and idle, where the environment sends none).
def test_an_alphabets_sends_between_the_machines_instants() -> None:
    all_three(program("relay.sysml"), "relay::Stages", Script(alphabet=(parse_send("Ping"),), max_events=2,
                                                                horizon=Fraction(7)),
              ("finalState",), {("idle",), ("over",), ("second_half",), ("first_half",)})


# A delay given by a feature (`accept after d [s]`) gives no grid: the check searches sends where the
# machine's time stops, and says that an outcome a send between reaches may be missing (a Ping after
# t=2 leaves the machine in p, which it does not reach); with literal delays it says nothing of the kind.
def test_a_delay_that_is_no_literal_is_said_to_limit_the_send_instants() -> None:
    text = (HERE / "relay.sysml").read_text(encoding="utf-8").replace(
        "accept after 3 [s] then second_half", "accept after wait [s] then second_half").replace(
        "state def Stages {", "state def Stages {\n        attribute wait : Integer := 3;")
    prog = Program(ir.resolve([ir.parse(text, "relay.sysml")]))
    result = check_machine(prog, "relay::Stages", script("Ping", horizon=7), BOUNDS)
    assert any("no grid of the instants between is known" in note for note in result.notes)
    # what it did not search is not shown absent: the answer is one within that bound, named as reached
    assert result.verdict is Verdict.WITHIN_BOUNDS and result.strength is Strength.OBSERVED
    assert [b.name for b in result.bounds if b.reached] == ["send instants"]
    explored = explore_machine(prog, "relay::Stages", script("Ping", horizon=7), BOUNDS)
    assert explored.verdict is Verdict.INCOMPLETE and explored.incomplete is not None
    plain = check_machine(program("relay.sysml"), "relay::Stages", script("Ping", horizon=7), BOUNDS)
    assert not plain.notes and plain.verdict is not Verdict.WITHIN_BOUNDS
    assert not any(b.reached for b in plain.bounds)
