"""The conformance corpus as test data: cases, their entry behavior, expected values and verdicts."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import ir
from ir import syntax as s

ROOT = Path(__file__).resolve().parents[1]
# The corpus is found in one place: OPENSYSML_CORPUS, else ../shared/corpus beside the checkout. The
# further upstream cases stand beside it, in conformance-more/.
CORPUS = Path(os.environ.get("OPENSYSML_CORPUS") or ROOT / ".." / "shared" / "corpus")
CONFORMANCE = CORPUS / "conformance"
MORE = CORPUS.parent / "conformance-more"
FOLDERS = {"conformance": CONFORMANCE, "conformance-more": MORE}
HAVE_CORPUS = (CORPUS / "INDEX.md").is_file()
NO_CORPUS = f"no conformance corpus at {CORPUS} (set OPENSYSML_CORPUS to the corpus folder)"


@dataclass(frozen=True)
class Case:
    name: str
    kind: str
    expected: dict[str, Any]
    path: Path
    golden: str | None
    check: dict[str, Any] | None
    disputed: bool = False
    notes: str = field(default="", compare=False)
    folder: str = "conformance"

    @property
    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    @property
    def deterministic(self) -> bool:
        return "outcomes" not in self.expected


DISPUTED = ROOT / "tests" / "engines" / "runtime" / "disputed.txt"


def _disputed() -> dict[str, str]:
    """Cases whose files disagree: flagged by INDEX.md (taken at different commits), or adjudicated
    here (disputed.txt: a conformance-more case whose model and expectation no reading of the
    library reconciles)."""
    out: dict[str, str] = {}
    for line in DISPUTED.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            out[name] = reason.strip()
    if not HAVE_CORPUS:
        return out
    index = (CORPUS / "INDEX.md").read_text(encoding="utf-8")
    for line in index.splitlines():
        m = re.match(r"\|\s*\d+\s*\|\s*`([a-z0-9_]+)`", line)
        if m and "different commits" in line:
            out[m.group(1)] = line.rsplit("|", 2)[-2].strip()
    return out


def cases(kind: str | None = None, folder: str = "conformance") -> list[Case]:
    """Every complete case (model and expectation) of one folder, optionally of one kind, by name.

    Empty when the folder is absent (a clone with nothing beside it); the tests skip with NO_CORPUS.
    """
    disputed = _disputed()
    directory = FOLDERS[folder]
    out = []
    for expected_file in sorted(directory.glob("*.expected.json")):
        name = expected_file.name[: -len(".expected.json")]
        model = directory / f"{name}.sysml"
        if not model.exists():
            continue
        expected = json.loads(expected_file.read_text(encoding="utf-8"))
        case_kind = expected.get("type", "?")
        if kind is not None and case_kind != kind:
            continue
        golden_file = directory / f"{name}.trace.golden"
        check_file = directory / f"{name}.check.expected.json"
        out.append(Case(
            name, case_kind, expected, model,
            golden_file.read_text(encoding="utf-8") if golden_file.exists() else None,
            json.loads(check_file.read_text(encoding="utf-8")) if check_file.exists() else None,
            name in disputed, disputed.get(name, ""), folder,
        ))
    return out


def entry(case: Case, model: ir.Model) -> str:
    """The behavior a case drives: `evaluate`, else the first action its own packages declare."""
    if "evaluate" in case.expected:
        return str(case.expected["evaluate"])
    for doc in model.documents:
        for member in doc.members:
            if isinstance(member, s.Package):
                for inner in member.members:
                    if isinstance(inner, (s.Definition, s.Usage)) and inner.kind == case.kind and inner.name:
                        return f"{member.name}::{inner.name}"
    raise LookupError(f"{case.name}: no {case.kind} declared by the document's packages")


def spelled(value: dict[str, Any]) -> str:
    """A corpus value (`{"type": "Integer", "value": 1}`) spelled as the tool spells values."""
    kind = value.get("type")
    raw = value.get("value")
    if kind == "Boolean":
        return "true" if raw else "false"
    if kind == "String":
        return '"' + str(raw).replace("\\", "\\\\").replace('"', '\\"') + '"'
    if kind in ("Integer",):
        return str(int(raw)) if not isinstance(raw, str) else raw
    if kind in ("Real", "Rational"):
        return _real(raw)
    if kind == "EnumLiteral":
        return str(raw)
    if kind == "Unset":
        return "<unset>"
    return str(raw)


def _real(raw: Any) -> str:
    from engines.runtime.values import spell

    if isinstance(raw, str) and "/" in raw:
        return spell(Fraction(raw))
    return spell(Fraction(str(raw)))


def same_value(expected: dict[str, Any], got: str | None) -> bool:
    """Whether an output matches a corpus value (numbers compared exactly, whatever the spelling)."""
    if got is None:
        return False
    if expected.get("type") in ("Integer", "Real", "Rational"):
        try:
            return Fraction(got) == Fraction(str(expected.get("value")))
        except (ValueError, ZeroDivisionError):
            return False
    return spelled(expected) == got


STATE_PREFIXES = ("state_", "object_", "w6e_")


def state_cases() -> list[Case]:
    """The state-machine and instance cases of both folders: kind state or instance, or a name of the
    state families (`state_*`, `object_*`, `w6e_*`), in folder then name order."""
    return [c for folder in FOLDERS for c in cases(folder=folder)
            if c.kind in ("state", "instance") or c.name.startswith(STATE_PREFIXES)]


def reduction_state_models() -> list[Path]:
    """The reduction folder's models that declare a state machine, and the incomplete cases' ones."""
    declares = re.compile(r"^\s*(exhibit\s+)?state\b", re.MULTILINE)
    paths = [*(CORPUS / "reduction").glob("*.sysml"), *(CONFORMANCE / "_incomplete").glob("*.sysml")]
    return sorted((p for p in paths if declares.search(p.read_text(encoding="utf-8"))), key=lambda p: p.name)
