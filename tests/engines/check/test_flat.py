"""The flat form (engines/check/flat.py) against the interpreter: over every action of the corpus, the
reduction and dependence models, the models here and the scaling families (generated graphs:
tests/property/test_flat_graphs.py), a
check through the flat form gives the very result the interpreter's check gives (states, moves, depth,
verdict, outcomes, violations, witnesses and their text), reduced and unreduced. And the flat form
covers what it claims to: a test fails if it stops covering the scaling families or the models
written for it, so no refusal can make the comparison pass by comparing nothing.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

import ir
from engines.check.search import check, readable_after_end, why_not_flat
from engines.framework import Bounds, Result
from engines.runtime import NotFlat, Program
from engines.runtime.world import MAX_STEPS_VARIABLE
from ir import syntax as s
from tests.corpus_cases import CONFORMANCE, HAVE_CORPUS, MORE, NO_CORPUS
from tests.engines.check.models import DEPENDENCE, REDUCTION

HERE = Path(__file__).resolve().parent
FLAT_MODELS = HERE / "flat"
REFEREE = HERE.parents[1] / "referee" / "models"
BENCH = HERE.parents[2] / ".." / "shared" / "bench" / "gen_scaling.py"
BOUNDS = Bounds(depth=2_000, states=20_000)


def _actions(program: Program) -> list[str]:
    """Every action definition and action usage the documents' packages declare."""
    out = []
    for doc in program.model.documents:
        for member in doc.members:
            if isinstance(member, s.Package):
                for inner in member.members:
                    if isinstance(inner, (s.Definition, s.Usage)) and inner.kind == "action" and inner.name:
                        out.append(f"{member.name}::{inner.name}")
    return out


def _program(path: Path) -> Program:
    return Program(ir.resolve([ir.parse(path.read_text(encoding="utf-8"), path.stem)]))


def same(program: Program, subject: str, bounds: Bounds = BOUNDS) -> None:
    for reduce in (True, False):
        interpreted = check(program, subject, bounds, reduce=reduce, flat=False)
        flat = check(program, subject, bounds, reduce=reduce, flat=True)
        assert _essence(flat) == _essence(interpreted), f"{subject} (reduce={reduce})"


def _flat_ends(program: Program) -> Callable[[str], set[tuple[tuple[str, str], ...]]]:
    """The ends of a check of one of `program`'s actions, which the flat form must cover: each outcome's values."""
    def ends(subject: str) -> set[tuple[tuple[str, str], ...]]:
        assert why_not_flat(program, subject) is None
        return {tuple(o.values) for o in check(program, subject, BOUNDS).outcomes}
    return ends


def _essence(result: Result) -> object:
    """All a result says but the width of the fingerprints (the interpreter's 128 bits, the flat form's 64)."""
    stats = result.stats
    return (result.verdict, result.strength, (stats.states, stats.moves, stats.depth), result.outcomes,
            result.violations, result.divergent, result.witnesses, result.bounds, result.incomplete, result.notes)


@cache
def _subjects(folder: Path) -> list[tuple[str, str]]:
    """(file, action) for every action of the folder's models the flat form covers."""
    out = []
    for path in sorted(folder.glob("*.sysml")):
        try:
            program = _program(path)
        except Exception:  # a model the corpus keeps to show an error: no action to compare
            continue
        for subject in _actions(program):
            try:
                if why_not_flat(program, subject) is None:
                    out.append((path.name, subject))
            except Exception:
                continue
    return out


FOLDERS = {"conformance": CONFORMANCE, "conformance-more": MORE, "reduction": REDUCTION,
           "dependence": DEPENDENCE, "flat": FLAT_MODELS, "referee": REFEREE}


@pytest.mark.parametrize("folder", ["dependence", "flat", "referee"])
def test_flat_checks_as_the_interpreter_does_on_our_models(folder: str) -> None:
    subjects = _subjects(FOLDERS[folder])
    assert subjects, f"the flat form covers none of {folder}'s models"
    for name, subject in subjects:
        same(_program(FOLDERS[folder] / name), subject)


@pytest.mark.skipif(not HAVE_CORPUS, reason=NO_CORPUS)
@pytest.mark.parametrize("folder", ["conformance", "conformance-more", "reduction"])
def test_flat_checks_as_the_interpreter_does_on_the_corpus(folder: str) -> None:
    subjects = _subjects(FOLDERS[folder])
    if not subjects and not FOLDERS[folder].is_dir():
        pytest.skip(NO_CORPUS)
    for name, subject in subjects:
        same(_program(FOLDERS[folder] / name), subject)


def test_every_model_written_for_the_flat_form_is_covered() -> None:
    """Every action of the models written for it, but a definition whose parameters are given no value (one
    a typed step performs, which checked alone has no input to read)."""
    for path in sorted(FLAT_MODELS.glob("*.sysml")):
        program = _program(path)
        for subject in _actions(program):
            graph = program.graph(program.action(subject))
            if any(a.direction and a.value is None for a in graph.attributes):
                continue
            assert why_not_flat(program, subject) is None, subject


@pytest.mark.skipif(not BENCH.is_file(), reason=f"no scaling generator at {BENCH}")
@pytest.mark.parametrize("row", ["indep:4:3", "shared:3:3", "racy:3:2"])
def test_flat_checks_the_scaling_families_as_the_interpreter_does(row: str) -> None:
    mode, n, k = row.split(":")
    text = subprocess.run([sys.executable, str(BENCH), mode, n, k], capture_output=True, text=True, check=True).stdout
    name = subprocess.run([sys.executable, str(BENCH), "--name", mode, n, k], capture_output=True, text=True,
                          check=True).stdout.strip()
    program = Program(ir.resolve([ir.parse(text, "bench")]))
    assert why_not_flat(program, name) is None
    same(program, name)


def test_a_construct_it_does_not_cover_is_named() -> None:
    program = Program(ir.resolve([ir.parse(
        "package p { action def A { attribute x : Integer := 1; first start; then a; "
        "action a { action inner { if x > 0 { assign x := x + 1; terminate; } } } then done; } }", "stop.sysml")]))
    assert "a terminate in a step among statements" in (why_not_flat(program, "p::A") or "")
    # and the check answers all the same, through the interpreter
    assert check(program, "p::A", BOUNDS).stats.states == check(program, "p::A", BOUNDS, flat=False).stats.states
    # a send of what the flat form carries no message of is named as one
    sending = Program(ir.resolve([ir.parse(
        "package p { action def A { first start; then fork f; then s; then r; action s send 1.5; "
        "action r accept v : ScalarValues::Real; join j; first s then j; first r then j; first j then done; } }",
        "send.sysml")]))
    assert "a send of a Real" in (why_not_flat(sending, "p::A") or "")
    assert {tuple(o.values) for o in check(sending, "p::A", BOUNDS).outcomes} == {()}


