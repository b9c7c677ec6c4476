"""Control flow as modelers write it: statements after a named accept, a terminate in one fork branch,
and loops whose passes a sibling branch observes. Each model in tests/engines/runtime/control/ is
answered from the semantics; the default run, explore's outcome set and check's outcome set are
compared with that answer (and explore's set with check's)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ir
from engines.check import check
from engines.errors import EvaluationError
from engines.explore import explore
from engines.framework import Bounds
from engines.runtime import Program
from ir.errors import LoweringError
from tests.engines.runtime.answers import (
    Answer,
    assert_default_run,
    assert_every_outcome,
    outcomes,
    program,
)

MODELS = Path(__file__).resolve().parent / "control"



def _program(model: str) -> Program:
    return program(MODELS, model)


ANSWERS = [
    # Class 2: statements after a named accept run once the message is taken.
    Answer("receiver_then", "receiver::Receive", {"got": "7", "ok": "true"},
           outcomes({"got": "7", "ok": "true"})),
    # Each pass of the loop takes one command: 5 and 3 add to the speed, 0 stops the loop.
    Answer("controller_commands", "controller::Controller",
           {"speed": "8", "running": "false", "handled": "3"},
           outcomes({"speed": "8", "running": "false", "handled": "3"})),
    # A change trigger, a port and a time trigger, each with statements after it.
    Answer("triggers_then", "triggers::Watch",
           {"alarm": "true", "got": "11", "level": "9", "timedOut": "true"},
           outcomes({"alarm": "true", "got": "11", "level": "9", "timedOut": "true"})),
    # An absolute instant (`accept at 6`) between two relative waits: the gate reads the fuel of the
    # first fill only (it waited for a message that never comes, a deadlock, before `at` was a time).
    Answer("fuel_deadline", "fueling::Launch", {"fuel": "2", "checked": "1"},
           outcomes({"fuel": "2", "checked": "1"})),
    # Class 10: a terminate in one fork branch ends the whole action wherever the other branch stands.
    # Before a pass, between a pass's two writes, between passes, after the loop:
    Answer("booking_race", "booking::Booking", {"free": "0", "sold": "2", "closed": "true"},
           outcomes(*({"free": f, "sold": s, "closed": "true"}
                       for f, s in (("2", "0"), ("1", "0"), ("1", "1"), ("0", "1"), ("0", "2"))))),
    # The default round moves the cancel branch first: the terminate drops the sales at their first.
    Answer("ticket_desk", "desk::Desk", {"sold": "0", "cancelled": "true"},
           outcomes(*({"sold": str(n), "cancelled": "true"} for n in range(4)))),
    # A terminate action usage: its body may run before its implicit terminate or not at all.
    Answer("launch_abort", "launch::Launch", {"countdown": "3", "aborted": "true"},
           outcomes(*({"countdown": str(n), "aborted": a} for n in range(4) for a in ("true", "false")))),
    # Class 11: each pass of a loop is a performance a sibling branch can observe.
    Answer("batch_monitor", "batches::Batches", {"processed": "60", "batches": "3", "alarm": "60"},
           outcomes(*({"processed": "60", "batches": "3", "alarm": a} for a in ("30", "60")))),
    Answer("progress_reader", "progress::Progress", {"count": "3", "seen": "0"},
           outcomes(*({"count": "3", "seen": str(n)} for n in range(4)))),
    # A node a loop comes back to without a merge is performed once per pass.
    Answer("poll_loop_back", "polling::Poll", {"polls": "3", "seen": "0"},
           outcomes(*({"polls": "3", "seen": str(n)} for n in range(4)))),
    # Two loops hand items over: the producer sends 1, 2, 3, each pass waiting for the consumer's "ok"
    # (a String its Integer accept never takes); the consumer's passes take each item and answer, until
    # acc = 123. The successions order each pass, the handshake orders the passes: one outcome. A
    # stepping round in which both loops only paused again at their accepts, one having sent, was
    # taken for a deadlock.
    Answer("handshake_loops", "pipe::Pipe", {"acc": "123", "acks": "3"}, outcomes({"acc": "123", "acks": "3"})),
    # The statements of a loop pass or a branch are unordered as a node body's are (the oracle's
    # "Direct statements of one body ..."), but a declaration keeps its place. Stage: a pass's add
    # reads the buffer before or after the pass's item lands: each pass adds x or the item before it
    # (0, 1, 2), so 0|1 + 1|2 + 2|3. Dispatch: `before` is an initial value, taken as the branch
    # starts (0), and the log reads the grant (4) before or after it is made (the peer takes `before`
    # at its place in a branch, 44, but at the start in a node body: ours is the start in both).
    # Worker: what is written after the accept starts once the job is taken.
    Answer("unordered_bodies", "bodies::Stage", {"buffer": "3", "total": "6"},
           outcomes(*({"buffer": "3", "total": str(n)} for n in (3, 4, 5, 6)))),
    Answer("unordered_bodies", "bodies::Dispatch", {"granted": "4", "log": "4"},
           outcomes({"granted": "4", "log": "0"}, {"granted": "4", "log": "4"})),
    Answer("unordered_bodies", "bodies::Worker", {"work": "5", "jobs": "1"}, outcomes({"work": "5", "jobs": "1"})),
    Answer("warmup_until", "warmup::Warmup", {"temp": "21", "gauge": "15"},
           outcomes(*({"temp": "21", "gauge": str(g)} for g in (15, 17, 19, 21)))),
    # `while c { ... } until u;`: u after each pass, then c. Fill stops at 6 (a fine run once ignored
    # the until: 12), the gauge reading 0, 3 or 6; Stop counts to 1, 2 or 3 as the flag is raised.
    Answer("while_until", "filling::Fill", {"level": "6", "passes": "2", "gauge": "0"},
           outcomes(*({"level": "6", "passes": "2", "gauge": g} for g in ("0", "3", "6")))),
    Answer("while_until", "filling::Stop", {"n": "1", "stop": "true"},
           outcomes(*({"n": n, "stop": "true"} for n in ("1", "2", "3")))),
    # A terminate in an `if` inside a loop ends the action (or node) the loop is part of, the pass
    # written with `then` or not: the default run once ended only such a pass and counted to 10.
    Answer("terminate_in_loop", "stopping::Counter", {"n": "3", "m": "0"}, outcomes({"n": "3", "m": "0"})),
    Answer("terminate_in_loop", "stopping::Shift", {"shifts": "2", "reported": "true"},
           outcomes({"shifts": "2", "reported": "true"})),
    # A step no succession reaches is performed beside a `first start;` flow (it was never started):
    # the posting reads the rate before or after the update.
    Answer("beside_first", "audit::Ledger", {"rate": "5", "posted": "6"},
           outcomes(*({"rate": "5", "posted": p} for p in ("1", "6")))),
    Answer("beside_first", "audit::Closing", {"rate": "5", "posted": "6"},
           outcomes(*({"rate": "5", "posted": p} for p in ("1", "6")))),
    # `then X;` right after a succession continues from its target (it made a cycle from the last step
    # declared before it, and the step never ran).
    Answer("then_after_succession", "pipeline::Scale", {"x": "4"}, outcomes({"x": "4"})),
    Answer("then_after_succession", "pipeline::Stage", {"x": "20"}, outcomes({"x": "20"})),
    Answer("then_after_succession", "pipeline::Join", {"x": "14"}, outcomes({"x": "14"})),
    # A fork inside a loop's pass or an `if` branch runs its branches there (a fine run left the pass
    # as the fork's token went, so explore and check saw no branch run: 0 where 33 is meant).
    Answer("fork_in_block", "blocks::Pipeline", {"checks": "3", "processed": "6"},
           outcomes({"checks": "3", "processed": "6"})),
    # the default policy takes the latest token first (bob doubles 0, then alice adds 1)
    Answer("fork_in_block", "blocks::Gate", {"open": "true", "sold": "1"},
           outcomes(*({"open": "true", "sold": s} for s in ("1", "2")))),
    Answer("fork_in_block", "blocks::Average", {"total": "33"}, outcomes({"total": "33"})),
    Answer("fork_in_block", "blocks::Ticker", {"n": "2", "total": "10"}, outcomes({"n": "2", "total": "10"})),
    # A step's out parameter read by its path from a racing branch: no value before the step starts or
    # before it writes, 42 after. The reduced check once took the read and the step as independent and
    # reached 42 alone; the default run reports first (the latest token first), reading no value.
    Answer("path_read_race", "dispatch::Dispatch", {"reading": "<unset>"},
           outcomes({"reading": "<unset>"}, {"reading": "42"})),
    # The same in a loop pass and an `if` branch: the path once named no step there ("unknown name").
    Answer("path_read_race", "dispatch::Rounds", {"last": "<unset>"},
           outcomes({"last": "<unset>"}, {"last": "20"})),
    Answer("path_read_race", "dispatch::Settled", {"last": "20"}, outcomes({"last": "20"})),
    Answer("path_read_race", "dispatch::Panel", {"shown": "<unset>"},
           outcomes({"shown": "<unset>"}, {"shown": "7"})),
    # Two steps deep, before either is performed or with the outer one started and the inner not begun:
    # no value at every level (the default run failed: "cannot read 'x' of <unset>", "'outer' holds no
    # feature 'inner'").
    Answer("path_two_levels", "pmin::Two", {"seen": "<unset>"}, outcomes({"seen": "<unset>"})),
    Answer("path_two_levels", "pmid::Mid", {"seen": "<unset>"}, outcomes({"seen": "<unset>"})),
    # A repeated step's fan-in with its ends' multiplicities written (a syntax error before).
    Answer("pack_ends", "pack::Pack", {"boxes": "3", "weight": "12"}, outcomes({"boxes": "3", "weight": "12"})),
    # A message sent to a step is for the accepts within its performance (the desk once waited forever).
    Answer("addressed_steps", "addressed::Desk", {"free": "5", "last": "2"},
           outcomes({"free": "5", "last": "2"}, {"free": "5", "last": "3"})),
    Answer("addressed_steps", "addressed::Counter", {"free": "5", "last": "2"},
           outcomes({"free": "5", "last": "2"}, {"free": "5", "last": "3"})),
    # Waits for time in a step's body keep their place on the one clock (the default run read 0).
    Answer("timed_branches", "timers::Alarms", {"who": "5", "rings": "2"}, outcomes({"who": "5", "rings": "2"})),
    Answer("timed_branches", "timers::Poll", {"seen": "8", "level": "4"}, outcomes({"seen": "8", "level": "4"})),
    Answer("timed_branches", "timers::Kettle", {"seen": "20", "temp": "100"},
           outcomes({"seen": "20", "temp": "100"}, {"seen": "100", "temp": "100"})),
    Answer("timed_branches", "timers::OrderedKettle", {"seen": "20", "temp": "100"},
           outcomes({"seen": "20", "temp": "100"})),
    # A branch in a loop pass: the default run adds first (the latest token first) each odd pass.
    Answer("branch_in_pass", "passes::Branchy", {"total": "1"},
           outcomes(*({"total": t} for t in ("1", "2", "3", "4")))),
    Answer("branch_in_pass", "passes::Restock", {"stock": "3"},
           outcomes(*({"stock": s} for s in ("3", "4", "5", "6")))),
]


@pytest.mark.parametrize("answer", ANSWERS, ids=[a.action for a in ANSWERS])
def test_default_run_gives_the_answer(answer: Answer) -> None:
    assert_default_run(MODELS, answer)


@pytest.mark.parametrize("answer", ANSWERS, ids=[a.action for a in ANSWERS])
def test_explore_and_check_reach_exactly_the_answer(answer: Answer) -> None:
    assert_every_outcome(MODELS, answer, reductions=(True, False))


def test_a_terminate_names_the_tokens_it_drops() -> None:
    run = _program("ticket_desk").start_action("desk::Desk")
    lines = run.run_to_end()
    assert "terminate action Desk: dropped token 2@s1" in lines
    assert lines[-1] == "step 4: no active tokens"


def test_a_terminate_ends_a_branch_in_the_middle_of_a_loop() -> None:
    """Step by step under a fine run: the terminate taken between a pass's two writes leaves a seat
    taken and not yet sold, and nothing moves after it."""
    run = _program("booking_race").start_action("booking::Booking", fine=True)

    def take(label: str) -> None:
        move = next(m for m in run.enabled_moves() if m.at == label)
        run.apply(move)

    for label in ("start", "split", "closer", "seller", "while", "assign free", "terminate"):
        take(label)
    assert run.finished and run.status == "completed"
    assert {k: run.outputs()[k] for k in ("free", "sold", "closed")} == {"free": "1", "sold": "0", "closed": "true"}
    assert run.enabled_moves() == []


def test_a_for_loop_over_a_scalar_fails_in_a_fine_run_too() -> None:
    program = Program(ir.resolve([ir.parse(
        "package p { action A { attribute n : Integer := 0; attribute x : Integer := 3;"
        " first start; then fork f; then a; then b;"
        " action a { for i in x { assign n := n + i; } } action b { assign x := 4; } } }", "p.sysml")]))
    explored = explore(program, "p::A", Bounds(runs=100))
    assert {o.error for o in explored.outcomes} == {"'for' iterates a collection, and an Integer is not one"}


def test_accept_at_a_duration_is_a_run_error_naming_accept_after() -> None:
    """`accept at` names an instant; `5 [s]` is a duration, refused as a machine's transition refuses it."""
    text = (MODELS / "fuel_deadline.sysml").read_text(encoding="utf-8").replace("accept at 6;", "accept at 6 [s];")
    program = Program(ir.resolve([ir.parse(text, "fuel.sysml")]))
    explored = explore(program, "fueling::Launch", Bounds(runs=100))
    assert {o.error for o in explored.outcomes} == {
        "'accept at' takes a time instant, got the duration 6 [s] (write 'accept after' for a time after entry)"}


