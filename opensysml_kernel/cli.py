"""The `opensysml-kernel` command line: install the kernelspec, start the REPL, run an action."""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, cast

from engines.framework import names as engine_names
from engines.runtime.watch import process_started
from ir.errors import SysmlError
from opensysml_kernel import __version__
from opensysml_kernel.errors import RunFailedError, UsageError
from opensysml_kernel.session import Session

# What only `check`, `replay` or a machine's `run` use is imported in the function that uses it: a
# one-leaf `run` pays for the parser, the runtime and the session, not for the checking engines'
# reports, the machines' environment or the REPL.
if TYPE_CHECKING:
    from opensysml_kernel.checking import CheckSettings
    from opensysml_kernel.machine_checks import Environment
    from opensysml_kernel.machines import Driven
    from opensysml_kernel.reports import CheckReport

EXIT_COMPLETED = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


class ArgumentsRefused(Exception):
    """A command line argparse refuses: what is wrong, and the usage of the command it was for."""

    def __init__(self, message: str, usage: str, prog: str) -> None:
        super().__init__(message)
        self.usage = usage
        self.prog = prog


class Parser(argparse.ArgumentParser):
    """Refusals raised, not printed, so that `main` says them as text or, under --json, as a JSON document."""

    def error(self, message: str) -> NoReturn:
        raise ArgumentsRefused(message, self.format_usage().strip(), self.prog)


def _load(session: Session, files: list[str]) -> None:
    """Submit the files; what the submission notes (notation outside SysML v2, a unit no import names, a
    redeclaration) goes to stderr (stdout stays the command's answer, JSON included)."""
    for line in session.load(files).lines:
        if line.startswith("note: "):
            print(line, file=sys.stderr)


def _refused(refusal: ArgumentsRefused, as_json: bool) -> int:
    """A command line refused: argparse's usage and error on stderr, or one JSON error document."""
    if as_json:
        usage = " ".join(refusal.usage.removeprefix("usage: ").split())
        print(json.dumps({"status": "error", "exit": EXIT_BAD_INPUT, "error": f"{refusal.prog}: {refusal}",
                          "usage": usage}, indent=2, ensure_ascii=False))
    else:
        print(f"{refusal.usage}\n{refusal.prog}: error: {refusal}", file=sys.stderr)
    return EXIT_BAD_INPUT


