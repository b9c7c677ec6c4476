"""What to offer at the cursor: `%` command names, every command's arguments (actions, machines,
parts, properties, features, witness files, load paths, engines, settings), and the model's qualified
names in SysML text."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from ir import syntax as s
from opensysml_kernel.checking import engine_choices
from opensysml_kernel.commands import COMMANDS
from opensysml_kernel.session import Session
from opensysml_kernel.settings import NAMES, RESETS

_WORD = re.compile(r"[%\w:-]*$")
_PATH = re.compile(r"\S*$")
_SETTINGS = {
    "trace": ["on", "off"],
    "debug": ["on", "off"],
    "schedule": ["reverse", "declared", "seed:"],
    "help": sorted(COMMANDS),
    "check-bounds": ["depth=", "states=", "timeout=", "memory=", "unroll=", "solver=", "induction=", "workers=", "off"],
}
PROPERTY_KINDS = ("constraint", "requirement", "calc")  # what %check-property names (engines.check.properties)
_FEATURE_KINDS = ("attribute", "feature", "item", "part", "ref", "port")
_PATH_COMMANDS = ("load", "replay", "check-witness", "events")


@dataclass(frozen=True)
class Completion:
    """The matches for the text from `start` to the cursor."""

    start: int
    matches: tuple[str, ...]


def _names(candidates: list[str], word: str) -> list[str]:
    """Qualified names that start with `word`, or whose last part does."""
    hits = [c for c in candidates if c.startswith(word)]
    hits += [c for c in candidates if c not in hits and "::" not in word and c.rsplit("::", 1)[-1].startswith(word)]
    return hits


def properties(session: Session) -> list[str]:
    """The constraints, requirements and Boolean calculations a check may evaluate."""
    return [el.qualified_name for el in session.model.walk()
            if el.base_kind in PROPERTY_KINDS and not el.name.startswith("$") and el.decl is not None]


def features(session: Session) -> list[str]:
    """The features of the model's actions and machines, by name (what --diverge and --input take)."""
    found: set[str] = set()
    for kind in ("action", "state"):
        for name in session.model.behaviors(kind):
            el = session.model.element(name)
            for member in el.members.values() if el is not None else ():
                if isinstance(member.decl, s.Usage) and member.decl.kind in _FEATURE_KINDS \
                        and not member.name.startswith("$"):
                    found.add(member.name)
    return sorted(found)


def paths(word: str, keep: Callable[[str], bool]) -> list[str]:
    """Files (those `keep` admits) and folders (with their `/`) whose path starts with `word`."""
    folder, _, prefix = word.rpartition("/")
    where = os.path.expanduser(folder or ".") if folder or not word.startswith("/") else "/"
    try:
        entries = sorted(os.listdir(where if folder else "."))
    except OSError:
        return []
    out = []
    for entry in entries:
        if not entry.startswith(prefix) or (entry.startswith(".") and not prefix.startswith(".")):
            continue
        shown = f"{folder}/{entry}" if folder else entry
        if os.path.isdir(os.path.join(where if folder else ".", entry)):
            out.append(shown + "/")
        elif keep(entry):
            out.append(shown)
    return out


def _witnesses(session: Session, word: str) -> list[str]:
    """`last`, `off`, the last check's witness numbers, and witness files (here and in %check-witness's folder)."""
    report = session.last_check
    count = len(report.checks[0].result.witnesses) if report is not None and report.checks else 0
    offered = ["last", "off", *(str(n) for n in range(1, count + 1))]
    hits = [o for o in offered if o.startswith(word)]
    hits += paths(word, lambda name: name.endswith(".witness"))
    folder = session.settings.witness_dir
    if folder and "/" not in word:  # the files the checks wrote, under their folder
        hits += [p for p in paths(f"{folder.rstrip('/')}/{word}", lambda name: name.endswith(".witness"))
                 if not p.endswith("/")]
    return list(dict.fromkeys(hits))