def test_an_operator_over_a_path_read_before_its_write_fails_on_some_schedule() -> None:
    """`sense.level * 2` before sense has written its level is an operator over no value: a run error
    the reduced check finds (it once ordered the read after the step), its witness replayed."""
    checked = check(_program("path_read_race"), "dispatch::Scaled", Bounds())
    assert [v.kind for v in checked.violations] == ["fails"]
    assert "Null" in checked.violations[0].text
    assert "'sense.level' holds no value here" in checked.violations[0].text  # the operand named
    assert {dict(o.values)["reading"] for o in checked.outcomes} == {"84"}


def test_a_message_sent_to_a_step_no_accept_is_within_is_not_taken() -> None:
    """Misrouted: the message goes to the clerk, the desk's accept is not within it: every schedule
    deadlocks with the desk waiting, and the check says so with a witness."""
    checked = check(_program("addressed_steps"), "addressed::Misrouted", Bounds())
    assert {v.kind for v in checked.violations} == {"deadlock"}
    explored = explore(_program("addressed_steps"), "addressed::Misrouted", Bounds(runs=100))
    assert explored.outcomes and all(o.error is not None and "deadlock" in o.error and "@one" in o.error
                                 for o in explored.outcomes)



DESK = """package desk {
    private import ScalarValues::*;
    attribute def Order { attribute qty : Integer; }
    action def Desk {
        attribute units : Integer := 0;
        attribute orders : Integer := 0;
        first start;
        then fork f;
        then customer; then clerk;
        action customer { send new Order(qty = 2) to clerk; then send new Order(qty = 3) to clerk; }
        action clerk {
            while orders < 2 {
                accept o : Order;
                assign orders := orders + 1;
                assign units := units + o.qty;
                then assign orders := orders;
            }
        }
        first customer then j; first clerk then j;
        join j;
        then done;
    }
}"""