class _InOrder(argparse.Action):
    """`--send` and `--advance` of `run`, each kept (appended to its own list) and in the order given
    (`steps`: the environment acts in that order)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        getattr(namespace, self.dest).append(values)
        steps = getattr(namespace, "steps", None) or []
        steps.append((self.dest, values))
        namespace.steps = steps


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="opensysml-kernel", description="Run and step SysML v2 actions.")
    parser.add_argument("--version", action="version", version=f"opensysml-kernel {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="{install,repl,run,check,replay}")

    install = commands.add_parser("install", help="register the Jupyter kernelspec 'opensysml'")
    where = install.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="for the current user (the default)")
    where.add_argument("--sys-prefix", action="store_true", help="in this Python's environment")
    where.add_argument("--prefix", metavar="DIR", help="under DIR/share/jupyter/kernels")
    install.add_argument("--json", action="store_true", help="print one JSON document instead of text")

    repl = commands.add_parser("repl", help="the terminal REPL")
    repl.add_argument("files", nargs="*", metavar="FILE", help="SysML files to load first")

    run = commands.add_parser("run", help="run an action or a state machine to completion under one schedule")
    run.add_argument("files", nargs="+", metavar="FILE", help="SysML files (globs allowed)")
    subject = run.add_mutually_exclusive_group(required=True)
    subject.add_argument("--action", metavar="NAME", help="the action (qualified, or unique unqualified)")
    subject.add_argument("--state", metavar="NAME", help="the state machine (qualified, or unique unqualified)")
    subject.add_argument("--instantiate", metavar="PART", help="a part (definition or usage) materialized with its"
                         " parts: the actions they perform run, the machines they exhibit started")
    run.add_argument("--on", metavar="PART", help="the part usage that performs the action (qualified, or unique)")
    run.add_argument("--send", action=_InOrder, default=[], metavar="EVENT",
                     help="an event the environment sends the machine, in order: Go, Set(speed=3), 'Go to station'"
                     " (an instance's object); repeatable, and taken in turn with --advance")
    run.add_argument("--events", metavar="FILE", help="a JSON list of events (the corpus's `events` field)")
    run.add_argument("--advance", action=_InOrder, default=[], metavar="T",
                     help="let T of time pass (seconds, or 5 [s], 300 ms): timers due fire; repeatable, in turn with"
                     " --send (`--send Go --advance 5 --send Stop`)")
    run.add_argument("--schedule", metavar="P", default="reverse", help="reverse (default), declared or seed:<n>")
    run.add_argument("--trace", action="store_true", help="print the whole trace before the result")
    run.add_argument("--json", action="store_true", help="print one JSON document instead of text")

    check = commands.add_parser("check", help="check actions over every schedule (exit 0 holds, 1 violation or"
                                " divergence, 2 undecided or bad input)")
    check.add_argument("files", nargs="+", metavar="FILE", help="SysML files (globs allowed)")
    check.add_argument("--action", action="append", default=[], metavar="NAME", help="an action to check; repeatable")
    check.add_argument("--state", action="append", default=[], metavar="NAME",
                       help="a state machine to check, driven by the environment below; repeatable")
    check.add_argument("--instantiate", action="append", default=[], metavar="PART",
                       help="a part whose instance to check: the machines its objects exhibit and the actions they"
                       " perform, on one clock, driven by the environment below; repeatable")
    check.add_argument("--send", action="append", default=[], metavar="EVENT",
                       help="an event the environment sends, in order, at any point between the machine's moves;"
                       " repeatable")
    check.add_argument("--events", metavar="FILE", help="a JSON list of events the environment sends (the corpus's"
                       " `events` field), before the --send ones")
    check.add_argument("--advance", action="append", default=[], metavar="T",
                       help="the time horizon: timers due after T never fire (once)")
    check.add_argument("--alphabet", metavar="SIG,SIG", help="the environment may send any of these, in any order")
    check.add_argument("--max-events", metavar="N", help="how many events of the --alphabet it may send in all")
    check.add_argument("--on", metavar="PART", help="the part usage that performs the actions (qualified, or unique)")
    check.add_argument("--engine", choices=(*engine_names(), "all"), default="check",
                       help="check (default), explore, or all side by side")
    check.add_argument("--property", action="append", default=[], metavar="NAME",
                       help="a constraint or requirement evaluated at every stable state; repeatable")
    check.add_argument("--diverge", action="append", metavar="FEATURE",
                       help="a feature whose final value must not depend on the schedule; repeatable"
                       " (absent: every attribute of the action)")
    check.add_argument("--input", action="append", default=[], metavar="FEATURE",
                       help="smt: leave the feature free in its declared domain; repeatable")
    check.add_argument("--assume", action="append", default=[], metavar="CONSTRAINT",
                       help="smt: assume the constraint over the initial state; repeatable")
    check.add_argument("--depth", type=int, metavar="N", help="moves per schedule (smt: k)")
    check.add_argument("--unroll", type=int, metavar="L", help="smt: body loops unrolled L times")
    check.add_argument("--solver-timeout", metavar="D", help="smt: time per solver query, e.g. 10s")
    check.add_argument("--induction", action="store_true", help="smt: try an unbounded proof by k-induction")
    check.add_argument("--states", type=int, metavar="N", help="distinct states")
    check.add_argument("--timeout", metavar="D", help="wall-clock bound, e.g. 10s or 500ms")
    check.add_argument("--memory", metavar="M", help="resident-memory bound, e.g. 2G or 500M (default: half"
                       " the machine's memory); reaching it stops with the partial report")
    check.add_argument("--workers", type=int, metavar="N",
                       help="the check partitioned over N Ray workers (pip install -e '.[ray]'): the same report")
    check.add_argument("--ray", metavar="ADDRESS", help="join the Ray cluster at ADDRESS for --workers (else $RAY_ADDRESS,"
                       " else Ray started here)")
    check.add_argument("--witness-dir", metavar="DIR", help="write each witness as DIR/<action>-<n>.witness")
    check.add_argument("--json", action="store_true", help="print one JSON document instead of text")

    replay = commands.add_parser("replay", help="replay a witness move by move (exit 0 completed, 1 the witness's"
                                 " violation reproduced, 2 refused or bad input)")
    replay.add_argument("files", nargs="+", metavar="FILE", help="SysML files (globs allowed)")
    replay.add_argument("--witness", required=True, metavar="W", help="the witness file")
    replay.add_argument("--action", metavar="NAME", help="the action the witness is of (default: the one it names)")
    replay.add_argument("--state", metavar="NAME", help="the state machine the witness is of (its environment's"
                        " sends are the witness's own)")
    replay.add_argument("--instantiate", metavar="PART", help="the part whose instance the witness is of (its"
                        " environment's sends are the witness's own)")
    replay.add_argument("--on", metavar="PART", help="the part usage the checked run was performed on"
                        " (default: the one the witness names)")
    replay.add_argument("--trace", action="store_true", help="print the trace of every move")
    replay.add_argument("--json", action="store_true", help="print one JSON document: the replayed run (its"
                        " outputs, trace and whether the witness's claim was reproduced)")
    return parser


def _install(args: argparse.Namespace) -> int:
    from opensysml_kernel.install import KERNEL_NAME, install

    prefix = sys.prefix if args.sys_prefix else args.prefix
    try:
        directory = install(user=prefix is None, prefix=prefix)
    except OSError as error:
        said = f"error: cannot install the kernelspec: {error}"
        if args.json:
            print(json.dumps({"status": "error", "exit": EXIT_BAD_INPUT, "error": said}, indent=2))
        else:
            print(said, file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        print(json.dumps({"status": "installed", "exit": 0, "kernel": KERNEL_NAME, "directory": str(directory)},
                         indent=2, ensure_ascii=False))
    else:
        print(f"installed kernelspec '{KERNEL_NAME}' in {directory}")
    return 0


def _repl(args: argparse.Namespace) -> int:
    from opensysml_kernel.repl import Repl

    repl = Repl()
    if args.files:
        try:
            _load(repl.session, args.files)
        except SysmlError as error:
            print(error, file=sys.stderr)
            return EXIT_BAD_INPUT
    repl.loop()
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.state is not None or args.instantiate is not None:
        return _run_driven(args)
    if args.send or args.events or args.advance:
        print("--send, --events and --advance drive a state machine: use them with --state or --instantiate",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    session = Session()
    session.trace = True
    subject, status, code, error = args.action, "error", EXIT_BAD_INPUT, None
    head: list[str] = []
    broken: tuple[str, ...] = ()
    try:
        _load(session, args.files)
        session.set_schedule(args.schedule)
        subject = session.start_action(args.action, args.on).subject
        progress = session.continue_run()
        broken = progress.broken
        status, code = "completed", EXIT_FAILED if broken else EXIT_COMPLETED
        head = progress.completed_lines()
    except RunFailedError as failure:
        status, code, error = "failed", EXIT_FAILED, str(failure.cause)
        head = [str(failure)]
    except SysmlError as bad:
        error = str(bad)
        print(error, file=sys.stderr)
    trace = session.full_trace()
    _print_run(args, {"status": status, "exit": code, "subject": subject, "outputs": session.outputs(),
                      "violations": list(broken), "error": error, "trace": trace}, trace, head)
    return code


def _print_run(args: argparse.Namespace, document: dict[str, object], trace: list[str], head: list[str]) -> None:
    """A run's result: its JSON document under --json, else its head lines (after the trace under --trace)."""
    if args.json:
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return
    lines = [*trace, *head] if args.trace else head
    if lines:
        print("\n".join(lines))


