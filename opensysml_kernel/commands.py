"""The `%` command table: parse a line, call the Session, return a Result."""

from __future__ import annotations

import re
import shlex
import traceback
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from engines.check.machine import is_part
from engines.runtime.states import parse_addressed, split_target
from engines.runtime.states import parse_duration as parse_time
from ir.errors import SysmlError
from opensysml_kernel.cells import CommandLine, split_cell
from opensysml_kernel.checking import engine_choices, engine_rows
from opensysml_kernel.diagrams import show_command
from opensysml_kernel.errors import CellInterrupted, InternalError, UnknownCommandError, UsageError
from opensysml_kernel.figures import configuration_figure
from opensysml_kernel.machine_checks import Environment, parse_count
from opensysml_kernel.machines import RESTING, read_events
from opensysml_kernel.results import Result, Table, Tone
from opensysml_kernel.settings import (
    check_assume,
    check_bounds,
    check_diverge,
    check_input,
    check_property,
    check_witness,
    settings_command,
    uncheck_command,
)

if TYPE_CHECKING:
    from opensysml_kernel.machines import Driven
    from opensysml_kernel.session import Progress, Session

Handler = Callable[["Session", list[str]], Result]
_CHANGED = re.compile(r"  \S+: .* → ")  # a value a replayed move changed


@dataclass(frozen=True)
class Command:
    """One `%` command: what runs it, how it is called, what it does in a line, and an example."""

    name: str
    handler: Handler
    usage: str
    help: str
    example: str


def _no_args(name: str, args: Sequence[str]) -> None:
    if args:
        raise UsageError(f"%{name} takes no arguments", COMMANDS[name].usage)


# ---------------------------------------------------------------- rendering of runs


def _finish(progress: Progress) -> list[str]:
    if progress.status == "completed":
        return progress.completed_lines()
    return []


def _run_result(session: Session, progress: Progress, head: Sequence[str] = ()) -> Result:
    stopped = [progress.stopped] if progress.stopped else []
    lines = [*head, *session.filter_trace(progress.lines), *_finish(progress), *stopped]
    tone = Tone.COMPLETED if progress.status == "completed" else Tone.STARTED if head else Tone.PAUSED
    if (progress.stopped and progress.stopped.startswith("✗")) or progress.broken:
        tone = Tone.FAILED
    return Result.of(lines, tone, status=progress.status, step=progress.step, outputs=dict(progress.outputs))


def _with_tokens(session: Session, result: Result) -> Result:
    if session.run is not None and session.run.finished:
        return result
    tokens = [str(token) for token in session.tokens()] or ["no active tokens"]
    return Result.of([*result.lines, *tokens], result.tone, **result.data)


def _count(name: str, args: Sequence[str], what: str) -> int:
    usage = COMMANDS[name].usage
    if len(args) > 1:
        raise UsageError(f"%{name} takes at most one number", usage)
    if not args:
        return 1
    if not args[0].isdigit() or int(args[0]) < 1:
        raise UsageError(f"%{name} needs a positive number of {what}, not '{args[0]}'", usage)
    return int(args[0])


# ---------------------------------------------------------------- handlers


def _load(session: Session, args: list[str]) -> Result:
    if not args:
        raise UsageError("%load needs at least one file or glob", COMMANDS["load"].usage)
    return session.load(args)


def _list(session: Session, args: list[str]) -> Result:
    _no_args("list", args)
    declarations = session.declarations()
    if not declarations:
        return Result.of(["no declarations"])
    rows = tuple((d.kind, d.qualified_name, f"{d.path}:{d.line}") for d in declarations)
    return Result.of([], table=Table(("kind", "name", "where"), rows, mono=(1, 2)))


def _clear(session: Session, args: list[str]) -> Result:
    _no_args("clear", args)
    session.clear()
    return Result.of(["session cleared"])


def _action(session: Session, args: list[str]) -> Result:
    if len(args) == 3 and args[1] == "on":
        args = [args[0], args[2]]  # `%action prime on pump`
    if not 1 <= len(args) <= 2 or args[-1] == "on":
        raise UsageError("%action needs an action name and at most one part (`on <part>`)", COMMANDS["action"].usage)
    performer = args[1] if len(args) == 2 else None
    notes: tuple[str, ...] = ()
    if session.replay is None and session.settings.engines():
        settings, notes = session.applying(args[0], performer)
        if settings.engines():
            return session.check(args[0], performer, settings, notes)
        # under auto, properties that do not apply were the only check setting: a stepping run, said so
    replay = session.replay
    progress = session.start_action(args[0], performer)
    by = f" performed by {performer}" if performer else ""
    how = f"replaying {replay.describe()}" if replay is not None else f"schedule {session.schedule}"
    head = f"▶ Action {progress.subject}{by} started ({how})"
    return _with_tokens(session, _run_result(session, progress, [head, *(f"  {note}" for note in notes)]))