def test_an_accepts_payload_read_before_a_message_is_taken_holds_no_value() -> None:
    """Nothing orders `assign units := units + o.qty` after `accept o : Order` in the pass, so it may read
    `o` before a message is taken: no value there, an operator over it a run error naming `o.qty` (it
    said "unknown name 'o'", as if the model named nothing); taken first, the units add up to 5."""
    prog = Program(ir.resolve([ir.parse(DESK, "desk.sysml")]))
    checked = check(prog, "desk::Desk", Bounds())
    failures = {v.text for v in checked.violations if v.kind == "fails"}
    assert failures and all("'o.qty' holds no value here" in f and "unknown name" not in f for f in failures)
    assert {dict(o.values)["units"] for o in checked.outcomes if o.error is None} == {"5"}


def test_a_plain_succession_next_to_a_repeated_step_is_refused_with_the_ends_to_write() -> None:
    """`then action seal` right after `pack[3]`: the end at pack is unwritten, which KerML leaves open
    (KERML-29) and the oracle refuses ("Repeated action steps and shared writes"); it ran as a fan-in."""
    plain = (MODELS / "pack_ends.sysml").read_text(encoding="utf-8").replace(
        "succession first [*] pack then [1] seal;", "succession first pack then seal;")
    prog = Program(ir.resolve([ir.parse(plain, "pack.sysml")]))
    with pytest.raises(LoweringError, match=r"action-step-order-unsatisfiable: the succession from pack to seal "
                                            r"writes no multiplicity at the end of pack, a step of 3 performances"
                                            r".*Write the ends: succession first \[\*\] pack then \[1\] seal;"):
        check(prog, "pack::Pack", Bounds())
    assert check(_program("pack_ends"), "pack::Pack", Bounds()).outcomes  # written, it runs


