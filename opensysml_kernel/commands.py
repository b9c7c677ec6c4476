"""The `%` command table: parse a line, call the Session, return a Result."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ir.errors import SysmlError
from opensysml_kernel.cells import CommandLine, split_cell
from opensysml_kernel.errors import RunFailedError, UnknownCommandError, UsageError
from opensysml_kernel.results import Result, Table, Tone

if TYPE_CHECKING:
    from opensysml_kernel.session import Progress, Session

Handler = Callable[["Session", list[str]], Result]


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
        return [f"✓ Action {progress.subject} completed", *(f"  {path} = {value}" for path, value in progress.outputs)]
    return []


def _run_result(session: Session, progress: Progress, head: Sequence[str] = ()) -> Result:
    lines = [*head, *session.filter_trace(progress.lines), *_finish(progress)]
    tone = Tone.COMPLETED if progress.status == "completed" else Tone.STARTED if head else Tone.PAUSED
    return Result.of(lines, tone, status=progress.status, step=progress.step, outputs=dict(progress.outputs))


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
    return Result.of([], table=Table(("kind", "name", "where"), rows))


def _clear(session: Session, args: list[str]) -> Result:
    _no_args("clear", args)
    session.clear()
    return Result.of(["session cleared"])


def _action(session: Session, args: list[str]) -> Result:
    if not 1 <= len(args) <= 2:
        raise UsageError("%action needs an action name and at most one object", COMMANDS["action"].usage)
    progress = session.start_action(args[0], args[1] if len(args) == 2 else None)
    by = f" performed by {args[1]}" if len(args) == 2 else ""
    head = f"▶ Action {progress.subject}{by} started (schedule {session.schedule})"
    result = _run_result(session, progress, [head])
    tokens = [str(token) for token in session.tokens()] or ["no active tokens"]
    return Result.of([*result.lines, *tokens], result.tone, **result.data)


def _step(session: Session, args: list[str]) -> Result:
    usage = COMMANDS["step"].usage
    if len(args) > 1:
        raise UsageError("%step takes at most one number", usage)
    count = 1
    if args:
        if not args[0].isdigit() or int(args[0]) < 1:
            raise UsageError(f"%step needs a positive number of steps, not '{args[0]}'", usage)
        count = int(args[0])
    return _run_result(session, session.step(count))


def _continue(session: Session, args: list[str]) -> Result:
    _no_args("continue", args)
    return _run_result(session, session.continue_run())


def _tokens(session: Session, args: list[str]) -> Result:
    _no_args("tokens", args)
    tokens = session.tokens()
    return Result.of([str(token) for token in tokens] or ["no active tokens"])


def _trace(session: Session, args: list[str]) -> Result:
    if args:
        if len(args) > 1 or args[0] not in ("on", "off"):
            raise UsageError("%trace takes on or off", COMMANDS["trace"].usage)
        session.trace = args[0] == "on"
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


def _help(session: Session, args: list[str]) -> Result:
    if len(args) > 1:
        raise UsageError("%help takes at most one command name", COMMANDS["help"].usage)
    if args:
        command = lookup(args[0])
        return Result.of([f"usage: {command.usage}", f"  {command.help}", f"example: {command.example}"])
    rows = tuple((c.usage, c.help) for c in COMMANDS.values())
    return Result.of(["commands (%help <command> for one, with an example):"], table=Table(("command", "what it does"), rows))


COMMANDS: dict[str, Command] = {c.name: c for c in (
    Command("load", _load, "%load <file|glob>...", "submit SysML files (globs expanded), all or nothing",
            "%load examples/heater.sysml"),
    Command("list", _list, "%list", "list the declarations: kind, qualified name, where", "%list"),
    Command("clear", _clear, "%clear", "drop every declaration and the run (settings stay)", "%clear"),
    Command("action", _action, "%action <qualified name> [<object>]",
            "start a stepping run of the action (performed by the object if given)", "%action heater::Warmup"),
    Command("step", _step, "%step [n]", "advance the run one step, or n steps; prints what moved", "%step 2"),
    Command("continue", _continue, "%continue", "run to completion or to a runtime error", "%continue"),
    Command("tokens", _tokens, "%tokens", "where the run's tokens are", "%tokens"),
    Command("trace", _trace, "%trace [on|off]",
            "show every trace line with each step; no argument: the setting and the run's trace so far", "%trace on"),
    Command("schedule", _schedule, "%schedule [reverse|declared|seed:<n>]",
            "the policy of runs started from now on; no argument: the current one", "%schedule seed:7"),
    Command("help", _help, "%help [command]", "the commands, or one command's usage with an example", "%help step"),
)}


def lookup(name: str) -> Command:
    """The command `name` (with or without its `%`), or an UnknownCommandError naming close ones."""
    bare = name.removeprefix("%")
    command = COMMANDS.get(bare)
    if command is None:
        raise UnknownCommandError(bare, COMMANDS)
    return command


def execute(session: Session, line: str) -> Result:
    """Carry out one command line such as `%step 2`."""
    try:
        words = shlex.split(line.strip())
    except ValueError as error:
        raise UsageError(f"cannot split '{line.strip()}': {error}", "%<command> [arguments]") from None
    if not words or not words[0].startswith("%"):
        raise UsageError(f"'{line.strip()}' is not a command", "%<command> [arguments] (%help lists them)")
    return lookup(words[0]).handler(session, words[1:])


def execute_cell(session: Session, text: str, path: str) -> Iterator[Result]:
    """Each command's and submission's Result in order; on bad input, restore the session and raise.

    A run that fails at runtime is an outcome, not bad input: the session keeps it to inspect.
    """
    before = session.snapshot()
    try:
        for chunk in split_cell(text):
            if isinstance(chunk, CommandLine):
                yield execute(session, chunk.text)
            else:
                yield session.submit(chunk.text, path)
    except RunFailedError:
        raise
    except SysmlError:
        session.restore(before)
        raise