def _run_driven(args: argparse.Namespace) -> int:
    """`run FILE (--state M [--on P] | --instantiate P) [--send E]... [--events F] [--advance T]`: the
    machine (or the instance's machines), its events in the pool in the order given (--events first),
    run until it rests, then the time given passes."""
    from engines.runtime.states import EnvEvent, parse_send, split_target
    from engines.runtime.states import parse_duration as parse_time
    from opensysml_kernel.machines import InstanceStepping, read_events

    session = Session()
    subject, status, code, error = args.state or args.instantiate, "error", EXIT_BAD_INPUT, None
    driven: Driven | None = None
    head: list[str] = []
    try:
        if args.instantiate is not None and args.on is not None:
            raise UsageError("--on names the part that performs an action or exhibits a machine; --instantiate"
                             " takes the part itself", "--instantiate PART")
        _load(session, args.files)
        session.set_schedule(args.schedule)
        driven = session.start_machine(args.state, args.on) if args.state else session.instantiate(args.instantiate)
        subject = driven.subject
        events = read_events(args.events) if args.events else []
        # the --events list first, then each --send and --advance in the order given: a send queues its
        # event, an advance lets the machine rest with what was sent so far and then time pass
        steps: list[tuple[EnvEvent, str | None] | Fraction] = [(e, None) for e in events]
        for kind, text in getattr(args, "steps", None) or []:
            if kind == "send":
                event_text, target = split_target(str(text))
                steps.append((parse_send(event_text), target))
            else:
                steps.append(parse_time(str(text)))
        for step in steps:
            if isinstance(step, Fraction):
                session.debugger.continue_run()
                session.debugger.advance(step)
            else:
                session.debugger.send(*step)
        session.debugger.continue_run()
        broken = _broken(driven)
        status, code = "completed", EXIT_FAILED if broken else EXIT_COMPLETED
        head = _driven_lines(driven)
        if broken:
            head[0] = "✗" + head[0].removeprefix("✓")
            head += [f"  violation: {name} (asserted) was false where a performance of its behavior ended"
                     for name in broken]
    except RunFailedError as failure:
        status, code, error = "failed", EXIT_FAILED, str(failure.cause)
        head = [str(failure)]
    except SysmlError as bad:
        error = str(bad)
        print(error, file=sys.stderr)
    trace = list(driven.trace) if driven is not None else []
    document: dict[str, object] = {"status": status, "exit": code, "subject": subject,
                                   "outputs": driven.outputs() if driven is not None else {}}
    if args.instantiate is not None:
        document["objects"] = driven.object_documents() if isinstance(driven, InstanceStepping) else []
        document["waiting"] = driven.waiting_actions() if isinstance(driven, InstanceStepping) else []
    else:
        # a machine that terminated has no configuration left: null, not an empty state name
        document["finalState"] = (driven.final_state() or None) if driven is not None else None
        document["stateVisits"] = driven.visits() if driven is not None else []
        document["terminated"] = driven is not None and driven.status == "terminated"
    if args.state is not None or args.instantiate is not None:
        document["violations"] = list(_broken(driven)) if driven is not None and status == "completed" else []
    document.update({"error": error, "trace": trace})
    _print_run(args, document, trace, head)
    return code