# ---------------------------------------------------------------- state machines


def _machine_trace(session: Session, lines: Sequence[str]) -> list[str]:
    """All of `lines` with trace on; with it off, what the machine did (moves, enter, exit,
    transition, choice lines), not the statements and evaluations of its bodies."""
    if session.trace:
        return list(lines)
    return [line for line in lines if not line.startswith((" ", "stmt ", "eval ")) or _CHANGED.match(line)]


def _machine_result(session: Session, machine: Driven, lines: Sequence[str], tone: Tone = Tone.PAUSED,
                    stopped: str | None = None) -> Result:
    """The lines, where the run stopped early, then where it stands (`● free+closed at t=0.0`)."""
    if machine.finished:
        tone = Tone.FAILED if machine.status == "failed" else Tone.COMPLETED
    out = [*lines, *(stopped.splitlines() if stopped else []), machine.where()]
    return Result.of(out, tone, figure=configuration_figure(machine), status=machine.status,
                     finalState=machine.final_state(), stateVisits=machine.visits(), outputs=machine.outputs())


def _on_part(name: str, args: list[str]) -> list[str]:
    if len(args) == 3 and args[1] == "on":
        args = [args[0], args[2]]  # `%state Controller on plant`
    if not 1 <= len(args) <= 2 or args[-1] == "on":
        raise UsageError(f"%{name} needs a name and at most one part (`on <part>`)", COMMANDS[name].usage)
    return args


def _state(session: Session, args: list[str]) -> Result:
    args = _on_part("state", args)
    if session.replay is None and _checking(session):
        if len(args) == 2:
            raise UsageError("a machine check drives the machine itself (its environment is what %send and %events"
                             " queued): `on <part>` is for a stepping run", COMMANDS["state"].usage)
        return session.check_state(args[0], applying_only=True)
    replay = session.replay
    machine = session.start_machine(args[0], args[1] if len(args) == 2 else None)
    how = f"replaying {replay.describe()}" if machine.fine and replay is not None else f"schedule {session.schedule}"
    head = f"▶ State machine {machine.subject} started ({how})"
    tree = [f"{'  ' * depth}{name}" for depth, name in machine.configuration()]
    return _machine_result(session, machine, [head, *tree], Tone.STARTED)


def _instantiate(session: Session, args: list[str]) -> Result:
    if len(args) != 1:
        raise UsageError("%instantiate needs one part (definition or usage)", COMMANDS["instantiate"].usage)
    if session.replay is None and _checking(session):
        return session.check_state(session.part_name(args[0]), applying_only=True, part=True)
    replay = session.replay
    instance = session.instantiate(args[0])
    how = f"replaying {replay.describe()}" if instance.fine and replay is not None else f"schedule {session.schedule}"
    head = f"▶ Instance of {instance.subject} started ({how})"
    lines = [head, *_machine_trace(session, instance.trace), *instance.current()]
    return _machine_result(session, instance, lines, Tone.STARTED)


def _checking(session: Session) -> bool:
    """Under a checking engine, %send, %events and %advance shape the environment of a machine check."""
    return bool(session.settings.engines())


def _send(session: Session, args: list[str]) -> Result:
    if not args:
        raise UsageError("%send needs a signal, e.g. %send Go or %send Set(speed=3)", COMMANDS["send"].usage)
    if _checking(session):
        env = session.environment
        session.environment = replace(env, events=(*env.events, parse_addressed(" ".join(args))))
        return Result.of([*session.environment.describe(),
                          "%state <machine> or %instantiate <part> checks it against them"], Tone.PAUSED)
    text, target = split_target(" ".join(args))
    if text == "to" or text.endswith(" to"):
        raise UsageError("%send <signal> to <target>: both are needed", COMMANDS["send"].usage)
    event = session.send(text, target)
    machine = session.machine
    assert machine is not None, "a send needs a machine"
    pool = ", ".join(machine.pool())
    return Result.of([f"sent {event.text()} (pool: {pool}); %continue or %step dispatches it"], Tone.PAUSED)