def _held(session: Session) -> list[str]:
    """What %uncheck removes: each name a setting holds, and the settings it resets."""
    held = [n for field, _, _ in NAMES.values() for n in getattr(session.settings, field) or ()]
    return [*dict.fromkeys(held), *RESETS]


def _arguments(session: Session, command: str, words: list[str], current: str) -> list[str] | None:
    """What the `index`-th argument of `%command` may be, or None when this tool has nothing to offer."""
    index = len(words) - 1
    if command in ("action", "show") and index == 0:
        return _names(session.model.behaviors("action") + (session.model.behaviors("state") if command == "show"
                                                            else []), current)
    if command in ("action", "state") and index == 1:
        found = ["on"] if "on".startswith(current) and current != "on" else []
        return found + (_names(session.parts_performing(words[1]), current) if command == "action" else [])
    if command in ("action", "state") and index == 2 and words[2] == "on":
        return _names(session.parts_performing(words[1]) if command == "action"
                      else session.model.behaviors("part"), current)
    if command == "state" and index == 0:
        return _names(session.model.behaviors("state"), current)
    if command == "instantiate" and index == 0:
        return _names(session.model.behaviors("part"), current)
    if command in ("break", "unbreak") and index == 0:
        nodes = session.node_names() + ["state", "transition"] + (["all"] if command == "unbreak" else [])
        return [n for n in nodes if n.startswith(current)]
    if command in ("break", "unbreak") and index == 1 and words[1] in ("state", "transition"):
        names = [n.partition(" ")[2] for n in session.workspace.state_names() if n.startswith(words[1] + " ")]
        return [n for n in names if n.startswith(current)]
    if command in NAMES:
        field = NAMES[command][0]
        if index >= 1 and words[1] == "--clear":
            return _names(list(getattr(session.settings, field) or ()), current)
        offered = {"check-property": properties, "check-assume": properties,
                   "check-diverge": features, "check-input": features}[command](session)
        extra = [w for w in ("off", "--clear") if w.startswith(current) and current != w] if index == 0 else []
        return extra + _names(offered, current)
    if command == "uncheck":
        return _names(_held(session), current)
    if command == "engine" and index == 0:
        return [e for e in engine_choices() if e.startswith(current)]
    if command == "load":
        return paths(current, lambda name: name.endswith(".sysml"))
    if command == "replay" and index == 0:
        return _witnesses(session, current)
    if command == "check-witness" and index == 0:
        return [w for w in ("off",) if w.startswith(current)] + [p for p in paths(current, lambda name: False)]
    if command == "events" and index == 0:
        return [w for w in ("alphabet", "clear") if w.startswith(current)] + paths(
            current, lambda name: name.endswith(".json"))
    if command in _SETTINGS and (index == 0 or command == "check-bounds"):
        return [w for w in _SETTINGS[command] if w.startswith(current)]
    return None


def complete(session: Session, text: str, cursor: int) -> Completion | None:
    """Matches at `cursor` in `text`, or None when this tool has nothing to offer there."""
    before = text[:cursor]
    line = before.rsplit("\n", 1)[-1]
    word = _WORD.search(line)
    assert word is not None
    current = word.group(0)
    head = line[: len(line) - len(current)]
    words = head.split()
    if words and words[0].startswith("%") and words[0][1:] in _PATH_COMMANDS:
        path = _PATH.search(line)
        assert path is not None
        current = path.group(0)
        head = line[: len(line) - len(current)]
        words = head.split()
    start = cursor - len(current)
    if not words and current.startswith("%"):
        matches = [f"%{name}" for name in COMMANDS if f"%{name}".startswith(current)]
    elif words and words[0].startswith("%"):
        found = _arguments(session, words[0][1:], words, current)
        if found is None:
            return None
        matches = found
    elif current:
        matches = _names(session.model.qualified_names(), current)
    else:
        return None
    return Completion(start, tuple(dict.fromkeys(matches))) if matches else None