def test_the_till_and_the_booking_race_end_as_derived() -> None:
    """Answers derived by hand, through the flat form. The till: anna adds the price (2.5, or 1.25 once
    repriced), ben twice it, each in one move, so no addition is lost: 7.5, 5.0, 6.25 or 3.75 as the
    reprice comes after both, between (either way) or before both. The booking: each client reads what
    is left into a local and writes back its difference, so a client writing after the other read
    loses the other's booking (3 - 2 = 1 seat left, not overbooked), else the second overbooks (-1)."""
    till = _program(FLAT_MODELS / "till.sysml")
    result = check(till, "till::Ring", BOUNDS)
    assert dict((f, [v for v, _ in e]) for f, e in result.divergent) == {
        "receipt": ['"AB"', '"BA"'], "total": ["3.75", "5.0", "6.25", "7.5"]}
    booking = _program(FLAT_MODELS / "booking.sysml")
    ends = {tuple(o.values) for o in check(booking, "booking::Book", BOUNDS).outcomes}
    assert ends == {(("booked", "4"), ("overbooked", "false"), ("seats", "1")),
                    (("booked", "4"), ("overbooked", "true"), ("seats", "-1"))}


def test_branches_and_loops_in_bodies_end_as_derived() -> None:
    """Answers derived by hand, through the flat form (counters.sysml). Reading an `if`'s or a `while`'s
    condition is a move, the statements of the branch (or pass) moves after it. The sellers: both may
    read that the last ticket is left before either takes it, so it is sold twice (-1 left); else one
    sells and the other turns its buyer away. The heater: the window's -2 before the loop's last test is
    heated back to 20, after it the room stays at 18. The clerk: its first two rounds find a customer
    (two wait at the start); the third finds the arrival only if it came before that round's test."""
    program = _program(FLAT_MODELS / "counters.sysml")
    ends = _flat_ends(program)

    assert ends("counters::Sell") == {(("sold", "1"), ("tickets", "0"), ("turnedAway", "1")),
                                      (("sold", "2"), ("tickets", "-1"), ("turnedAway", "0"))}
    assert ends("counters::Warm") == {(("temp", "18"),), (("temp", "20"),)}
    assert ends("counters::Serve") == {(("idle", "0"), ("queue", "0"), ("served", "3")),
                                       (("idle", "1"), ("queue", "1"), ("served", "2"))}


def test_a_for_loop_reads_its_range_once_as_derived() -> None:
    """rounds.sysml: the processor's `for` reads 1..n at its first test; the operator's n := 1 before it
    leaves one pass, after it three (the range is not read again); the weigher's `for` over
    (10, 20 * scale, 30) reads its elements then, so the doubling counts only before it."""
    program = _program(FLAT_MODELS / "rounds.sysml")
    assert why_not_flat(program, "rounds::Batch") is None
    ends = {tuple(o.values) for o in check(program, "rounds::Batch", BOUNDS).outcomes}
    assert ends == {(("n", "1"), ("processed", "1"), ("sum", "1")), (("n", "1"), ("processed", "3"), ("sum", "6"))}
    # over a sequence written out: (10, 20 * scale, 30) read at the first test, before or after the doubling
    assert why_not_flat(program, "rounds::Weigh") is None
    weighed = {tuple(o.values) for o in check(program, "rounds::Weigh", BOUNDS).outcomes}
    assert weighed == {(("last", "30"), ("scale", "2"), ("total", str(t))) for t in (60, 80)}


def test_statements_standing_in_the_flow_end_as_derived() -> None:
    """statements.sysml, through the flat form (the statements stand in the flow itself, not in a node's
    body). The cycle: the sensor's +1 and the window's -2 each write what they read, so the one writing
    last wins over a read before the other's write: 18 (the sensor's alone), 15 (the window's alone) or
    16 (both). At 18 nothing heats and the log is the `for`'s 1 + 2; from 15 and 16 the `while` heats to
    20 in 5 or 4 passes, logged before the 3. The drain: 7, 4, 1, -2 in three rounds. The refill: the
    consumer's write (what it read less one) after the pump's last test leaves 1, 2 or 3 with 2 passes;
    before it, the pump refills to 4, in 3 to 5 passes as the write undid 0 to 2 of them. The kettle: its
    `loop` passes first and reads `until` after each pass; the tap's write (what it read less 20) after
    the last read leaves 20, 50 or 80 with 2 passes; before it, the kettle heats on to 110, in 3 to 5
    passes."""
    program = _program(FLAT_MODELS / "statements.sysml")
    ends = _flat_ends(program)

    assert ends("statements::Cycle") == {(("heated", "false"), ("log", "3"), ("temp", "18")),
                                         (("heated", "true"), ("log", "8"), ("temp", "20")),
                                         (("heated", "true"), ("log", "7"), ("temp", "20"))}
    assert ends("statements::Drain") == {(("level", "-2"), ("rounds", "3"))}
    assert ends("statements::Refill") == {(("level", str(level)), ("pumped", "2")) for level in (1, 2, 3)} \
        | {(("level", "4"), ("pumped", str(passes))) for passes in (3, 4, 5)}
    assert ends("statements::Boil") == {(("passes", "2"), ("temp", str(temp))) for temp in (20, 50, 80)} \
        | {(("passes", str(passes)), ("temp", "110")) for passes in (3, 4, 5)}


def test_a_conditional_and_a_power_end_as_derived() -> None:
    """The size squares the error's magnitude, read before or after the correction adds 5 to -3: 9 or 4,
    through the flat form; a power whose exponent is not written as a whole number is left to the
    interpreter (an Integer's negative power is a Rational, a type known only when it runs)."""
    program = Program(ir.resolve([ir.parse(
        "package p { action def Gain { attribute error : Integer := -3; attribute size : Integer := 0; "
        "first start; then fork f; then measure; then correct; "
        "action measure { assign size := (if error < 0 ? -error else error) ** 2; } "
        "action correct { assign error := error + 5; } "
        "join j; succession measure then j; succession correct then j; then done; } "
        "action def Root { attribute n : Integer := 2; attribute r : Integer := 0; first start; "
        "then assign r := n ** n; then done; } }", "gain.sysml")]))
    assert why_not_flat(program, "p::Gain") is None
    result = check(program, "p::Gain", BOUNDS)
    assert dict((f, [v for v, _ in e]) for f, e in result.divergent) == {"size": ["4", "9"]}  # (error ends 2)
    same(program, "p::Gain")
    assert "operator **" in (why_not_flat(program, "p::Root") or "")