def _broken(driven: Driven) -> tuple[str, ...]:
    """The assertions of a machine's entry, do and exit behaviors its run found false where one ended;
    of an instance, its machines' and its performed actions' steps'."""
    holder = getattr(driven, "run", None) or getattr(driven, "world", None)
    broken: tuple[str, ...] = getattr(holder, "broken_assertions", ())
    return broken


def _driven_lines(driven: Driven) -> list[str]:
    """A machine's final configuration, visits and values; an instance's, object by object."""
    from opensysml_kernel.machines import InstanceStepping

    if isinstance(driven, InstanceStepping):
        lines = [f"✓ Instance of {driven.subject}"]
        for obj in driven.object_documents():
            lines.append(f"  {obj['path'] or driven.subject.rsplit('::', 1)[-1]}: {obj['finalState'] or '(no active state)'}")
            lines.append(f"    visits: {', '.join(obj['stateVisits'])}")
            lines += [f"    {k} = {v}" for k, v in obj["slots"].items()]
        shown = {f"{o['path']}.{k}" if o["path"] else k for o in driven.object_documents() for k in o["slots"]}
        lines += [f"  {k} = {v}" for k, v in driven.outputs().items() if k not in shown]
        lines += [f"  waiting {'for time' if 'until t=' in w else 'at an accept'}: {w}" for w in driven.waiting_actions()]
        return lines
    ended = "(terminated)" if driven.status == "terminated" else "(no active state)"
    return [f"✓ State machine {driven.subject}: {driven.final_state() or ended}",
            f"  visits: {', '.join(driven.visits())}", *(f"  {k} = {v}" for k, v in driven.outputs().items())]