def _advance(session: Session, args: list[str]) -> Result:
    if not args:
        raise UsageError("%advance needs a duration, e.g. %advance 5 or %advance 500 ms", COMMANDS["advance"].usage)
    if _checking(session):
        session.environment = replace(session.environment, horizon=parse_time(" ".join(args)))
        if session.checked_machine is None:
            return Result.of(session.environment.describe(), Tone.PAUSED)
        part = is_part(session.program(), session.checked_machine)
        return session.check_state(session.checked_machine, applying_only=True, part=part)
    session.debugger.driven("advance")
    progress = session.advance(" ".join(args))
    machine = session.machine
    assert machine is not None, "an advance needs a machine"
    return _machine_result(session, machine, _machine_trace(session, progress.lines), stopped=progress.stopped)


def _current(session: Session, args: list[str]) -> Result:
    _no_args("current", args)
    machine = session.debugger.driven("current")
    return Result.of(machine.current(), Tone.PAUSED, figure=configuration_figure(machine),
                     finalState=machine.final_state())


def _events(session: Session, args: list[str]) -> Result:
    if _checking(session):
        env = session.environment
        if args == ["clear"]:
            env = Environment()
        elif len(args) == 3 and args[0] == "alphabet" and args[2].startswith("max="):
            env = replace(env, alphabet=Environment.of(alphabet=args[1], max_events=args[2][4:]).alphabet,
                          max_events=parse_count(args[2][4:]))
        elif len(args) == 1:
            env = replace(env, events=(*env.events, *read_events(args[0])))
        elif args:
            raise UsageError("under a checking engine: %events [FILE.json | alphabet Go,Stop max=N | clear]",
                             COMMANDS["events"].usage)
        session.environment = env
        return Result.of(env.describe(), Tone.PAUSED)
    _no_args("events", args)
    return Result.of(session.debugger.driven("events").events(), Tone.PAUSED)


def _moved(session: Session, machine: Driven, progress: Progress, asked: bool) -> Result:
    """A driven run's `%step`/`%continue`: the moves made; when none could be made and one was asked
    for, what the machine waits for."""
    lines = _machine_trace(session, progress.lines)
    if asked and progress.resting and not progress.lines:
        lines.append(RESTING)
    return _machine_result(session, machine, lines, stopped=progress.stopped)


def _step(session: Session, args: list[str]) -> Result:
    count = _count("step", args, "steps")
    progress = session.step(count)
    if session.machine is not None:
        return _moved(session, session.machine, progress, True)
    return _run_result(session, progress)


def _back(session: Session, args: list[str]) -> Result:
    progress = session.back(_count("back", args, "steps"))
    machine = session.machine
    if machine is not None:
        pool = ", ".join(machine.pool()) or "(empty)"
        lines = [*(progress.stopped.splitlines() if progress.stopped else []), *machine.current(), f"pool: {pool}"]
        return _machine_result(session, machine, lines)
    result = _run_result(session, progress)
    return _with_tokens(session, Result.of(result.lines, Tone.PAUSED, **result.data))


def _continue(session: Session, args: list[str]) -> Result:
    _no_args("continue", args)
    progress = session.continue_run()
    if session.machine is not None:
        return _moved(session, session.machine, progress, False)
    return _run_result(session, progress)


def _tokens(session: Session, args: list[str]) -> Result:
    _no_args("tokens", args)
    if session.machine is not None:
        return Result.of(session.machine.positions() or [f"no active state ({session.machine.status})"])
    tokens = session.tokens()
    return Result.of([str(token) for token in tokens] or ["no active tokens"])


def _on_off(command: str, args: list[str]) -> bool:
    """A setting's one argument, `on` or `off`."""
    if len(args) > 1 or args[0] not in ("on", "off"):
        raise UsageError(f"%{command} takes on or off", COMMANDS[command].usage)
    return args[0] == "on"


def _trace(session: Session, args: list[str]) -> Result:
    if args:
        session.trace = _on_off("trace", args)
        return Result.of([f"trace {args[0]}"])
    lines = [f"trace {'on' if session.trace else 'off'}"]
    if session.run is not None:
        lines.append(f"trace of {session.subject} so far:")
        lines.extend(f"  {line}" for line in session.full_trace())
    return Result.of(lines)


def _schedule(session: Session, args: list[str]) -> Result:
    if len(args) > 1:
        raise UsageError("%schedule takes one policy", COMMANDS["schedule"].usage)
    if args:
        session.set_schedule(args[0])
    return Result.of([f"schedule {session.schedule}"])