def test_sub_steps_of_a_body_end_as_derived() -> None:
    """assembly.sysml, through the flat form: the station's sub-steps are action usages in its body
    (fetch, then fit: an action usage keeps its place among the statements); fit notes the bin short
    where it reads it after the fetch took 3 of 2 and before the stocker's 3 came, else not; the bin
    ends 2 and one part is built on every schedule."""
    program = _program(FLAT_MODELS / "assembly.sysml")
    assert why_not_flat(program, "assembly::Assemble") is None
    ends = {tuple(o.values) for o in check(program, "assembly::Assemble", BOUNDS).outcomes}
    assert ends == {(("bin", "2"), ("built", "1"), ("short", short)) for short in ("false", "true")}
    # the booking's checks read what is left into a feature of their own: both reading 3 leaves the last
    # writer's 1 (a booking lost), one after the other -1 (overbooked); 4 seats confirmed either way
    assert why_not_flat(program, "assembly::Book") is None
    ends = {tuple(o.values) for o in check(program, "assembly::Book", BOUNDS).outcomes}
    assert ends == {(("booked", "4"), ("seats", "1")), (("booked", "4"), ("seats", "-1"))}


def test_guarded_successions_end_as_derived() -> None:
    """gate.sysml, through the flat form: the gate's two guards are read as its latch is released, so it
    swings (once) where the lock came after that, else it refuses; the chute's one way on is guarded by
    a level it never reaches, so its token is consumed at the fill and the action ends at level 1
    without reaching `drop` (as the interpreter takes no succession whose guard fails)."""
    program = _program(FLAT_MODELS / "gate.sysml")
    for subject in ("gate::Pass", "gate::Chute"):
        assert why_not_flat(program, subject) is None
    ends = {tuple(o.values) for o in check(program, "gate::Pass", BOUNDS).outcomes}
    assert ends == {(("locked", "true"), ("swung", "0")), (("locked", "true"), ("swung", "1"))}
    chute = check(program, "gate::Chute", BOUNDS)
    assert [tuple(o.values) for o in chute.outcomes] == [(("level", "1"),)] and not chute.violations


def test_library_functions_end_as_derived() -> None:
    """clamp.sysml, through the flat form: widening reads 8 and writes min(10, 13) = 10, narrowing
    max(0, -1) = 0; each after the other's write makes 0 + 5 = 5 or 10 - 9 = 1, both reading 8 leaves
    the last writer's 10 or 0; the note spells it with ToString, and abs(-10) as 10. A function whose
    result's type the flat form cannot know from its declaration alone (sqrt, inexact) stays the
    interpreter's."""
    program = _program(FLAT_MODELS / "clamp.sysml")
    assert why_not_flat(program, "clamp::Adjust") is None
    ends = {tuple(o.values) for o in check(program, "clamp::Adjust", BOUNDS).outcomes}
    assert ends == {(("note", f'"opening {n} of 10"'), ("opening", str(n))) for n in (0, 1, 5, 10)}
    root = Program(ir.resolve([ir.parse(
        "package p { private import ScalarValues::*; private import RealFunctions::*; action def A { "
        "attribute r : Real := 2.0; first start; then assign r := sqrt(r); then done; } }", "root.sysml")]))
    assert "sqrt" in (why_not_flat(root, "p::A") or "")


def test_two_performances_of_one_node_at_once_are_searched_through_the_interpreter() -> None:
    """merged.sysml: both sensors' tokens may stand in the logger at once, each performance with its own
    `before`; the flat form, which has one slot for it, hands the search to the interpreter when it
    meets that (it did not: the second performance overwrote the first's feature, and the first's end
    cleared it under the second, which failed reading it). The count ends 2, or 1 where both read 0, as
    the interpreter lets the two performances overlap (the peer runs them one after the other and
    answers 2 alone: a disagreement on that overlap, not on the flat form, which answers as the
    interpreter does)."""
    program = _program(FLAT_MODELS / "merged.sysml")
    assert why_not_flat(program, "merged::Log") is None  # (what it meets partway, not in the text)
    same(program, "merged::Log")
    result = check(program, "merged::Log", BOUNDS)
    assert dict((f, [v for v, _ in e]) for f, e in result.divergent) == {"count": ["1", "2"]}
    assert not result.witnesses or all("fail" not in str(w) for w in result.witnesses)
    # a `for` loop's range and variable are a performance's own too: two at once once shared its slots,
    # and the check failed with an internal error; each adds 1 and 2 in moves of its own, so 6
    for subject in ("merged::Tally", "merged::Sum"):
        assert why_not_flat(program, subject) is None
        same(program, subject)
        assert [tuple(o.values) for o in check(program, subject, BOUNDS).outcomes] == [(("count", "6"),)]
    # two performances at once of a `while` and of an `if` standing in the flow (no slot of their own, so
    # searched flat): the second's branch once ended by reading the first's token, which stood at the
    # statement with no chain, as its own (an IndexError). Both may test before either writes: the
    # `while` overshoots to 4 or stops at 3; the `if` adds 1 twice (2) or 1 then 10 (11)
    for subject, counts in (("merged::Fill", ["3", "4"]), ("merged::Sort", ["11", "2"])):
        assert why_not_flat(program, subject) is None
        same(program, subject)
        assert sorted(dict(o.values)["count"] for o in check(program, subject, BOUNDS).outcomes) == counts


def test_integer_division_and_remainder_end_as_derived() -> None:
    """shares.sysml: 7 / 2 is 3.5 and -1 / 2 is -0.5 (two Integers divide to a Real); 7 % 3 is 1 and
    -1 % 3 is -1, -1 % 2 is -1 (the remainder takes the dividend's sign); each read of `total` may come
    before or after the withdrawal, the parity's too (a body's statements are unordered)."""
    program = _program(FLAT_MODELS / "shares.sysml")
    assert why_not_flat(program, "shares::Split") is None
    result = check(program, "shares::Split", BOUNDS)
    assert dict((f, [v for v, _ in e]) for f, e in result.divergent) == {
        "parity": ["-1", "1"], "rest": ["-1", "1"], "share": ["-0.5", "3.5"]}