def _check_settings(args: argparse.Namespace) -> CheckSettings:
    from engines.runtime.watch import parse_bytes
    from opensysml_kernel.checking import CheckSettings, parse_duration

    for name in ("depth", "states", "unroll", "workers"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"--{name} needs a positive whole number, not {value}",
                             "--depth N --states N --unroll L --workers N")
    if args.ray is not None:
        if args.workers is None:
            raise UsageError("--ray joins a Ray cluster for the parallel search: give --workers N too", "--workers 2 --ray ADDRESS")
        os.environ["RAY_ADDRESS"] = args.ray
    timeout = None
    if args.timeout is not None:
        try:
            timeout = parse_duration(args.timeout)
        except ValueError as error:
            raise UsageError(str(error), "--timeout 10s") from None
    solver_timeout = None
    if args.solver_timeout is not None:
        try:
            solver_timeout = parse_duration(args.solver_timeout)
        except ValueError as error:
            raise UsageError(str(error), "--solver-timeout 10s") from None
    memory = None
    if args.memory is not None:
        try:
            memory = parse_bytes(args.memory)
        except ValueError as error:
            raise UsageError(str(error), "--memory 2G") from None
    return CheckSettings(args.engine, tuple(args.property), tuple(args.diverge) if args.diverge else None,
                         args.witness_dir, args.depth, args.states, timeout, memory, tuple(args.input),
                         tuple(args.assume), args.unroll, solver_timeout, args.induction, args.workers)


def _check(args: argparse.Namespace) -> int:
    from engines.runtime.watch import command_deadline
    from opensysml_kernel.checking import deterministic, refuse_unread
    from opensysml_kernel.reports import check_document

    session = Session()
    if sys.stderr.isatty() and not deterministic():
        from rich.console import Console

        from opensysml_kernel.progress import TerminalProgress

        console = Console(stderr=True)
        session.progress_sink = lambda: TerminalProgress(console)
    reports: list[CheckReport] = []
    errors: list[str] = []
    try:
        session.settings = _check_settings(args)
        _load(session, args.files)
        if len(session.settings.engines()) == 1:
            refuse_unread(session.settings, session.settings.engines()[0])
    except SysmlError as bad:
        errors.append(str(bad))
        print(errors[-1], file=sys.stderr)
    environment = None
    if not errors:
        try:
            environment = _environment(args)
        except SysmlError as bad:
            errors.append(str(bad))
            print(errors[-1], file=sys.stderr)
    if not errors:
        # Each behavior gets its own report: one that cannot be checked loses none of the others'.
        timeout = session.settings.timeout
        asks: list[tuple[str, Callable[[], CheckReport]]] = [
            *((action, functools.partial(session.check, action, args.on)) for action in args.action),
            *((state, functools.partial(session.check_state, state, environment)) for state in args.state),
            *((part, functools.partial(session.check_state, part, environment, part=True))
              for part in args.instantiate)]
        for action, ask in asks:
            try:
                with command_deadline(args.started + timeout if timeout is not None else None):
                    report = ask()
            except SysmlError as bad:
                errors.append(str(bad))
                print(errors[-1], file=sys.stderr)
                continue
            except Exception as crash:  # a bug: said, and the other actions are still checked
                errors.append(f"internal error while checking {action}: {type(crash).__name__}: {crash}"
                              " (a bug in opensysml-kernel: please report it with the model)")
                print(errors[-1], file=sys.stderr)
                continue
            reports.append(report)
            if not args.json:
                print(report.text, flush=True)
    document = check_document(reports, "\n".join(errors) if errors else None)
    if args.json:
        print(json.dumps(document, indent=2, ensure_ascii=False))
    code: int = document["exit"]
    return code


