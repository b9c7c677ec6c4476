"""The report of a check: an engine's Result as the verdict text of SURFACE.md, as HTML tables with a
collapsible step table per witness, and as the JSON document the CLI's `--json` prints."""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.framework import Outcome, QuestionKind, Verdict, Witness
from engines.framework import Result as EngineResult
from engines.runtime.behavior import ObjectEnd, Travelled
from opensysml_kernel.results import Result, Table, Tone, container
from opensysml_kernel.solved import (
    answers_table,
    solved_document,
    solved_html,
    solved_lines,
    solved_standing,
    solver_comparison,
)
from opensysml_kernel.style import TONES, badge, mono
from opensysml_kernel.witness import StepRow

MARK = {
    Verdict.EXHAUSTIVE: "✓", Verdict.COMPLETE: "✓", Verdict.COMPLETED: "✓",
    Verdict.VIOLATION: "✗", Verdict.DIVERGENT: "✗", Verdict.FAILED: "✗",
    Verdict.WITHIN_BOUNDS: "?", Verdict.INCOMPLETE: "?",
    Verdict.PROVED: "✓", Verdict.PROVED_UNBOUNDED: "✓", Verdict.NOT_SENSITIVE: "✓",
    Verdict.NOT_SENSITIVE_UNBOUNDED: "✓",
    Verdict.VIOLATED: "✗", Verdict.SENSITIVE: "✗",
    Verdict.WITHIN_MOVES: "?", Verdict.SENSITIVITY_WITHIN: "?", Verdict.NOT_COVERED: "?",
}
CLAIM = {
    Verdict.EXHAUSTIVE: "holds", Verdict.WITHIN_BOUNDS: "holds within bounds", Verdict.VIOLATION: "violated",
    Verdict.DIVERGENT: "sensitive", Verdict.INCOMPLETE: "undecided", Verdict.FAILED: "fails",
    Verdict.COMPLETED: "completed",
}
STATUS = {0: "passed", 1: "failed", 2: "undecided"}
# The --json document in a display bundle goes under a type of its own: JupyterLab's JSON viewer ranks
# `application/json` above `text/html`, and would show a collapsed tree instead of the report.
REPORT_MIME = "application/vnd.opensysml.report+json"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _either(values: Sequence[str]) -> str:
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]