def test_a_loop_that_never_ends_spends_the_step_budget_as_the_interpreter_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each pass of a `while` is a unit of the run's step budget besides its test's move: a loop with no
    end fails at the same move, worded alike, flat or interpreted (a budget of 25 steps here)."""
    monkeypatch.setenv(MAX_STEPS_VARIABLE, "25")
    program = Program(ir.resolve([ir.parse(
        "package p { action def A { attribute n : Integer := 0; first start; then spin; "
        "action spin { while true { assign n := n + 1; } } then done; } }", "spin.sysml")]))
    assert why_not_flat(program, "p::A") is None
    same(program, "p::A")
    failures = check(program, "p::A", BOUNDS).witnesses
    assert failures and "step limit" in str(failures), failures


def test_a_for_loop_over_minus_one_or_minus_two_counts_its_passes_apart() -> None:
    """A `for` reads its range once, at its first test: starting at -1 it makes 3 passes to 1, at -2
    four, though the pass sets `lo` alike (found by tests/property/test_flat_graphs.py: a loop's bounds
    kept as one tuple hashed -1 as -2, and the two loops merged into one)."""
    program = Program(ir.resolve([ir.parse(
        "package g { action m { attribute lo : Integer := 0; attribute s : Integer := 0; first start; "
        "then decide d; if true then a; if true then b; action a { assign lo := -1; } "
        "action b { assign lo := -2; } merge mg; succession first a then mg; succession first b then mg; "
        "then c; action c { for i in lo..1 { assign lo := 5; assign s := s + 1; } } then done; } }",
        "passes.sysml")]))
    assert why_not_flat(program, "g::m") is None
    result = check(program, "g::m", BOUNDS)
    assert [(f, [v for v, _ in e]) for f, e in result.divergent] == [("s", ["3", "4"])]
    same(program, "g::m")


def test_a_loop_doubling_past_two_to_the_61_reaches_its_end() -> None:
    """Python hashes 2**62 as 2: a flat state's hash would take x = 2**62 for the x = 2 it had seen and
    stop there, with no outcome (found by tests/property/test_flat_graphs.py); a number that large hands
    the search to the interpreter, and the loop ends at 2**70, the first power of two past 10**21."""
    program = Program(ir.resolve([ir.parse(
        "package g { action m { attribute x : Integer := 1; first start; then grow; "
        "action grow { while x < 1000000000 * 1000000000 * 1000 { assign x := x * 2; } } then done; } }",
        "grow.sysml")]))
    assert why_not_flat(program, "g::m") is None  # (the bound is computed: met partway, not in the text)
    result = check(program, "g::m", BOUNDS)
    assert [tuple(o.values) for o in result.outcomes] == [(("x", str(2 ** 70)),)]
    same(program, "g::m")


def test_minus_one_and_minus_two_are_two_states() -> None:
    """Python hashes -1 as it hashes -2: two branches writing them are two final states, not one (a
    flat fingerprint of the plain key merged them, found by tests/property/test_graphs.py)."""
    program = Program(ir.resolve([ir.parse(
        "package g { action m { attribute x : Integer := 0; first start; then fork f1; then a3; then a4;"
        " action a3 { assign x := -1; } action a4 { assign x := -2; } succession first a3 then j2;"
        " succession first a4 then j2; join j2; then done; } }", "minus.sysml")]))
    assert why_not_flat(program, "g::m") is None
    result = check(program, "g::m", BOUNDS)
    assert [(f, [v for v, _ in e]) for f, e in result.divergent] == [("x", ["-2", "-1"])]
    same(program, "g::m")


def test_a_minus_one_traded_between_a_feature_and_a_message_is_another_state() -> None:
    """A decision's two ways each write x and send the other number: x -1 with -2 on the bus, or x -2 with -1
    there. Python hashes -1 as -2, and the fingerprint marked where a -1 stands in the features and on the
    bus in one list, so the two ends looked alike and the flat form reported x -1 alone (found by
    tests/property/test_flat_graphs.py once terminates left messages on the bus at the end)."""
    program = Program(ir.resolve([ir.parse(
        "package g { action m { attribute x : Integer := 0; first start; then d; decide d; then a; then b;"
        " action a { assign x := -1; } action sa send -2; action b { assign x := -2; } action sb send -1; merge e;"
        " succession first a then sa; succession first sa then e; succession first b then sb;"
        " succession first sb then e; succession first e then done; } }", "traded.sysml")]))
    assert why_not_flat(program, "g::m") is None
    result = check(program, "g::m", BOUNDS)
    assert [(f, [v for v, _ in e]) for f, e in result.divergent] == [("x", ["-2", "-1"])]
    same(program, "g::m")


def test_action_nodes_reached_from_several_nodes_end_as_derived() -> None:
    """converging.sysml, through the flat form: an action node several successions reach, with no join
    or merge before it, is performed once every source it awaits has delivered (a source is awaited
    once delivered, or while a token can still reach it without passing the node). The fusion waits for
    both readings (a + b is always 8), the calibration's offset taken or not; the retry loops back into
    its attempt until the limit the operator lowers to 2 before or after the second check; the approver
    is performed once, with or without the deep check the clerk's clearing decides; the handshake
    written in a circle deadlocks with the sync and the acknowledgment each waiting for the other; a join
    two readings reach over one succession fires once per ticker pass, each firing taking one reading
    (1212 in every schedule)."""
    program = _program(FLAT_MODELS / "converging.sysml")

    def checked(subject: str) -> Result:
        assert why_not_flat(program, subject) is None
        return check(program, subject, BOUNDS)

    def ends(subject: str) -> set[tuple[tuple[str, str], ...]]:
        return {tuple(o.values) for o in checked(subject).outcomes}

    assert ends("converging::Fuse") == {(("a", "3"), ("b", "5"), ("estimate", str(e)), ("offset", "1")) for e in (7, 8)}
    assert ends("converging::Retry") == {(("limit", "2"), ("tries", "2")), (("limit", "2"), ("tries", "3"))}
    assert ends("converging::Approve") == {(("approvals", "1"), ("checked", c), ("risky", "false"))
                                           for c in ("false", "true")}
    # a join's firing takes one token over each succession: the second reading waits for the next firing
    assert ends("converging::Twice") == {(("log", "1212"), ("passes", "2"))}
    handshake = checked("converging::Handshake")
    assert not handshake.outcomes
    assert [(v.kind, v.text) for v in handshake.violations] == [("deadlock", "token 2@sync, token 3@ack wait")]


def test_steps_with_a_multiplicity_end_as_derived() -> None:
    """crews.sysml, through the flat form: a step with a multiplicity (`book[2]`) begins its performances
    together and goes on when the last one ends. Two clerks who each test the one seat before the other
    takes it both sell (seats -1, sold 2), else one does (0, 1); three single-assignment workers never
    lose an increment (3; their count an `out` attribute, read and written as any other); two stages each counting in and then writing what they saw end with b = 20,
    the last write coming after both counts; a step performed no times leaves its body unrun and still
    goes on; a pair of pingers reached again by a loop ends before the next pass (4 pings, in twos). The
    peer answers the first four alike; the fifth it refuses, reading the ends of the succession into a
    step of two performances as excluding that count (the interpreter's reading, kept, orders the group)."""
    program = _program(FLAT_MODELS / "crews.sysml")
    ends = _flat_ends(program)

    assert ends("crews::Oversell") == {(("seats", "-1"), ("sold", "2")), (("seats", "0"), ("sold", "1"))}
    assert ends("crews::Workers") == {(("count", "3"),)}
    assert ends("crews::Stages") == {(("a", "2"), ("b", "20"))}
    assert ends("crews::Skipped") == {(("x", "0"), ("y", "1"))}
    assert ends("crews::Relay") == {(("pings", "4"),)}


def test_a_second_arrival_while_a_steps_performances_run_is_searched_through_the_interpreter() -> None:
    """Where a token arrives at a step with a multiplicity while the performances an earlier arrival began
    there still run, the flat form (whose performances of one step are one group) gives the search to the
    interpreter partway, and the answers are the interpreter's."""
    text = """package twice {
        private import ScalarValues::*;
        action def Overlap {
            attribute n : Integer := 0;
            first start then split;
            fork split;
            then a;
            then b;
            action a { assign n := n + 1; }
            action b { assign n := n + 2; }
            merge m;
            succession first a then m;
            succession first b then m;
            succession first m then step;
            action step[2] { if n < 100 { assign n := n * 10; } }
            then done;
        }
    }"""
    program = Program(ir.resolve([ir.parse(text, "twice")]))
    assert why_not_flat(program, "twice::Overlap") is None
    run = program.flat_action("twice::Overlap", None, lambda moves: "", 1_000).start()
    with pytest.raises(NotFlat, match="node step: a token arrived where the performances of an earlier arrival"):
        while run.enabled_moves():  # each time the first move: a's token, then b's, reach the step in turn
            run.apply(run.enabled_moves()[0])
    same(program, "twice::Overlap")


def test_bodies_with_a_flow_of_their_own_end_as_derived() -> None:
    """subflows.sysml, through the flat form: a step decomposed into a flow of its own (`first start then
    heat; then settle; then done;`), its start a move that follows its successions and its done one that
    ends its token. The self-test beside a warm-up that heats then settles logs before, between or after
    the two, never between them in the wrong order (hst, hts, ths); a probe whose start begins two
    readings goes on when both have read (total 3); a done reached before a slower branch ends orders,
    it does not stop that branch, so the read after the step sees both slow steps (5). The peer answers
    each alike."""
    program = _program(FLAT_MODELS / "subflows.sysml")
    ends = _flat_ends(program)

    assert ends("subflows::Startup") == {(("log", f'"{log}"'),) for log in ("hst", "hts", "ths")}
    assert ends("subflows::Probe") == {(("left", "1"), ("right", "2"), ("total", "3"))}
    assert ends("subflows::EarlyDone") == {(("fast", "1"), ("seen", "5"), ("slow", "5"))}


def test_a_terminate_among_a_bodys_statements_ends_as_derived() -> None:
    """stops.sysml, through the flat form: `terminate;` among a body's own statements ends that performance
    (every token of it dropped, the step going on). A dispenser whose terminate no succession orders after
    its pour ends with the cup full or empty and serves either way; a shutdown ordered after both writes
    always has both; two inspectors at once, each stopping before it flags, between, or after it counts,
    end each its own performance only: every end with counted <= flags <= 2. The peer answers each
    alike."""
    program = _program(FLAT_MODELS / "stops.sysml")
    ends = _flat_ends(program)

    assert ends("stops::Dispense") == {(("poured", p), ("served", "1")) for p in ("0", "250")}
    assert ends("stops::Shutdown") == {(("closed", "true"), ("saved", "true"))}
    assert ends("stops::Inspect") == {(("counted", str(c)), ("flags", str(f))) for f in range(3) for c in range(f + 1)}


def test_a_terminate_where_the_flat_form_would_leave_values_behind_is_refused_by_name() -> None:
    """A terminate in a body holding features of its own (whose slots the flat form would leave set where the
    interpreter drops the frame) is refused when lowering, and the interpreter searches."""
    program = Program(ir.resolve([ir.parse(
        "package p { action def A { attribute x : Integer := 1; first start; then a; "
        "action a { attribute t : Integer := 2; assign x := t; terminate; } then done; } }", "stop.sysml")]))
    assert "a terminate in a body holding features" in (why_not_flat(program, "p::A") or "")
    assert {tuple(o.values) for o in check(program, "p::A", BOUNDS).outcomes} == {(("x", "1"),), (("x", "2"),)}


def test_calculations_invoked_end_as_derived() -> None:
    """tariffs.sysml, through the flat form: the day meter's fee is 4 * 3 (the rate's default) = 12, the
    night's Capped(Fee(7, rate 2) = 14, 10) = 10; each after the other's write makes 22, capped to 20 as the
    bill closes, both reading 0 leaves the last writer's 12 or 10. The dosing loop doubles 1 to 2, 4, 8 and
    caps at 9 while a drain may reset it to 1 at any point: the loop always climbs back to 9 unless the
    drain comes after it ends. The peer answers both alike (given its inputs by place: it reads no
    argument given by name)."""
    program = _program(FLAT_MODELS / "tariffs.sysml")
    ends = _flat_ends(program)
    assert ends("tariffs::Billing") == {(("bill", b),) for b in ("10", "12", "20")}
    assert ends("tariffs::Dosing") == {(("level", "1"),), (("level", "9"),)}


def test_a_calculation_the_flat_form_does_not_cover_is_refused_by_name() -> None:
    """A calculation invoked within itself (the interpreter's nesting limit), one reading a feature of its
    caller (which the interpreter does not see there either), an input left unbound: refused when lowering,
    and the interpreter searches (and answers)."""
    def model(calc: str, use: str) -> Program:
        return Program(ir.resolve([ir.parse(
            "package p { private import ScalarValues::*; " + calc + " action def A { attribute x : Integer := 4; "
            "first start; then assign x := " + use + "; then done; } }", "calcs.sysml")]))
    recursive = model("calc def Fact { in n : Integer; return : Integer = if n <= 1 ? 1 else n * Fact(n - 1); }",
                      "Fact(x)")
    assert "invoked within itself" in (why_not_flat(recursive, "p::A") or "")
    assert {tuple(o.values) for o in check(recursive, "p::A", BOUNDS).outcomes} == {(("x", "24"),)}
    leaking = model("calc def Leak { in n : Integer; return : Integer = n + x; }", "Leak(1)")
    assert "the name x" in (why_not_flat(leaking, "p::A") or "")
    unbound = model("calc def Two { in a : Integer; in b : Integer; return : Integer = a + b; }", "Two(1)")
    assert "leaving its input b unbound" in (why_not_flat(unbound, "p::A") or "")
    defaulted = model("calc def Two { in a : Integer; in b : Integer = a * 10; return : Integer = a + b; }",
                      "Two(b = 2, a = x) + Two(x)")
    assert why_not_flat(defaulted, "p::A") is None
    assert {tuple(o.values) for o in check(defaulted, "p::A", BOUNDS).outcomes} == {(("x", "50"),)}
    same(defaulted, "p::A")


def test_which_performance_a_token_stands_in_tells_two_states_apart() -> None:
    """loaders.sysml: the mixer performed twice at once. After `right`'s mix has ended (its token at done,
    then gone) and `left`'s has begun, one performance has both statements to go; after `right`'s has run
    its loop but not its top-up and `left`'s has topped up, each has one. The tokens stand at the same
    places with the same values, yet the first ends with one token to reach done and the second with two
    (a state between, one performance ended and the other's loop to test, only the second reaches). Both
    keys, the interpreter's and the flat form's, tell them apart by which performance each token stands in;
    they had taken them for one state, and a search kept whichever it met first (the depth-first and the
    breadth-first searches of a generated model found 165 and 164 of its 185 states)."""
    program = _program(FLAT_MODELS / "loaders.sysml")
    one_to_go_twice = [0, 0, 1, 1, 1, 2, 3, 2, 2, 0, 0, 0, 0]
    both_to_go = [0, 0, 1, 1, 1, 2, 3, 2, 2, 1, 1, 0, 0, 0]
    keys = []
    for schedule in (both_to_go, one_to_go_twice):
        interpreted = program.start_action("loaders::Batch", None, fine=True)
        flat = program.flat_action("loaders::Batch", None, lambda moves: "", interpreted.world.max_steps).start()
        for index in schedule:
            interpreted.apply(interpreted.enabled_moves()[index])
            flat.apply(flat.enabled_moves()[index])
        assert interpreted.outputs() == flat.outputs() == {"turns": "1", "volume": "2"}
        keys.append((interpreted.state_key(), flat.state_key()))
    assert keys[0][0] != keys[1][0] and keys[0][1] != keys[1][1]
    assert check(program, "loaders::Batch", BOUNDS, reduce=False).stats.states == 185


# a node behind a merge performed twice at once, its body a step with a feature of its own (found by
# tests/property/test_parallel_graphs.py under HYPOTHESIS_PROFILE=slow)
NESTED_FEATURE_TWICE = """package g {
    private import ScalarValues::*;
    action m {
        attribute x : Integer := 0;
        first start;
        fork f1;
        action l2;
        action r3;
        merge m4;
        action a5 { action u1 { attribute t : Integer := x; assign x := t + 1; assign x := x + 1; } }
        done;
        succession first f1 then l2;
        succession first l2 then m4;
        succession first f1 then r3;
        succession first r3 then m4;
        succession first m4 then a5;
        succession first start then f1;
        succession first a5 then done;
    }
}
"""


def test_which_performance_a_steps_features_belong_to_tells_two_states_apart() -> None:
    """NESTED_FEATURE_TWICE: both performances of a5 inside u1, one having read t = 0 and the other t = 1,
    one with `assign x := t + 1` to go and the other `assign x := x + 1`. Which of the two performances
    holds which t decides whether x becomes 1 or 2 next; the interpreter's key listed the features by the
    step's path and took the two states for one. It lists them with each performance's tokens."""
    program = Program(ir.resolve([ir.parse(NESTED_FEATURE_TWICE, "twice.sysml")]))
    readable = readable_after_end(program.model, ("x",))
    keys = []
    for schedule in ([0, 0, 1, 1, 1, 1, 2, 0, 0, 0, 0, 0], [0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2]):
        run = program.start_action("g::m", None, fine=True)
        for index in schedule:
            run.apply(run.enabled_moves()[index])
        assert run.outputs()["x"] == "2"
        keys.append(run.state_key(readable))
    assert keys[0] != keys[1]


def test_typed_steps_end_as_derived() -> None:
    """typed.sysml, through the flat form: action nodes typed by an action def, their parameters bound by
    the usage. A performance copies its inputs in as it begins and its outputs out as it ends (the
    oracle: an `inout` "writes back as it ends"), so two that overlap lose an update. Answers derived by
    hand (see the model's comments); the peer binds an `inout` to the feature itself and writes no `out`
    back, so it answers otherwise (Tellers always 20, Thermostat's goal stays 0), against the oracle."""
    program = _program(FLAT_MODELS / "typed.sysml")
    ends = _flat_ends(program)
    assert ends("typed::Thermostat") == {(("goal", "22"), ("room", "24"))}
    assert ends("typed::Tellers") == {(("balance", b),) for b in ("20", "50", "70")}
    assert ends("typed::Pipeline") == {(("clean", "13"), ("reading", "7"))}
    assert ends("typed::Again") == {(("count", "6"),)}
    assert ends("typed::Racing") == {(("a", "1"), ("c", c)) for c in ("15", "17", "22")}
    assert ends("typed::Tank") == {(("level", v),) for v in ("60", "80", "100")}
    assert ends("typed::Kinds") == {(("log", f'"{v}"'),) for v in ("on", "off", "onoff", "offon")}
    assert ends("typed::Nested") == {(("balance", b),) for b in ("60", "70", "80")}
    assert ends("typed::Loop") == {(("count", "9"),)}
    assert ends("typed::Deep") == {(("count", "6"),)}
    pick = check(program, "typed::Pick", BOUNDS)
    assert {tuple(o.values) for o in pick.outcomes} == {(("res", "3"), ("x", "3"))}
    assert [w.ending for w in pick.witnesses] == ["fails: assignment to res: multiplicity violation: 0 value(s) bound to "
                                                  "a feature with multiplicity lower bound 1 (Maybe's y ended with no value)"]


def test_a_typed_step_the_flat_form_does_not_cover_is_refused_by_name() -> None:
    """An input left to its default (the interpreter reads it when first read), a typed step stating
    statements of its own, an action performed within itself (whose lowering recursed until Python
    stopped it), two performances of a typed step at once (`w[2]`, refused partway): the
    interpreter searches, and answers."""
    def model(step: str) -> Program:
        return Program(ir.resolve([ir.parse(
            "package p { private import ScalarValues::*; action def Inc { inout c : Integer; in n : Integer = 3; "
            "assign c := c + n; } action def A { attribute c : Integer := 0; first start; then " + step +
            " then done; } }", "typed.sysml")]))
    defaulted = model("action w : Inc;")
    assert "the input n of Inc left to its default" in (why_not_flat(defaulted, "p::A") or "")
    assert {tuple(o.values) for o in check(defaulted, "p::A", BOUNDS).outcomes} == {(("c", "3"),)}
    own = model("action w : Inc { in n = 1; assign c := 5; }")
    assert "a typed step stating features or statements of its own" in (why_not_flat(own, "p::A") or "")
    recursive = Program(ir.resolve([ir.parse("package P { action def Ping { action pong : Pong; } "
                                             "action def Pong { action ping : Ping; } action A : Ping; }", "pp.sysml")]))
    assert "the action Pong performed within itself" in (why_not_flat(recursive, "P::A") or "")
    twice = model("action w[2] : Inc { in n = 3; }")
    assert why_not_flat(twice, "p::A") is None  # (refused partway: two performances at once)
    assert {tuple(o.values) for o in check(twice, "p::A", BOUNDS).outcomes} == {(("c", "3"),), (("c", "6"),)}
    same(twice, "p::A")
    # a read of a parameter bound to nothing, where it holds no value: an error in arithmetic, none in a comparison
    for step, ends in (("action w : Inc { in n = 1; inout c = c; } then action v : Bad", set()),
                       ("action v : Compare", {(("c", "0"),)})):
        unset = Program(ir.resolve([ir.parse(
            "package p { private import ScalarValues::*; action def Bad { out y : Integer; assign y := y + 1; } "
            "action def Compare { inout q : Integer; attribute w : Boolean := false; assign w := q == 1; } "
            "action def Inc { inout c : Integer; in n : Integer; assign c := c + n; } "
            "action def A { attribute c : Integer := 0; first start; then " + step + "; then done; } }",
            "unset.sysml")]))
        assert why_not_flat(unset, "p::A") is None  # (refused partway: the read of no value)
        assert {tuple(o.values) for o in check(unset, "p::A", BOUNDS).outcomes} == ends
        same(unset, "p::A")


def test_chains_reading_a_steps_features_end_as_derived() -> None:
    """chains.sysml, through the flat form: a chain reads the features of a step's latest performance
    (`a.v`, a typed step's output or a plain step's feature). Answers derived by hand (see the model's
    comments). Where a chain reads a step not yet begun, its feature holds no value there: the flat form
    gives the search to the interpreter from the start (Peek: `early` ends with no value, or 4)."""
    program = _program(FLAT_MODELS / "chains.sysml")
    ends = _flat_ends(program)
    assert ends("chains::Station") == {(("total", "25"),)}
    assert ends("chains::Doubling") == {(("count", "15"),)}
    assert ends("chains::Kettle") == {(("mode", '"heat"'), ("reading", "19"))}
    assert ends("chains::Peek") == {(("early", "4"),), (("early", "<unset>"),)}


def test_a_chain_the_flat_form_does_not_cover_is_refused_by_name() -> None:
    """A chain through a name a nearer feature or step declares (the interpreter's frames find that one), or
    to a feature the step does not hold: refused when lowering, and the interpreter searches."""
    def model(body: str) -> Program:
        return Program(ir.resolve([ir.parse(
            "package p { private import ScalarValues::*; action def A { attribute x : Integer := 0; "
            "first start; then action a { attribute t : Integer := 3; assign t := 4; } then " + body +
            " then done; } }", "chains.sysml")]))
    shadowed = model("action b { attribute a : Integer := 1; assign x := a.t; }")
    assert "the chain a.t" in (why_not_flat(shadowed, "p::A") or "")
    missing = model("assign x := a.u;")
    assert "the chain a.u" in (why_not_flat(missing, "p::A") or "")
    read = model("assign x := a.t;")
    assert why_not_flat(read, "p::A") is None
    assert {tuple(o.values) for o in check(read, "p::A", BOUNDS).outcomes} == {(("x", "4"),)}
    same(read, "p::A")


def test_messages_end_as_derived() -> None:
    """messages.sysml, through the flat form: sends of Integers, Booleans and Strings, addressed by name or
    to no one, taken by steps that accept one, the oldest they may take first. Answers derived by hand (see
    the model's comments); the peer answers each alike."""
    program = _program(FLAT_MODELS / "messages.sysml")
    ends = _flat_ends(program)
    assert ends("messages::Counter") == {(("seats", "2"), ("sold", "1")), (("seats", "1"), ("sold", "1"))}
    assert ends("messages::Route") == {(("l", "5"), ("r", "7"))}
    assert ends("messages::Handshake") == {(("got", "11"),)}
    assert ends("messages::Logger") == {(("logged", "1"), ("n", "1"), ("on", "true"), ("word", '"hi"'))}
    mismatch = check(program, "messages::Mismatch", BOUNDS)
    assert why_not_flat(program, "messages::Mismatch") is None and not mismatch.outcomes
    assert [w.ending for w in mismatch.witnesses] == ["fails: deadlock: token 2@j, token 3@wait wait"]


def test_a_step_ended_with_nothing_a_chain_reads_is_one_never_begun() -> None:
    """skipped.sysml, through the flat form: a calibration done or skipped as a flag says, racing the flag's
    reset, its scratch value read by nothing once it ended. The reset always ends `needed` false; the
    calibration writes offset 3 (before its scratch is cleared) or 0, and a skipped one leaves it 0. The
    interpreter's key lists an ended performance by what a chain may read of it, so a calibration ended
    with offset 0 and one never begun are one state: the flat form had told them apart by the end's mark
    (the mask of ended performances), one state in every such pair searched twice."""
    program = _program(FLAT_MODELS / "skipped.sysml")
    assert _flat_ends(program)("skipped::Calibrate") == {(("needed", "false"), ("offset", o)) for o in ("0", "3")}
    for reduce in (True, False):
        flat = check(program, "skipped::Calibrate", BOUNDS, reduce=reduce)
        assert flat.stats.states == check(program, "skipped::Calibrate", BOUNDS, reduce=reduce, flat=False).stats.states


def test_terminates_end_as_derived() -> None:
    """halts.sysml, through the flat form; each answer derived by hand (the peer answers Cutter, Reader, Looper,
    Twice, Silent and Nested alike; it runs a `for` loop whole, so Counter and Elements are cut only before or
    after the loop there, and binds `inout` to the feature itself, so Typed loses no update there).

    A terminate standing in the action's flow (after a step, after a decision's branch, as a terminate action
    usage's end) drops every token wherever it stands. Cutter: the worker (t 5 -> 6, total := t, t -> 12, total
    += t) cut anywhere by the boss's +100 then terminate: 6, 18, 100, 106 or 118. Reader: the report reads the
    worker's t (6) before the cut, or never runs: 0. Counter: a `for` over 1..3 adding i, the stop's *10 and
    the terminate after it falling between any passes: 0, 1, 3, 6, 10, 12, 15, 30, 33, 60. Typed: a debit of
    20 copying 50 in and out around the halt's +1: 30 (the +1 lost), 31, or 51 (cut before it ends). Looper:
    three ticks by a merge loop, then the terminate; the other branch copies n at any point, or is cut first.
    Twice: the first of two terminates ends it: 1, 10 or 11. Silent: the scratch value, cut or ended, leaves
    mark 1. Nested: an inner step's two unordered statements (u := u + t, mark += u) cut by the +100 then
    terminate: 100, 101, 106. Elements: a `for` over (4, 5) cut between passes: 0, 4, 9. Guard: the `if` past
    90 is a move, its terminate another, so the drain may run between: (100, false), (80, false), (80, true).

    In a step's body the terminate, in an `if` branch of a `while` pass, ends that step only. Watchdog: the
    monitor stops at the first pass that finds the heater's second write done (checks 1, 2), or ends after
    three passes (3); the report follows either way."""
    ends = _flat_ends(_program(FLAT_MODELS / "halts.sysml"))
    assert ends("halts::Cutter") == {(("total", t),) for t in ("6", "18", "100", "106", "118")}
    assert ends("halts::Reader") == {(("seen", s), ("stopped", "true")) for s in ("0", "6")}
    assert ends("halts::Counter") == {(("sum", str(v)),) for v in (0, 1, 3, 6, 10, 12, 15, 30, 33, 60)}
    assert ends("halts::Typed") == {(("balance", b),) for b in ("30", "31", "51")}
    assert ends("halts::Looper") == {(("n", "3"), ("side", str(v))) for v in range(4)}
    assert ends("halts::Twice") == {(("a", a),) for a in ("1", "10", "11")}
    assert ends("halts::Silent") == {(("mark", "1"),)}
    assert ends("halts::Nested") == {(("mark", m),) for m in ("100", "101", "106")}
    assert ends("halts::Elements") == {(("sum", v),) for v in ("0", "4", "9")}
    assert ends("halts::Guard") == {(("level", "100"), ("logged", "false")), (("level", "80"), ("logged", "false")),
                                    (("level", "80"), ("logged", "true"))}
    assert ends("halts::Watchdog") == {(("checks", c), ("reported", "true"), ("temp", "50")) for c in ("1", "2", "3")}


def test_flows_and_bindings_between_pins_end_as_derived() -> None:
    """streams.sysml, through the flat form; each answer derived by hand. Sampling: the reading (10 + the
    offset, 0 or 5 as the recalibration comes after or before it) doubled: 20 or 30. Dial: the display takes
    the knob's last turn before it starts (18, 21) or its own 15, and each later turn streams into it while
    it runs; it shows its value then adds its value again, so the turns falling before, between or after its
    two reads give 15 + 15, 15 + 18, 18 + 18 or 15 + 21, 18 + 21, 21 + 21: 30, 33, 36, 39, 42 (the peer
    fails the schedules where a turn comes after the display ended, and so reaches only 36, 39, 42). Account:
    the deposit reads the balance as it starts and writes it back as it ends: the fee before or after it
    gives 140, between the two it is lost: 150 (the peer binds the pin to the feature itself: 140 alone).
    Meter: the count's pin, 0, set to the pulses (3, or 0 after the reset) then one more, handed over as it
    ends: 4 or 1. Gauge: a binding between two pins carries each write either way; the logger logs its own
    1 (started and logged before the gauge wrote), 4 or 9. Probe: an output bound to a feature ends with no
    value, a run error (the peer's too)."""
    program = _program(FLAT_MODELS / "streams.sysml")
    ends = _flat_ends(program)
    assert ends("streams::Sampling") == {(("command", c), ("offset", "5")) for c in ("20", "30")}
    assert ends("streams::Dial") == {(("shown", s),) for s in ("30", "33", "36", "39", "42")}
    assert ends("streams::Account") == {(("balance", b),) for b in ("140", "150")}
    assert ends("streams::Meter") == {(("pulses", "0"), ("reported", r)) for r in ("1", "4")}
    assert ends("streams::Gauge") == {(("logged", v),) for v in ("1", "4", "9")}
    assert why_not_flat(program, "streams::Probe") is None
    probe = check(program, "streams::Probe", BOUNDS)
    assert [v.kind for v in probe.violations] == ["fails"] and "multiplicity violation" in probe.violations[0].text


def test_a_terminate_beside_a_step_whose_pins_start_with_no_value_is_refused_by_name() -> None:
    """A step cut short by a terminate of the whole action keeps its frame, which lists an output it holds no
    value in, where a step never begun lists none; the flat form holds no value alike for both, so it refuses
    the action and the interpreter searches (found by tests/property/test_flat_graphs.py: 21 states apart)."""
    program = Program(ir.resolve([ir.parse(
        "package p { action A { attribute y : Integer := 0; first start; then fork f; then p1; then stop;"
        " action p1 { out v : Integer; assign v := 1; then assign y := v; } action stop; then terminate; } }",
        "cut.sysml")]))
    assert "beside a step whose features may start with no value" in (why_not_flat(program, "p::A") or "")
    result = check(program, "p::A", BOUNDS, reduce=False)
    assert {tuple(o.values) for o in result.outcomes} == {(("y", "0"),), (("y", "1"),)}