def _environment(args: argparse.Namespace) -> Environment:
    """The environment of the machines checked; refused with actions alone, which no event drives."""
    from opensysml_kernel.machine_checks import Environment

    given = [name for name in ("send", "events", "advance", "alphabet", "max_events") if getattr(args, name)]
    if not args.action and not args.state and not args.instantiate:
        raise UsageError("check needs a behavior: --action NAME, --state NAME or --instantiate PART (repeatable)",
                         "check model.sysml --state Plant::Controller --send Go")
    if args.on is not None and not args.action:
        raise UsageError("--on names the part that performs the actions checked (--action); a machine is named by"
                         " --state, a part's instance by --instantiate PART itself", "check FILE --action NAME --on PART")
    if given and not args.state and not args.instantiate:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise UsageError(f"{flags} drive a state machine: use them with --state or --instantiate",
                         "check FILE --state NAME --send Go")
    if len(args.advance) > 1:
        # a check ranges over every point the sends may come at: time has one horizon, not steps
        raise UsageError(f"check takes one --advance, the horizon timers fire up to (given {len(args.advance)}: "
                         f"{', '.join(args.advance)}); `run` takes them in turn with --send",
                         "check FILE --state NAME --send Go --advance 30")
    return Environment.of(args.send, args.events, args.advance[0] if args.advance else None, args.alphabet,
                          args.max_events)


def _replay_document(args: argparse.Namespace, lines: list[str], code: int, **fields: object) -> int:
    """A replay's answer: its lines (the refusal on stderr), or under --json one document with them."""
    error = fields.get("error")
    if args.json:
        status = {EXIT_COMPLETED: "completed", EXIT_FAILED: "reproduced"}.get(code, "refused")
        document = {"status": status, "exit": code, "witness": args.witness, **fields, "lines": lines}
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return code
    if lines:
        print("\n".join(lines))
    if error is not None:
        print(error, file=sys.stderr)
    return code


def _replay_state(args: argparse.Namespace) -> int:
    """`replay FILE --witness W (--state M | --instantiate P)`: the machine (or the instance) with the
    witness's sends, move by move."""
    from engines.check.machine import replay_machine, unreproduced_machine
    from engines.errors import ClaimNotReproduced
    from engines.witness import parse_witness

    session = Session()
    subject = args.state if args.state is not None else args.instantiate
    what = "State machine" if args.state is not None else "Instance"
    try:
        _load(session, args.files)
        try:
            text = Path(args.witness).read_text(encoding="utf-8")
        except OSError as err:
            raise UsageError(f"--witness {args.witness}: {err.strerror or err}", "replay FILE --witness W --state M") from None
        witness = parse_witness(text, args.witness)
        program = session.program()
        held = program.model.element(witness.behavior)
        kind = held.base_kind if held is not None else None
        if kind in ("state", "part") and (kind == "part") != (args.instantiate is not None):
            flag = "--instantiate" if kind == "part" else "--state"
            what = "the instance of part" if kind == "part" else "state machine"
            raise UsageError(f"--witness {args.witness} is a witness of {what} {witness.behavior}: replay it with"
                             f" {flag} {witness.behavior}", f"replay FILE --witness W {flag} {witness.behavior}")
        run = replay_machine(program, witness, subject, args.witness)
        found = unreproduced_machine(program, run, witness)
        if found is not None:
            raise ClaimNotReproduced(f"replay refused: {args.witness}: {found}")
    except SysmlError as bad:
        return _replay_document(args, [], EXIT_BAD_INPUT, subject=subject, reproduced=False, error=str(bad))
    trace = list(run.world.trace.lines)
    lines = list(trace) if args.trace else []
    values = [f"  {path} = {value}" for path, value in run.outputs().items()]
    moves = len(run.moves_taken)
    if witness.ending:
        lines.append(f"✗ {what} {witness.behavior}: witness reproduced after {moves} moves: {witness.ending}")
    else:
        lines.append(f"✓ {what} {witness.behavior}: replayed {moves} moves")
    code = EXIT_FAILED if witness.ending else EXIT_COMPLETED
    return _replay_document(args, [*lines, *values], code, subject=witness.behavior,
                            claims=[c.line() for c in witness.claims], reproduced=True, moves=moves,
                            outputs=run.outputs(), trace=trace, error=None)