@dataclass(frozen=True)
class Check:
    """One engine's answer about one action, with where its witnesses were written and their step tables."""

    result: EngineResult
    paths: tuple[str, ...] = ()  # one per witness, when they were written
    steps: tuple[tuple[StepRow, ...], ...] = ()  # one per witness, when it replayed
    unwritten: str | None = None  # why the witness files could not be written, said after the report
    kind: str = "Action"  # what was checked, as the head names it: Action, State machine
    environment: str | None = None  # a machine's: what its environment may send (Script.describe)
    notes: tuple[str, ...] = ()  # what the faces say of the question asked (a property not applying)
    diagram: str = ""  # the action's graph in Mermaid, its witness's path drawn (diagrams.py)

    @property
    def subject(self) -> str:
        return self.result.subject

    @property
    def exit_status(self) -> int:
        """The engine's, except that witness files not written make an answer without a violation undecided."""
        status = self.result.exit_status
        return 2 if self.unwritten is not None and status != 1 else status

    def number(self, index: int) -> int | None:
        """The witness number of an engine's reference (1-based in every engine; 0 is none), or None."""
        return index if 1 <= index <= len(self.result.witnesses) else None

    def _ref(self, index: int) -> str:
        number = self.number(index)
        return str(number) if number is not None else "—"

    # ------------------------------------------------------------ text

    def head(self) -> str:
        r = self.result
        if r.verdict.solved:
            return f"{MARK[r.verdict]} Action {r.subject}: {r.said} ({r.engine})"
        if r.kind is QuestionKind.OUTCOMES:
            figures = f"{_plural(r.stats.runs, 'run')}, {_plural(r.stats.moves, 'move')}, depth {r.stats.depth}"
            claim = _plural(len(r.outcomes), "outcome")
            return f"{MARK[r.verdict]} {self.kind} {r.subject}: {claim} ({figures})"
        figures = f"{r.stats.states} states, {r.stats.moves} moves, depth {r.stats.depth}"
        hit = [f"{b.name} {b.limit}" for b in r.bounds if b.reached]
        if hit:
            figures += "; bounds hit: " + ", ".join(hit)
        return f"{MARK.get(r.verdict, '?')} {self.kind} {r.subject}: {r.verdict.value} ({figures})"

    def lines(self) -> list[str]:
        r = self.result
        lines = [self.head()]
        if self.environment is not None:
            lines.append(f"  environment: {self.environment}")
        lines.extend(f"  {note}" for note in self.notes)
        if r.verdict.solved:
            lines.extend(solved_lines(r, self._ref))
        elif r.kind is QuestionKind.OUTCOMES:
            lines.extend("  " + line for line in self.outcome_table().lines())
            lines.append(f"  incomplete: {r.incomplete}" if r.incomplete else f"  complete ({_plural(r.stats.runs, 'run')})")
        else:
            for feature, values in r.divergent:
                lines.append(f"  divergent: {feature} ends as {_either([v for v, _ in values])}")
                lines.extend(f"    {feature} = {value} (witness {self._ref(index)})" for value, index in values)
            for violation in r.violations:
                lines.append("  " + violation_line(violation.kind, violation.text, violation.moves,
                                                   self._ref(violation.witness)))
            lines.extend(f"  outcome: {self.outcome_text(outcome)}" for outcome in r.outcomes)
            if r.incomplete:
                lines.append(f"  incomplete: {r.incomplete}")
        lines.extend(f"  note: {note}" for note in r.notes)
        lines.extend(f"  witness {i}: {path}" for i, path in enumerate(self.paths, 1))
        lines.append("  " + self.standing())
        if self.unwritten is not None:
            lines.append(f"  ✗ {self.unwritten}")
        return lines

    def standing(self) -> str:
        r = self.result
        if r.verdict.solved:
            return solved_standing(r)
        if r.kind is QuestionKind.OUTCOMES:
            claim = _plural(len(r.outcomes), "outcome")
            if r.incomplete:
                return f"standing: {claim} so far ({r.strength.word}: {_plural(r.stats.runs, 'run')}; {r.incomplete})"
            return f"standing: {claim} ({r.strength.word}: every linearization, {_plural(r.stats.runs, 'run')})"
        evidence = f"{r.stats.states} states, {r.stats.moves} moves searched"
        if r.witnesses:
            evidence += f", {_plural(len(r.witnesses), 'witness')}".replace("witnesss", "witnesses") + " replayed"
        if r.verdict is Verdict.EXHAUSTIVE and r.stats.fingerprint_bits:
            # as TLC does: what the visited set's fingerprints leave to chance
            evidence += f"; fingerprint collision odds {r.stats.collision_odds():.1g}"
        return f"standing: {CLAIM.get(r.verdict, r.verdict.value)} ({r.strength.word}: {evidence})"

    def _repeated_failures(self) -> set[str]:
        """The failures more than one outcome ends in."""
        seen: set[str] = set()
        repeated: set[str] = set()
        for o in self.result.outcomes:
            if o.error is not None:
                text = o.describe()
                (repeated if text in seen else seen).add(text)
        return repeated

    def outcome_text(self, outcome: Outcome, witness: bool = True) -> str:
        """`count = 2 (witness 1)`, or `count = 2 (violates Hotel::oneBooking; witness 3)` for an outcome
        whose final state violates a property."""
        text = outcome.describe()
        if outcome.error is not None and outcome.values and text in self._repeated_failures():
            # runs failing alike in different states: the state each failed in tells them apart
            text += f" (with {', '.join(f'{k} = {v}' for k, v in outcome.values)})"
        if outcome.violates:
            text += f" (violates {', '.join(outcome.violates)}"
            text += f"; witness {self._ref(outcome.witness)})" if witness and outcome.witness else ")"
        elif witness and outcome.witness:
            text += f" (witness {self._ref(outcome.witness)})"
        return text

    def outcome_table(self) -> Table:
        rows = tuple((self.outcome_text(o, witness=False), str(o.schedules), self._ref(o.witness))
                     for o in self.result.outcomes)
        return Table(("outcome", "linearizations", "witness"), rows)

    def anchor(self, number: int | None) -> str:
        """The id of witness `number`'s step table in this report's HTML ("" for none): the same for the
        same answer, so a notebook's output does not change between runs."""
        if number is None:
            return ""
        r = self.result
        digest = hashlib.sha256("\n".join([r.engine, r.subject, *(w.text() for w in r.witnesses)]).encode())
        return f"opensysml-{digest.hexdigest()[:12]}-w{number}"

    def _links(self, references: Sequence[int], width: int) -> tuple[tuple[str, ...], ...]:
        """Per row of a table whose last column names a witness: that cell linked to its step table."""
        return tuple(("",) * (width - 1) + (("#" + self.anchor(self.number(index))) if self.number(index) else "",)
                     for index in references)

    def outcome_html(self) -> str:
        """The outcomes as a table, each linked to its witness's step table; a machine's with its
        configuration and visits in columns of their own."""
        count = "linearizations" if self.result.kind is QuestionKind.OUTCOMES else "schedules"
        outcomes = self.result.outcomes
        if not any(o.travelled is not None or any(k in MACHINE_KEYS for k, _ in o.values) for o in outcomes):
            return Table(("outcome", count, "witness"), self.outcome_table().rows,
                         links=self._links([o.witness for o in outcomes], 3), mono=(0,)).html()
        configured = any(k == "finalState" for o in outcomes for k, _ in o.values)  # an instance's are values
        rows = []
        for o in outcomes:
            values = dict(o.values)
            rest = Outcome(tuple((k, v) for k, v in o.values if k not in MACHINE_KEYS), o.schedules, o.witness,
                           o.error, o.violates)
            visits = values.get("stateVisits") or ("[" + ", ".join(o.travelled.visits) + "]" if o.travelled else "")
            rows.append(((values.get("finalState", ""),) if configured else ())
                        + (visits, self.outcome_text(rest, witness=False), str(o.schedules), self._ref(o.witness)))
        head = (("finalState",) if configured else ()) + ("stateVisits", "outcome", count, "witness")
        return Table(head, tuple(rows), links=self._links([o.witness for o in outcomes], len(head)),
                     mono=tuple(range(len(head) - 2))).html()

    # ------------------------------------------------------------ json

    def document(self) -> dict[str, Any]:
        r = self.result
        witnesses: list[dict[str, Any]] = []
        for index, witness in enumerate(r.witnesses):
            entry: dict[str, Any] = ({"path": self.paths[index]} if index < len(self.paths) else {"index": index + 1})
            entry["behavior"] = witness.behavior
            entry["model"] = witness.model
            entry["claims"] = [c.line() for c in witness.claims]
            entry["choices"] = [c.line() for c in witness.choices]
            entry["ending"] = witness.ending
            if index < len(self.steps) and self.steps[index]:
                entry["steps"] = [step_document(row) for row in self.steps[index]]
            witnesses.append(entry)
        return {
            "subject": r.subject,
            "engine": r.engine,
            "verdict": r.said,
            "strength": r.strength.word,
            "exit": self.exit_status,
            "stats": {"states": r.stats.states, "moves": r.stats.moves, "depth": r.stats.depth, "runs": r.stats.runs},
            "bounds": [{"name": b.name, "limit": b.limit, "reached": b.reached} for b in r.bounds],
            "outcomes": [{"values": dict(o.values), "schedules": o.schedules, "witness": self.number(o.witness),
                          "error": o.error, "violates": list(o.violates), **travelled_document(o.travelled)}
                         for o in r.outcomes],
            "violations": [{"kind": v.kind, "text": v.text, "moves": v.moves, "witness": self.number(v.witness)}
                           for v in r.violations],
            "divergent": {feature: [value for value, _ in values] for feature, values in r.divergent},
            "witnesses": witnesses,
            "incomplete": r.incomplete,
            "witnessError": self.unwritten,
            **(solved_document(r) if r.verdict.solved else {}),
            **({"notApplying": [note.removeprefix("not applying: ") for note in self.notes]} if self.notes else {}),
            **({"diagram": self.diagram} if self.diagram else {}),
            "lines": self.lines(),
        } | self._machine_keys()

    def _machine_keys(self) -> dict[str, Any]:
        """A machine check's own keys: its environment, what a resting machine is reported as (an
        outcome: quiescent, never a deadlock), and each outcome's configuration and visits."""
        if self.environment is None:
            return {}
        outcomes = [{"finalState": dict(o.values).get("finalState"), "stateVisits": dict(o.values).get("stateVisits"),
                     "outputs": {k: v for k, v in o.values if k not in ("finalState", "stateVisits")}}
                    | travelled_document(o.travelled) for o in self.result.outcomes]
        return {"environment": self.environment, "resting": "quiescent", "machineOutcomes": outcomes}

    # ------------------------------------------------------------ html

    def html(self) -> str:
        r = self.result
        mark = MARK.get(r.verdict, "?")
        word = r.said if r.kind is not QuestionKind.OUTCOMES else ("complete" if not r.incomplete else "incomplete")
        head = self.head().removeprefix(mark).strip()
        parts = [f"<div class='opensysml-head'>{badge(mark, word)}<span class='opensysml-{TONES[mark]}'>"
                 f"{html.escape(head)}</span></div>"]
        if r.outcomes:
            parts.append(self.outcome_html())
        if r.violations:
            found = tuple((v.kind, v.text, str(v.moves), self._ref(v.witness)) for v in r.violations)
            parts.append(Table(("violation", "what", "after moves", "witness"), found,
                               links=self._links([v.witness for v in r.violations], 4), mono=(1,)).html())
        if r.divergent:
            values = tuple((feature, value, self._ref(index)) for feature, seen in r.divergent for value, index in seen)
            indices = [index for _, seen in r.divergent for _, index in seen]
            parts.append(Table(("divergent feature", "value", "witness"), values, links=self._links(indices, 3),
                               mono=(0, 1)).html())
        if r.verdict.solved:
            parts.append(solved_html(r))
        elif r.bounds:
            limits = tuple((b.name, b.limit, "reached" if b.reached else "no") for b in r.bounds)
            parts.append(Table(("bound", "value", "reached"), limits, mono=(1,)).html())
        for index, witness in enumerate(r.witnesses):
            parts.append(self._witness_html(index, witness))
        kept = ("incomplete:", "note:", "not applying:", "standing:", "✗ witness files", "explore")
        lines = [line.strip() for line in self.lines()[1:] if line.strip().startswith(kept)]
        parts.append("<div class='opensysml-quiet'>" + "<br/>".join(html.escape(line) for line in lines) + "</div>")
        return "".join(parts)

    def _witness_html(self, index: int, witness: Witness) -> str:
        what = witness.ending or self._outcome_of(index) or "a schedule"
        where = f" ({html.escape(self.paths[index])})" if index < len(self.paths) else ""
        steps = self.steps[index] if index < len(self.steps) else ()
        marked = next((row for row in steps if row.ending), None)
        at = f" at step {marked.step}" if marked is not None else ""
        summary = f"witness {index + 1}: {html.escape(what)}{at}{where}"
        body = step_table_html(steps) if steps else "<pre style='margin:0'>" + html.escape(witness.text()) + "</pre>"
        return f"<details id='{self.anchor(index + 1)}'><summary>{summary}</summary>{body}</details>"

    def _outcome_of(self, index: int) -> str:
        shown = [f"{feature} = {value}" for feature, values in self.result.divergent for value, i in values
                 if self.number(i) == index + 1]
        shown += [self.outcome_text(o, witness=False) for o in self.result.outcomes
                  if self.number(o.witness) == index + 1]
        return "; ".join(dict.fromkeys(shown))  # a divergent value and the outcome it is said once