def _engine(session: Session, args: list[str]) -> Result:
    choices = engine_choices()
    if len(args) > 1 or (args and args[0] not in choices):
        raise UsageError(f"%engine takes one of {', '.join(choices)}", COMMANDS["engine"].usage)
    if args:
        session.settings = session.settings.with_(engine=args[0])
    settings = session.settings
    line = f"engine {settings.engine}"
    if settings.engine == "auto":
        asked = settings.engines()
        line += " (check: a check setting is set)" if asked else " (run: no check setting is set)"
    return Result.of([line])


def _engines(session: Session, args: list[str]) -> Result:
    _no_args("engines", args)
    return Result.of([], table=Table(("engine", "answers", "strength", "status"), tuple(engine_rows()), mono=(0,)))


def execute_quiet(session: Session, command: str) -> list[str]:
    """What `%command` with no argument says: the setting it holds."""
    return lookup(command).handler(session, []).text.splitlines()


def _replay(session: Session, args: list[str]) -> Result:
    if len(args) > 1:
        raise UsageError("%replay takes one witness file, last, a witness number or off", COMMANDS["replay"].usage)
    if args:
        installed = session.install_replay(args[0])
        if installed is None:
            return Result.of(["replay off"])
        kinds = {"state": "%state", "part": "%instantiate"}
        command = next((c for k, c in kinds.items() if installed.subject in session.model.behaviors(k)), "%action")
        follow = f"{command} {installed.subject}" if installed.subject else "the next %action"
        return Result.of([f"replay {installed.describe()}: {follow} follows it move by move"])
    replay = session.replay
    return Result.of([f"replay {replay.describe()}" if replay is not None else "replay off"])


def _break_spec(name: str, args: list[str]) -> str:
    """`j`, `state S`, `transition A -> B` (spelt `A->B`) or `transition <name>`, as a breakpoint names it."""
    usage = COMMANDS[name].usage
    if args and args[0] in ("state", "transition"):
        rest = "".join(args[1:]) if args[0] == "transition" else " ".join(args[1:])
        if not rest or (args[0] == "state" and len(args) != 2) or rest.startswith("->") or rest.endswith("->"):
            raise UsageError(f"%{name} {args[0]} needs a {args[0]} name"
                             + (" or source -> target" if args[0] == "transition" else ""), usage)
        return f"{args[0]} {rest}"
    if len(args) != 1:
        raise UsageError(f"%{name} takes one node name, state <name> or transition <name|source -> target>", usage)
    return args[0]


def _break(session: Session, args: list[str]) -> Result:
    return Result.of(session.add_break(_break_spec("break", args)))


def _unbreak(session: Session, args: list[str]) -> Result:
    return Result.of(session.remove_break(_break_spec("unbreak", args)))


def _breaks(session: Session, args: list[str]) -> Result:
    _no_args("breaks", args)
    if not session.breaks:
        return Result.of(["no breakpoints"])
    return Result.of([f"breakpoint {node}" for node in session.breaks])


def _debug(session: Session, args: list[str]) -> Result:
    if args:
        session.debug = _on_off("debug", args)
    return Result.of([f"debug {'on' if session.debug else 'off'}"])


def _help(session: Session, args: list[str]) -> Result:
    if len(args) > 1:
        raise UsageError("%help takes at most one command name", COMMANDS["help"].usage)
    if args:
        command = lookup(args[0])
        return Result.of([f"usage: {command.usage}", f"  {command.help}", f"example: {command.example}"])
    rows = tuple((c.usage, c.help) for c in COMMANDS.values())
    return Result.of(["commands (%help <command> for one, with an example):"], table=Table(("command", "what it does"), rows, mono=(0,)))