@pytest.mark.parametrize(("flow", "refusal", "line"), [
    # a join with two ways out (the peer refuses it too)
    ("first start; then fork f; then a; then b; action a; action b; succession a then j; succession b then j;\n"
     "join j; succession j then c; succession j then done; action c;",
     "join j has 2 outgoing successions; a join node has at most one (SysML v2); follow the join with a fork", 2),
    ("first start; then fork f; then a; then b; action a; action b; succession a then m; succession b then m;\n"
     "merge m; succession m then c; succession m then done; action c;",
     "merge m has 2 outgoing successions", 2),
    ("first start; then fork f; then a; then b; action a; action b; succession a then g;\n"
     "succession b then g; fork g; then done;",
     "fork g has 2 incoming successions; a fork node has at most one (SysML v2); join or merge", 2),
    ("first start; then fork f; then a; then b; action a; action b; succession a then d;\n"
     "succession b then d; decide d; if true then done; else done;",
     "decision d has 2 incoming successions; a decision node has at most one (SysML v2); merge the", 2),
])
def test_a_control_node_with_two_successions_where_one_is_allowed_is_refused(flow: str, refusal: str,
                                                                            line: int) -> None:
    """SysML v2 allows a join and a merge one succession out, a fork and a decision one in; two are refused
    where the second is written, with what to write instead (a join with two ways out ran as a fork, a
    decision with two ways in as a join)."""
    text = "package p {\naction A {\n" + flow + "\n}\n}"
    prog = Program(ir.resolve([ir.parse(text, "control.sysml")]))
    with pytest.raises(LoweringError, match=re.escape("action-control-node-successions: " + refusal)) as refused:
        check(prog, "p::A", Bounds())
    assert refused.value.line == line + 2  # the package and action lines come first