def step_document(row: StepRow) -> dict[str, Any]:
    """One step of a replayed witness in the JSON document, numbered as the witness file numbers it."""
    entry: dict[str, Any] = {"step": row.step, "taken": row.taken, "alternatives": list(row.alternatives),
                             "changed": [{"feature": f, "before": b, "after": a} for f, b, a in row.changed]}
    if row.ending:
        entry["ending"] = row.ending
        entry["state"] = dict(row.state)
    return entry


STEP_HEADER = ("step", "move taken", "alternatives", "values changed")


def step_table_html(steps: Sequence[StepRow]) -> str:
    """A witness's steps as a table; the step where its claim shows (a property false, a deadlock, a
    failure) marked ✗ with that claim and the state there."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in STEP_HEADER)
    body = []
    for row in steps:
        tds = "".join(f"<td>{cell}</td>" for cell in (
            str(row.step), mono(row.taken), ", ".join(mono(a) for a in row.alternatives), mono(row.changes())))
        if not row.ending:
            body.append(f"<tr>{tds}</tr>")
            continue
        body.append(f"<tr class='opensysml-failing'>{tds}</tr>")
        shown = f"{row.ending.removeprefix('property: ')} is false" if row.ending.startswith("property: ") \
            else row.ending.removeprefix("fails: ")
        said = f"✗ step {row.step}: {shown}; state: "
        body.append(f"<tr class='opensysml-failing'><td colspan='{len(STEP_HEADER)}'><b class='opensysml-mark-fail'>"
                    f"{html.escape(said)}</b>{mono(row.state_text() or '(no features)')}</td></tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"  # in its own <details>


def object_document(end: ObjectEnd) -> dict[str, Any]:
    """An object of an instance as a run's and a check's JSON give it: `{path, finalState, stateVisits,
    slots}`."""
    return {"path": end.path, "finalState": end.final_state, "stateVisits": list(end.visits), "slots": dict(end.slots)}


def travelled_document(travelled: Travelled | None) -> dict[str, Any]:
    """An outcome's `stateVisits` (on the schedule its witness takes) and, of an instance, its `objects`;
    nothing for an action's."""
    if travelled is None:
        return {}
    if travelled.objects:
        return {"stateVisits": list(travelled.visits), "objects": [object_document(o) for o in travelled.objects]}
    return {"stateVisits": list(travelled.visits)}