COMMANDS: dict[str, Command] = {c.name: c for c in (
    Command("load", _load, "%load <file|glob>...", "submit SysML files (globs expanded), all or nothing",
            "%load examples/heater.sysml"),
    Command("list", _list, "%list", "list the declarations: kind, qualified name, where", "%list"),
    Command("clear", _clear, "%clear", "drop every declaration and the run (settings stay)", "%clear"),
    Command("action", _action, "%action <qualified name> [on <part>]",
            "start a stepping run of the action (under a check engine: check it); with `on <part>`, performed by"
            " that part usage, which must perform it: `this.<feature>` and the part's features are the part's,"
            " reported as <part>.<feature>",
            "%action prime on Plant::pump"),
    Command("state", _state, "%state <qualified name> [on <part>]",
            "start a run of the state machine (its initial configuration entered); %send, %step, %continue, "
            "%advance, %back drive it", "%state Plant::Controller"),
    Command("send", _send, "%send <signal>[(p=value, ...)] [to <machine|object>]",
            "post an event to the machine's pool (arrival order; in an instance, the pools of the machines that"
            " accept it, or of the object named); %step or %continue dispatches it; %back takes it back",
            "%send Go(speed=3)"),
    Command("advance", _advance, "%advance <time>",
            "run what is due now, then let the time pass (seconds, 5 [s], 300 ms): the timers due fire",
            "%advance 5 [s]"),
    Command("instantiate", _instantiate, "%instantiate <part>",
            "materialize the part (definition or usage) with the parts it holds, run the actions they perform and"
            " start the machines they exhibit; %send ... to <object>, %step, %continue, %advance, %back drive them;"
            " under %engine check, every schedule of them and of the events %send and %events queued is checked",
            "%instantiate plant::Plant"),
    Command("current", _current, "%current", "the machine's active states (a tree, regions in order) and features",
            "%current"),
    Command("events", _events, "%events [FILE.json | alphabet Go,Stop max=N | clear]",
            "the machine's pool, deferred events, clock, timers and the messages in flight; under a checking"
            " engine, the environment a machine check sends (a corpus events file, an alphabet up to N events,"
            " or cleared)", "%events"),
    Command("step", _step, "%step [n]",
            "advance the run one step (one move, when replaying a witness; a machine's: one dispatch or do step),"
            " or n; stops at a breakpoint", "%step 2"),
    Command("continue", _continue, "%continue",
            "run to completion, a runtime error, a breakpoint, a deadlock or the end of the witness replayed",
            "%continue"),
    Command("back", _back, "%back [n]",
            "undo the last step (move, when replaying; a machine's move, event sent or time let pass), or n: the run"
            " is restored as it was before them; it then goes on exactly as before",
            "%back 2"),
    Command("break", _break, "%break <node> | state <state> | transition <name|source -> target>",
            "stop %continue and %step when a token arrives at the action node, when the machine enters or exits"
            " the state, or fires the transition", "%break state open"),
    Command("unbreak", _unbreak, "%unbreak <node|all> | state <state> | transition <name|source -> target>",
            "remove a breakpoint, or every one", "%unbreak all"),
    Command("breaks", _breaks, "%breaks", "list the breakpoints", "%breaks"),
    Command("engine", _engine, "%engine [run|explore|check|all|auto]",
            "what %action does: run starts a stepping run; explore and check answer over every schedule; all runs"
            " both side by side and flags a disagreement; auto checks once a %check- setting is set",
            "%engine check"),
    Command("engines", _engines, "%engines", "the engines: what each answers, its strength, its status",
            "%engines"),
    Command("check-property", check_property, "%check-property [<name>...|off|--clear [<name>...]]",
            "constraints/requirements the check engine evaluates at every stable state of the actions (and"
            " machines) whose features they read; for another one they are said not to apply",
            "%check-property demo::NeverEmpty"),
    Command("check-diverge", check_diverge, "%check-diverge [<feature>...|off|--clear [<feature>...]]",
            "features whose final value must not depend on the schedule (off: every attribute of the action)",
            "%check-diverge level"),
    Command("check-input", check_input, "%check-input [<feature>...|off]",
            "features the smt engine leaves free in their declared domains (off: the values the model binds;"
            " a feature with no value is free anyway)", "%check-input demand"),
    Command("check-assume", check_assume, "%check-assume [<constraint>...|off]",
            "constraints the smt engine assumes over the initial state", "%check-assume demo::SaneDemand"),
    Command("check-witness", check_witness, "%check-witness [<dir>|off]",
            "write each witness of the next checks as <dir>/<action>-<n>.witness", "%check-witness witnesses"),
    Command("check-bounds", check_bounds,
            "%check-bounds [depth=N] [states=N] [timeout=D] [memory=M] [unroll=N] [solver=D] [induction=on|off]"
            " [workers=N]"
            " | off",
            "the search's bounds (a timeout like 10s or 500ms, a memory like 2G: by default half the"
            " machine's; smt: depth is k, unroll the loop bound L, solver the time per query, induction=on tries"
            " an unbounded proof by k-induction; workers=N partitions the check over N Ray workers); no argument:"
            " each, (default) where unset",
            "%check-bounds depth=50 timeout=10s"),
    Command("show", show_command, "%show <action|machine> [witness <n>]",
            "draw the action's graph (a machine's states and transitions) as a diagram; after a check of the"
            " action, its witness's path on it: each move numbered on its edge, the failing node marked ✗",
            "%show Fill"),
    Command("settings", settings_command, "%settings", "every setting the session holds, each as its own command shows it",
            "%settings"),
    Command("uncheck", uncheck_command, "%uncheck <property|feature|setting>...",
            "remove a property (or a diverge feature, input, assumption) from the setting that holds it, or"
            " reset a setting (engine, check-property, check-bounds, ...) to what a new session has",
            "%uncheck demo::NeverEmpty"),
    Command("replay", _replay, "%replay [<witness file>|last|<n>|off]",
            "the next %action follows the witness move by move, driven by %step, %continue and %back; last"
            " (a violation's witness, else the first) or n names a witness of the last check",
            "%replay last"),
    Command("tokens", _tokens, "%tokens", "where the run's tokens are (a machine's: its active leaf states and do"
            " behaviors under way)", "%tokens"),
    Command("trace", _trace, "%trace [on|off]",
            "show every trace line with each step; no argument: the setting and the run's trace so far", "%trace on"),
    Command("schedule", _schedule, "%schedule [reverse|declared|seed:<n>]",
            "the policy of runs started from now on; no argument: the current one", "%schedule seed:7"),
    Command("debug", _debug, "%debug [on|off]",
            "show the Python traceback of an internal error (a bug of the tool, not of the model)", "%debug on"),
    Command("help", _help, "%help [command]", "the commands, or one command's usage with an example", "%help step"),
)}


