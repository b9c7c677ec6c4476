"""What to offer at the cursor: `%` command names, their settings, and the model's qualified names."""

from __future__ import annotations

import re
from dataclasses import dataclass

from opensysml_kernel.checking import engine_choices
from opensysml_kernel.commands import COMMANDS
from opensysml_kernel.session import Session

_WORD = re.compile(r"[%\w:-]*$")
_SETTINGS = {
    "trace": ["on", "off"],
    "schedule": ["reverse", "declared", "seed:"],
    "help": sorted(COMMANDS),
    "check-bounds": ["depth=", "states=", "timeout=", "unroll=", "solver=", "off"],
    "check-witness": ["off"],
    "replay": ["last", "off"],
}


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


def complete(session: Session, text: str, cursor: int) -> Completion | None:
    """Matches at `cursor` in `text`, or None when this tool has nothing to offer there."""
    before = text[:cursor]
    line = before.rsplit("\n", 1)[-1]
    word = _WORD.search(line)
    assert word is not None
    current = word.group(0)
    start = cursor - len(current)
    head = line[: len(line) - len(current)]
    words = head.split()
    if not words and current.startswith("%"):
        matches = [f"%{name}" for name in COMMANDS if f"%{name}".startswith(current)]
    elif words and words[0].startswith("%"):
        command = words[0][1:]
        if command == "action" and len(words) == 1:
            matches = _names(session.model.behaviors("action"), current)
        elif command == "action" and len(words) == 2:
            matches = ["on"] if "on".startswith(current) and current != "on" else []
            matches += _names(session.parts_performing(words[1]), current)
        elif command == "action" and len(words) == 3 and words[2] == "on":
            matches = _names(session.parts_performing(words[1]), current)
        elif command == "state" and len(words) == 1:
            matches = _names(session.model.behaviors("state"), current)
        elif command == "instantiate" and len(words) == 1:
            matches = _names(session.model.behaviors("part"), current)
        elif command in ("break", "unbreak") and len(words) == 1:
            nodes = session.node_names() + ["state", "transition"] + (["all"] if command == "unbreak" else [])
            matches = [n for n in nodes if n.startswith(current)]
        elif command in ("break", "unbreak") and len(words) == 2 and words[1] in ("state", "transition"):
            names = [n.partition(" ")[2] for n in session.workspace.state_names() if n.startswith(words[1] + " ")]
            matches = [n for n in names if n.startswith(current)]
        elif command in ("check-property", "check-diverge", "check-input", "check-assume") and current != "off" \
                and "off".startswith(current) \
                and len(words) == 1:
            matches = ["off"]
        elif command == "engine" and len(words) == 1:
            matches = [s for s in engine_choices() if s.startswith(current)]
        elif command in _SETTINGS and (len(words) == 1 or command == "check-bounds"):
            matches = [s for s in _SETTINGS[command] if s.startswith(current)]
        else:
            return None
    elif current:
        matches = _names(session.model.qualified_names(), current)
    else:
        return None
    return Completion(start, tuple(matches)) if matches else None