MACHINE_KEYS = ("finalState", "stateVisits")  # a machine's outcome: its configuration and the states it entered


def violation_line(kind: str, text: str, moves: int, witness: str) -> str:
    """`violation: R is false after 3 moves (witness 1)`, `deadlock: ... (witness 2)`, `fails: ... (witness 3)`."""
    if kind == "property":
        said = text if " is false" in text else f"{text} is false after {_plural(moves, 'move')}"
        return f"violation: {said} (witness {witness})"
    if kind == "deadlock":
        return f"deadlock: {text.removeprefix('deadlock: ')} (witness {witness})"
    return f"{kind}: {text} (witness {witness})"


def final_states(result: EngineResult, features: frozenset[str]) -> frozenset[str]:
    """The final states an engine reached (failures left out), over the features given."""
    return frozenset(", ".join(f"{k} = {v}" for k, v in o.values if k in features)
                     for o in result.outcomes if o.error is None)


def comparison(checks: Sequence[Check]) -> tuple[list[str], bool]:
    """For `%engine all`: whether the engines that ran to the end reach the same final states, and
    beside a solver, every answer in one table and whether the solver's agrees with the searches'."""
    results = [c.result for c in checks]
    searches = [c for c in checks if not c.result.verdict.solved]
    lines, disagree = final_state_comparison(searches) if len(searches) > 1 else ([], False)
    if len(searches) < len(checks):
        more, differ = solver_comparison(results)
        table = answers_table(results)
        lines = ["  answers:", *("    " + line for line in table.lines()), *lines, *more]
        disagree = disagree or differ
    return lines, disagree