def lookup(name: str) -> Command:
    """The command `name` (with or without its `%`), or an UnknownCommandError naming close ones."""
    bare = name.removeprefix("%")
    command = COMMANDS.get(bare)
    if command is None:
        raise UnknownCommandError(bare, COMMANDS)
    return command


@contextmanager
def _reported(session: Session, what: str) -> Iterator[None]:
    """Typed errors as they are; Ctrl-C and anything else (a bug) as a typed error too (inside the
    all-or-nothing scope, which then puts the session back: a `%debug on` earlier in the failing
    cell still shows the traceback, and is undone with the rest)."""
    try:
        yield
    except SysmlError:
        raise
    except KeyboardInterrupt:
        raise CellInterrupted(what) from None
    except Exception as error:
        shown = traceback.format_exception(error) if session.debug else ()
        raise InternalError(error, shown) from error


def execute(session: Session, line: str) -> Result:
    """Carry out one command line such as `%step 2`: it completes or changes nothing."""
    with session.atomic(), _reported(session, "the command"):
        return _dispatch(session, line)


def _dispatch(session: Session, line: str) -> Result:
    try:
        words = shlex.split(line.strip())
    except ValueError as error:
        raise UsageError(f"cannot split '{line.strip()}': {error}", "%<command> [arguments]") from None
    if not words or not words[0].startswith("%"):
        raise UsageError(f"'{line.strip()}' is not a command", "%<command> [arguments] (%help lists them)")
    return lookup(words[0]).handler(session, words[1:])


def execute_cell(session: Session, text: str, path: str | None = None) -> Generator[Result, None, None]:
    """Each command's and submission's Result in order (the SysML text submitted as `path`, by default
    the next `<cell n>`). All or nothing: on any failure the session is put back as it was before the
    cell and the failure raised (a typed error; Ctrl-C and a bug of the tool as typed errors too).

    A run that fails at runtime is an outcome, not bad input: the session keeps it, and the cell
    up to it, to inspect. A cell whose reader stops reading keeps what it did so far.
    """
    return _cell(session, text, path if path is not None else session.next_path())


def _cell(session: Session, text: str, path: str) -> Generator[Result, None, None]:
    with session.atomic(), _reported(session, "the cell"):
        for chunk in split_cell(text):
            if isinstance(chunk, CommandLine):
                yield _dispatch(session, chunk.text)
            else:
                yield session.submit(chunk.text, path)


def run_cell(session: Session, text: str, show: Callable[[Result], object], path: str | None = None) -> None:
    """Run a cell, showing each Result as it comes; a failure of `show` itself (Ctrl-C while the
    terminal prints) fails the cell like any other, so it too is undone."""
    results = execute_cell(session, text, path)
    for result in results:
        try:
            show(result)
        except BaseException as error:
            results.throw(error)
            raise
