"""The check settings as commands: `%check-property`, `-diverge`, `-input`, `-assume` (lists of names),
`%check-witness`, `%check-bounds`; `%settings`, every setting a session holds as its command shows it;
`%uncheck`, one removed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engines.runtime.watch import parse_bytes
from opensysml_kernel.checking import CheckSettings, parse_duration
from opensysml_kernel.errors import UsageError
from opensysml_kernel.results import Result

if TYPE_CHECKING:
    from opensysml_kernel.session import Session

# A setting that is a list of names: (its field, what it is when off, how it says off).
NAMES = {
    "check-property": ("properties", (), "off"),
    "check-diverge": ("diverge", None, "off (every attribute of the action)"),
    "check-input": ("inputs", (), "off (the inputs the model binds)"),
    "check-assume": ("assumptions", (), "off"),
}


def _usage(command: str) -> str:
    from opensysml_kernel.commands import COMMANDS  # the table names every command's usage

    return COMMANDS[command].usage


def _names_setting(session: Session, args: list[str], command: str) -> Result:
    """A check setting that is a list of names: set (each once, in order), `off`, `--clear` (every name,
    or the names given), or shown."""
    field, off, _ = NAMES[command]
    if args == ["off"] or args == ["--clear"]:
        session.settings = session.settings.with_(**{field: off})
    elif args and args[0] == "--clear":
        _remove(session, command, args[1:])
    elif args:
        session.settings = session.settings.with_(**{field: tuple(dict.fromkeys(args))})
    return Result.of([_shown(session, command)])


def _shown(session: Session, command: str) -> str:
    field, off, off_text = NAMES[command]
    names = getattr(session.settings, field)
    return f"{command} " + (", ".join(names) if names != off else off_text)


def _same(given: str, name: str) -> bool:
    """`NeverNegative` removes `tank::NeverNegative` and the other way round."""
    return given == name or name.endswith("::" + given) or given.endswith("::" + name)


def _remove(session: Session, command: str, names: Sequence[str]) -> None:
    field, off, _ = NAMES[command]
    held = tuple(getattr(session.settings, field) or ())
    for name in names:
        if not any(_same(name, h) for h in held):
            shown = ", ".join(held) or "none"
            raise UsageError(f"{name} is not in %{command} (it holds {shown})", _usage(command))
    left = tuple(h for h in held if not any(_same(name, h) for name in names))
    session.settings = session.settings.with_(**{field: left if left or off is not None else None})


def check_property(session: Session, args: list[str]) -> Result:
    return _names_setting(session, args, "check-property")


def check_diverge(session: Session, args: list[str]) -> Result:
    return _names_setting(session, args, "check-diverge")


def check_input(session: Session, args: list[str]) -> Result:
    return _names_setting(session, args, "check-input")


def check_assume(session: Session, args: list[str]) -> Result:
    return _names_setting(session, args, "check-assume")


def check_witness(session: Session, args: list[str]) -> Result:
    if len(args) > 1:
        raise UsageError("%check-witness takes one directory or off", _usage("check-witness"))
    if args:
        session.settings = session.settings.with_(witness_dir=None if args[0] == "off" else args[0])
    directory = session.settings.witness_dir
    return Result.of([f"check-witness {directory}" if directory else "check-witness off"])


def check_bounds(session: Session, args: list[str]) -> Result:
    usage = _usage("check-bounds")
    if args == ["off"]:
        session.settings = session.settings.with_(depth=None, states=None, timeout=None, memory=None, unroll=None,
                                                  solver_timeout=None, induction=False, workers=None)
    elif args:
        changes: dict[str, int | float | bool] = {}
        for arg in args:
            key, sep, value = arg.partition("=")
            if not sep or key not in ("depth", "states", "timeout", "memory", "unroll", "solver", "induction",
                                      "workers"):
                raise UsageError(f"'{arg}' is not a bound: depth=N, states=N, timeout=D, memory=M, unroll=N,"
                                 " solver=D, induction=on|off or workers=N", usage)
            if key == "induction":
                if value not in ("on", "off"):
                    raise UsageError(f"induction is on or off, not '{value}'", usage)
                changes[key] = value == "on"
            elif key in ("timeout", "memory", "solver"):
                try:
                    changes["solver_timeout" if key == "solver" else key] = (
                        parse_bytes(value) if key == "memory" else parse_duration(value))
                except ValueError as error:
                    raise UsageError(str(error), usage) from None
            elif value.isdigit() and int(value) > 0:
                changes[key] = int(value)
            else:
                raise UsageError(f"{key} needs a positive whole number, not '{value}'", usage)
        session.settings = session.settings.with_(**changes)
    return Result.of(["check-bounds " + " ".join(session.settings.bounds_lines())])


# The settings %uncheck resets by name, to what a new session has.
RESETS = ("engine", "check-property", "check-diverge", "check-input", "check-assume", "check-witness",
          "check-bounds")


def settings_command(session: Session, args: list[str]) -> Result:
    """Every setting the session holds, each as its own command shows it."""
    if args:
        raise UsageError("%settings takes no arguments", _usage("settings"))
    from opensysml_kernel.commands import execute_quiet

    lines: list[str] = []
    for command in ("engine", "schedule", "trace", "debug", "replay", "breaks", "check-property", "check-diverge",
                    "check-input", "check-assume", "check-witness", "check-bounds"):
        lines.extend(execute_quiet(session, command))
    lines.extend(session.environment.describe())
    return Result.of(lines)


def uncheck_command(session: Session, args: list[str]) -> Result:
    """Remove a property (or a diverge feature, input, assumption) from the setting that holds it, or reset
    a setting named by its command to what a new session has."""
    if not args:
        raise UsageError("%uncheck needs a property, feature or setting to remove", _usage("uncheck"))
    shown: list[str] = []
    default = CheckSettings()
    for name in args:
        command = name.removeprefix("%")
        if command in RESETS:
            field = "engine" if command == "engine" else NAMES[command][0] if command in NAMES else None
            if command == "check-witness":
                session.settings = session.settings.with_(witness_dir=None)
            elif command == "check-bounds":
                session.settings = session.settings.with_(depth=None, states=None, timeout=None, memory=None,
                                                          unroll=None, solver_timeout=None, induction=False,
                                                          workers=None)
            else:
                assert field is not None
                session.settings = session.settings.with_(**{field: getattr(default, field)})
            shown.append(command)
            continue
        holders = [c for c, (field, _, _) in NAMES.items()
                   if any(_same(name, h) for h in getattr(session.settings, field) or ())]
        if not holders:
            raise UsageError(f"'{name}' is in no setting: %settings shows what is set", _usage("uncheck"))
        for command in holders:
            _remove(session, command, [name])
            shown.append(command)
    from opensysml_kernel.commands import execute_quiet

    lines = [line for command in dict.fromkeys(shown) for line in execute_quiet(session, command)]
    return Result.of(lines)