def _searched_every_schedule(result: EngineResult) -> bool:
    """Whether a search ran to the end: complete, exhaustive or divergent, or a violation found by a
    search that went on past it (a violated property ends no schedule) and stopped at no bound."""
    if result.verdict in (Verdict.COMPLETE, Verdict.EXHAUSTIVE, Verdict.DIVERGENT):
        return True
    return result.verdict is Verdict.VIOLATION and result.incomplete is None and not any(b.reached for b in result.bounds)


def final_state_comparison(checks: Sequence[Check]) -> tuple[list[str], bool]:
    """Whether the searches that ran to the end reach the same final states."""
    done = [c for c in checks if _searched_every_schedule(c.result)]
    if len(done) < 2:
        left = [c.result.engine for c in checks if c not in done]
        return [f"  not compared: {', '.join(left)} did not search every schedule"], False
    named = [frozenset(k for o in c.result.outcomes for k, _ in o.values) for c in done]
    common = frozenset.intersection(*named)
    sets = [(c.result.engine, final_states(c.result, common)) for c in done]
    if all(found == sets[0][1] for _, found in sets):
        names = " and ".join(name for name, _ in sets)
        return [f"  agree: {names} reach the same {_plural(len(sets[0][1]), 'final state')}"], False
    lines = ["✗ disagreement: the engines reach different final states"]
    for name, found in sets:
        lines.append(f"  {name}: " + ("; ".join(sorted(found)) or "none"))
    return lines, True