def test_a_copy_of_no_value_into_a_feature_of_multiplicity_one_fails_naming_what_held_none() -> None:
    """The oracle: an order before the producing step reads the unset output and fails. `reading` declared
    with no multiplicity holds exactly one value, so the default run (the latest token first: the read
    before `sense` writes) fails naming the path; declared `[0..1]` it holds none (the answers above)."""
    text = (MODELS / "path_read_race.sysml").read_text(encoding="utf-8").replace("Integer[0..1]", "Integer")
    run = Program(ir.resolve([ir.parse(text, "path_read_race.sysml")])).start_action("dispatch::Dispatch")
    with pytest.raises(EvaluationError, match=r"^assign reading: 'sense\.level' holds no value here \(not yet "
                       r"written, or its step not yet performed\)"):
        run.run_to_end()


def test_a_for_loop_over_a_range_longer_than_python_counts_walks_until_a_bound() -> None:
    """A `for` standing in the flow over `x..2` with x far below -2^63 (generated graphs drive x there by
    repeated products): the range is walked lazily, a pass a move, until the check's depth bound; before,
    the interpreter counted it with len(), which Python refuses past 2^63, and the check died."""
    program = Program(ir.resolve([ir.parse(
        "package big { private import ScalarValues::*; action def A { attribute x : Integer := "
        "-10000000000000000000000; attribute s : Integer := 0; first start; then for i in x..2 { "
        "assign s := s + 1; } then done; } }", "big.sysml")]))
    result = check(program, "big::A", Bounds(depth=40, states=1_000), flat=False)
    assert result.stats.states == 41 and [b.name for b in result.bounds if b.reached] == ["depth"]