def _replay(args: argparse.Namespace) -> int:
    from engines.errors import ClaimNotReproduced
    from engines.runtime import Run
    from engines.witness import unreproduced

    if args.state is not None or args.instantiate is not None:
        return _replay_state(args)
    session = Session()
    session.trace = args.trace
    lines: list[str] = []
    failure: RunFailedError | None = None
    subject = args.action
    claims: list[str] = []
    try:
        _load(session, args.files)
        # `last` or a number would name a witness of the session's last check: here it is always a file.
        target = os.path.join(".", args.witness) if args.witness == "last" or args.witness.isdigit() else args.witness
        replay = session.install_replay(target)
        assert replay is not None
        witness = replay.plan.witness
        claims = [c.line() for c in witness.claims]
        subject = session.start_action(args.action or witness.behavior, args.on).subject
        lines.append(f"▶ Action {subject}: replaying {replay.describe()}")
        try:
            progress = session.continue_run()
            lines.extend(session.filter_trace(progress.lines))
        except RunFailedError as failed:
            failure = failed
            lines.extend(failed.lines)
        assert session.run is not None
        found = unreproduced(session.program(), cast(Run, session.run), witness)  # a witness is of an action run
        if found is not None:
            raise ClaimNotReproduced(f"replay refused: {replay.plan.name}: {found}")
    except SysmlError as bad:
        run = session.run
        return _replay_document(args, lines, EXIT_BAD_INPUT, subject=subject, claims=claims, reproduced=False,
                                moves=len(run.moves_taken) if run is not None else 0,
                                outputs=session.outputs() if run is not None else {},
                                trace=session.full_trace() if run is not None else [], error=str(bad))
    values = [f"  {path} = {value}" for path, value in session.outputs().items()]
    code = EXIT_FAILED if witness.ending else EXIT_COMPLETED
    if failure is not None:
        lines.append(str(failure))
    elif progress.stopped is not None and progress.stopped.startswith("✗"):
        lines.append(progress.stopped)
    elif witness.ending:
        lines.extend([f"✗ Action {subject}: witness reproduced after {progress.step} moves: {witness.ending}",
                      *values])
    else:
        lines.extend([f"✓ Action {subject} completed after {progress.step} moves", *values])
    moves = len(session.run.moves_taken) if session.run is not None else 0
    return _replay_document(args, lines, code, subject=subject, claims=claims, reproduced=True, moves=moves,
                            outputs=session.outputs(), trace=session.full_trace(), error=None)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (0 completed/holds, 1 run failed/violation/divergent,
    2 undecided or bad input)."""
    # The command's clock, which --timeout counts on: from the process's start when this is the command
    # line itself (imports, the grammar and loading the model count), else from this call.
    started = process_started() if argv is None else time.monotonic()
    parser = _parser()
    words = list(argv) if argv is not None else sys.argv[1:]
    try:
        args = parser.parse_args(words)
    except ArgumentsRefused as refusal:
        return _refused(refusal, "--json" in words)
    args.started = started
    handlers = {"install": _install, "repl": _repl, "run": _run, "check": _check, "replay": _replay}
    if args.command not in handlers:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        code = handlers[args.command](args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left (`| head`): no traceback, and no second error when Python flushes at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    except RecursionError:
        print("error: the model nests deeper than this tool can follow; split the deepest expression or "
              "nesting into named parts", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as error:  # a bug of ours: never exit 1, which means "violation found"
        print(f"internal error: {type(error).__name__}: {error}\nThis is a bug of opensysml-kernel; please report "
              f"it with the model and the command line.", file=sys.stderr)
        return EXIT_BAD_INPUT
    return code