@dataclass(frozen=True)
class CheckReport(Result):
    """What `%action` answers under a checking engine: one Check per engine asked, side by side."""

    checks: tuple[Check, ...] = ()
    disagree: bool = False
    extra: tuple[str, ...] = field(default=())

    @classmethod
    def build(cls, checks: Sequence[Check]) -> CheckReport:
        lines: list[str] = []
        for check in checks:
            lines.extend(check.lines())
        extra: list[str] = []
        disagree = False
        if len(checks) > 1:
            extra, disagree = comparison(checks)
            lines.extend(extra)
        codes = [c.exit_status for c in checks]
        tone = Tone.FAILED if disagree or 1 in codes else Tone.PAUSED if 2 in codes else Tone.COMPLETED
        return cls(tuple(lines), tone, None, {}, tuple(checks), disagree, tuple(extra))

    @property
    def exit_status(self) -> int:
        codes = [c.exit_status for c in self.checks]
        if self.disagree:
            codes.append(2)
        if 1 in codes:
            return 1
        return max(codes, default=2)

    @property
    def verdict(self) -> Verdict:
        """The first engine's verdict (the check engine's under `all`)."""
        return self.checks[0].result.verdict if self.checks else Verdict.INCOMPLETE

    @property
    def outcomes(self) -> tuple[Outcome, ...]:
        return self.checks[0].result.outcomes if self.checks else ()

    @property
    def witnesses(self) -> tuple[Witness, ...]:
        return self.checks[0].result.witnesses if self.checks else ()

    def document(self) -> dict[str, Any]:
        return check_document([self])

    def to_json(self) -> str:
        return json.dumps(self.document(), indent=2, ensure_ascii=False)

    def html(self) -> str:
        parts = [f"<div class='opensysml-check'>{check.html()}</div>" for check in self.checks]
        if self.extra:
            tone = "mark-fail" if self.disagree else "quiet"
            parts.append(f"<div class='opensysml-{tone}'>"
                         + "<br/>".join(html.escape(line.strip()) for line in self.extra) + "</div>")
        return container(self.tone, "<hr/>".join(parts))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {"text/plain": self.text, "text/html": self.html(), REPORT_MIME: self.document()}


def check_document(reports: Sequence[CheckReport], error: str | None = None) -> dict[str, Any]:
    """The `--json` document: an overall status and exit status, then every engine's check."""
    codes = [r.exit_status for r in reports]
    # A violation found stands whatever else went wrong; otherwise an error leaves the answer undecided.
    code = 1 if 1 in codes else 2 if error is not None else max(codes, default=2)
    document: dict[str, Any] = {"status": "error" if error is not None and code == 2 else STATUS[code], "exit": code,
                                "checks": [check.document() for report in reports for check in report.checks]}
    if error is not None:
        document["error"] = error
    disagreements = [line.strip() for r in reports if r.disagree for line in r.extra]
    if disagreements:
        document["disagreement"] = disagreements
    return document
