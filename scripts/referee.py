#!/usr/bin/env python3
"""Run every referee model (tests/referee/models) through this tool and, where it is installed,
through the peer kernel (`jupyter-opensysml-kernel` from PyPI, a dev-only comparison, never a
dependency); print every disagreement (ours vs expected vs peer) and the tally.

    python scripts/referee.py [--peer-venv DIR] [--no-peer] [--only SUBSTRING] [--machines|--actions] [--verbose]

The peer is looked up as $REFEREE_PEER_CMD (a kernel command line with `{connection_file}`), else
the `jupyter_opensysml_kernel` package of --peer-venv (default /work/peer-venv, made with
`python3 -m venv /work/peer-venv && /work/peer-venv/bin/pip install jupyter-opensysml-kernel`),
else of this Python. Without one the peer column is skipped and the reason printed.

Tally, per case:
  agree        ours (right since the case was written), the expectation and the peer give one answer
  ours fixed   ours was wrong when the case was written (tests/referee/wrong_when_written.txt), now right
  ours wrong   ours misses the expectation (the case is a strict xfail in the tests)
  peer wrong   the peer misses the expectation
  unclear      the expectation says the semantics does not settle it (left out of the assertions)
A case may count in two rows (ours fixed or wrong, and peer wrong); `agree` only when nobody misses.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import queue
import re
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.referee.cases import CLASSES, Case, Observed, first_line, judge, load_cases, run_ours  # noqa: E402
from tests.referee.machines import (  # noqa: E402
    MACHINE_CLASSES,
    MachineCase,
    MachineSeen,
    judge_machine,
    load_machine_cases,
)
from tests.referee.machines import run_ours as run_ours_machine  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;]*m")


# ---------------------------------------------------------------- the peer


def peer_command(venv: str) -> tuple[str | None, str]:
    """The peer's kernel command line, or None and why there is none."""
    cmd = os.environ.get("REFEREE_PEER_CMD")
    if cmd:
        return cmd, "REFEREE_PEER_CMD"
    found = sorted(glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "jupyter_opensysml_kernel",
                                          "bin", "sysml-jupyter-kernel")))
    if not found:
        try:
            import jupyter_opensysml_kernel as pkg  # type: ignore[import-not-found]

            found = [os.path.join(os.path.dirname(pkg.__file__), "bin", "sysml-jupyter-kernel")]
        except ImportError:
            return None, (f"peer skipped: jupyter-opensysml-kernel is not installed (no {venv}, and not in this"
                          " Python); install it with: python3 -m venv /work/peer-venv &&"
                          " /work/peer-venv/bin/pip install jupyter-opensysml-kernel")
    return f"{found[0]} -connection-file {{connection_file}}", found[0]


class Peer:
    """One peer kernel, driven cell by cell over the Jupyter protocol."""

    def __init__(self, cmd: str) -> None:
        from jupyter_client import KernelManager
        from jupyter_client.kernelspec import KernelSpecManager

        self.tmp = tempfile.mkdtemp(prefix="referee-peer-")
        os.makedirs(os.path.join(self.tmp, "k"))
        with open(os.path.join(self.tmp, "k", "kernel.json"), "w", encoding="utf-8") as fh:
            json.dump({"argv": shlex.split(cmd), "display_name": "peer", "language": "text"}, fh)
        self.km = KernelManager(kernel_name="k", kernel_spec_manager=KernelSpecManager(kernel_dirs=[self.tmp]))
        self.km.start_kernel()
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)

    def cell(self, source: str, timeout: float = 60.0) -> tuple[str, str]:
        """(status, text) of one cell: 'ok' or 'error' (or 'timeout'), and every output's text."""
        msg_id = self.kc.execute(source, store_history=False, allow_stdin=False, stop_on_error=False)
        texts: list[str] = []
        status, idle, t0 = None, False, time.monotonic()
        while not (idle and status is not None):
            if time.monotonic() - t0 > timeout:
                self.km.interrupt_kernel()
                return "timeout", "".join(texts)
            if status is None:
                try:
                    reply = self.kc.get_shell_msg(timeout=0.01)
                    if reply["parent_header"].get("msg_id") == msg_id:
                        status = reply["content"].get("status")
                except queue.Empty:
                    pass
            try:
                msg = self.kc.get_iopub_msg(timeout=0.01)
            except queue.Empty:
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "status":
                idle = content["execution_state"] == "idle"
            elif kind == "stream":
                texts.append(content["text"])
            elif kind in ("display_data", "execute_result"):
                texts.append(content.get("data", {}).get("text/plain", ""))
            elif kind == "error":
                texts.append(f"{content.get('ename')}: {content.get('evalue')}\n")
        return str(status), ANSI.sub("", "".join(texts))

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)
        shutil.rmtree(self.tmp, ignore_errors=True)


_VALUE = re.compile(r"^\s+(\S+) = (.*)$")
_VERDICT = re.compile(r"^[✓✗!?]\s*Action \S+: ([^(]+?)\s*(\(|$)")


def _values(text: str, after: str) -> dict[str, str]:
    out: dict[str, str] = {}
    block = text.split(after, 1)[1] if after in text else ""
    for line in block.splitlines()[1:]:
        match = _VALUE.match(line)
        if match is None:
            break
        out[match.group(1)] = match.group(2).split(" (order-dependent", 1)[0].strip()
    return out


def run_peer(peer: Peer, case: Case) -> Observed:
    seen = Observed()
    peer.cell("%clear")
    peer.cell("%engine run")
    status, text = peer.cell(case.text)
    if status != "ok":
        seen.refused = text.strip() or status
        return seen
    if case.action is None:
        return seen
    performer = case.spec.get("performer")
    on = f" {performer}" if performer else ""
    wants_run = any(k in case.spec for k in ("outputs", "run_error")) or "check" not in case.spec
    if wants_run and performer:
        # the peer performs an object's actions when the object is instantiated; its features are the outputs
        status, text = peer.cell(f"%instantiate {performer}")
        if status != "ok":
            seen.other = "instantiate: " + first_line(text or status)
        else:
            status, text = peer.cell(f"%features {performer}")
            seen.outputs = {f"this.{k}": v for k, v in _values(text, "Features:").items()}
    elif wants_run:
        status, text = peer.cell(f"%action {case.action}{on}")
        if status != "ok":
            seen.other = "start: " + first_line(text or status)
        else:
            status, text = peer.cell("%continue")
            if status != "ok" or "✓ Action completed" not in text:
                seen.run_error = text.strip() or status
            seen.outputs = _values(text, "Results:")
    wanted = case.spec.get("check")
    if wanted is not None and seen.other is None:
        peer.cell("%engine check")
        peer.cell("%check-property " + (" ".join(wanted.get("property", ())) or "off"))
        peer.cell("%check-diverge " + (" ".join(wanted.get("diverge", ())) or "off"))
        status, text = peer.cell(f"%action {case.action}{on}", timeout=120.0)
        peer.cell("%check-property off")
        peer.cell("%check-diverge off")
        match = next((m for m in map(_VERDICT.match, text.splitlines()) if m), None)
        if match is None:
            seen.other = "check: " + first_line(text or status)
        else:
            word = match.group(1).strip()
            seen.verdict = ("holds" if word.startswith("no violation") else word)
            for m in re.finditer(r"divergent: (\S+) ends as ([^\n]+)", text):
                seen.values[m.group(1)] = [v.strip() for v in re.split(r",\s*| or ", m.group(2)) if v.strip()]
            seen.violations = re.findall(r"violation: ([^\n]+)", text)
            for m in re.finditer(r"outcome: ([^\n]+)", text):
                pairs = [p.split(" = ", 1) for p in re.split(r"[,;] ", m.group(1)) if " = " in p]
                seen.outcomes.append({k.strip(): v.strip() for k, v in pairs})
    return seen


def _seconds(text: str) -> str:
    """A duration as the peer's `%advance` takes it: a number of seconds."""
    from engines.runtime.states import parse_duration

    seconds = parse_duration(text)
    return str(seconds.numerator) if seconds.denominator == 1 else str(float(seconds))


_NOT_SENT = re.compile(r"accepts no signal \S+ now|would fire no transition on \S+ now")
def _state_data(text: str, indent: int = 2) -> dict[str, str]:
    """The `name = value` lines at one indentation of the peer's `%current` / `%features` blocks."""
    data = re.compile(r"^ {" + str(indent) + r"}(\S+) = (.*)$")
    out: dict[str, str] = {}
    for line in text.splitlines():
        match = data.match(line)
        if match is not None and not match.group(2).startswith("["):
            out.setdefault(match.group(1), match.group(2).strip())
    return out


def run_peer_machine(peer: Peer, case: MachineCase) -> MachineSeen:
    """The peer driven as a modeler drives it: `%state`, `%send` + `%advance 0`, `%advance T`,
    `%current`; an instance by `%instantiate` and `%features` of every object the case names."""
    seen = MachineSeen()
    peer.cell("%clear")
    status, text = peer.cell(case.text)
    if status != "ok":
        seen.refused = text.strip() or status
        return seen
    if "instantiate" in case.spec:
        return _peer_instance(peer, case, seen)
    status, text = peer.cell(f"%state {case.spec['state']}")
    if status != "ok":
        seen.other = "state: " + first_line(text or status)
        return seen
    peer.cell("%advance 0")  # the machine at rest (its initial completions, do behaviors) before the environment acts
    for verb, arg in case.drive:
        commands = [f"%advance {_seconds(arg)}"] if verb == "advance" else (
            [f"%send {arg}", "%advance 0"] if verb == "send" else [f"%send {arg}"])
        for command in commands:
            status, text = peer.cell(command)
            if status != "ok" and command.startswith("%send") and _NOT_SENT.search(text):
                continue  # it refuses to post what the machine would not take now: for it, the event is dropped
            if status != "ok" and seen.run_error is None:
                seen.run_error = f"{command}: {text.strip()}"
    status, text = peer.cell("%advance 0")
    if status != "ok" and seen.run_error is None and "terminated" not in text.lower():
        seen.run_error = f"%advance 0: {text.strip()}"
    status, text = peer.cell("%current")
    match = re.search(r"Current state: ([^\n]*)", text)
    seen.final_state = match.group(1).strip() if match else ""
    state = re.search(r"Execution state: (\S+)", text)
    seen.status = "terminated" if state and state.group(1).lower().startswith("terminat") else (
        state.group(1).lower() if state else None)
    if "State data:" in text:
        seen.outputs = _state_data(text.split("State data:", 1)[1])
    return seen


def _peer_instance(peer: Peer, case: MachineCase, seen: MachineSeen) -> MachineSeen:
    root = case.spec["instantiate"]
    status, text = peer.cell(f"%instantiate {root}")
    if status != "ok":
        seen.other = "instantiate: " + first_line(text or status)
        return seen
    paths = {""} | set(case.spec.get("objects", {}))
    paths |= {k.rsplit(".", 1)[0] for k in case.spec.get("outputs", {}) if "." in k}
    ident = re.search(r"ID: (\d+)", text)
    short = f"#{ident.group(1)}" if ident else root.rsplit("::", 1)[-1]
    for verb, arg in case.drive:  # `send E to path`: posted to that object, dispatched from a session on it
        event, _, path = arg.partition(" to ")
        where = f"{short}.{path.strip()}" if path.strip() else short
        if verb == "advance":
            commands = [f"%advance {_seconds(arg)}"]
        else:
            commands = [f"%send {event.strip()} to {where}"] + ([f"%state {where}", "%advance 0"] if verb == "send" else [])
        for command in commands:
            status, text = peer.cell(command)
            if status != "ok" and seen.run_error is None and not (command.startswith("%send") and _NOT_SENT.search(text)):
                seen.run_error = f"{command}: {text.strip()}"
    for path in sorted(paths):
        status, text = peer.cell(f"%features {short}{'.' + path if path else ''}")
        if status != "ok":
            continue
        prefix = f"{path}." if path else ""
        features, _, behaviors = text.partition("Behaviors:")
        for name, value in _state_data(features).items():
            seen.outputs[prefix + name] = value
        for name, value in _state_data(behaviors, 4).items():
            seen.outputs.setdefault(prefix + name, value)
        match = re.search(r"exhibited state machine, current state ([^\n]*)", behaviors)
        if match is not None:
            seen.objects[path] = match.group(1).strip()
    return seen


def describe_machine(seen: MachineSeen | None) -> str:
    if seen is None:
        return "(not run)"
    if seen.refused is not None:
        return "refused: " + first_line(seen.refused)
    parts = [seen.other] if seen.other else []
    if seen.run_error:
        parts.append("run error: " + first_line(seen.run_error))
    if seen.final_state is not None:
        parts.append(f"in {seen.final_state}" + (f" ({seen.status})" if seen.status not in (None, "running") else ""))
    if seen.visits:
        parts.append("visits " + ", ".join(seen.visits))
    if seen.objects:
        parts.append("objects: " + ", ".join(f"{k or '(root)'} in {v}" for k, v in sorted(seen.objects.items())))
    if seen.outputs:
        parts.append(", ".join(f"{k} = {v}" for k, v in sorted(seen.outputs.items())))
    return "; ".join(parts) or "(nothing)"


def expected_machine(spec: dict[str, Any]) -> str:
    keys = ("finalState", "stateVisits", "objects", "outputs", "status", "run_error", "refused")
    return "; ".join(f"{k}: {json.dumps(spec[k], ensure_ascii=False)}" for k in keys if k in spec)


# ---------------------------------------------------------------- the comparison


def describe(seen: Observed | None) -> str:
    if seen is None:
        return "(not run)"
    if seen.refused is not None:
        return "refused: " + first_line(seen.refused)
    parts = []
    if seen.other:
        parts.append(seen.other)
    if seen.run_error:
        parts.append("run error: " + first_line(seen.run_error))
    if seen.outputs is not None:
        parts.append("outputs: " + ", ".join(f"{k} = {v}" for k, v in sorted(seen.outputs.items())))
    if seen.verdict:
        parts.append(f"check: {seen.verdict}" + (f" {seen.values}" if seen.values else ""))
    return "; ".join(parts) or "(nothing)"


def expected_text(spec: dict[str, Any]) -> str:
    keys = ("outputs", "run_error", "refused", "check")
    return "; ".join(f"{k}: {json.dumps(spec[k], ensure_ascii=False)}" for k in keys if k in spec)


def print_classes(cases: Sequence[Case | MachineCase], classes: dict[str, str], heading: str = "class") -> None:
    """The classes' table (models, strict xfails, unclear), then each class's xfails with their reasons."""
    print(f"| {heading} | models | xfail | unclear |\n|-------|-------:|------:|--------:|")
    for key, title in classes.items():
        mine = [c for c in cases if c.klass == key]
        print(f"| {title} (`{key}`) | {len(mine)} | {sum('xfail' in c.spec for c in mine)} |"
              f" {sum('unclear' in c.spec for c in mine)} |")
    print(f"| **total** | **{len(cases)}** | **{sum('xfail' in c.spec for c in cases)}** |"
          f" **{sum('unclear' in c.spec for c in cases)}** |\n")
    for key in classes:
        wrong = [c for c in cases if c.klass == key and "xfail" in c.spec]
        if wrong:
            print(f"- **{key}**")
            for c in wrong:
                print(f"  - `{c.name}`: {c.spec['xfail']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peer-venv", default=os.environ.get("REFEREE_PEER_VENV", "/work/peer-venv"))
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--machines", action="store_true", help="the machine cases (tests/referee/states) only")
    ap.add_argument("--actions", action="store_true", help="the action cases (tests/referee/models) only")
    ap.add_argument("--verbose", action="store_true", help="print every case, not only disagreements")
    ap.add_argument("--classes", action="store_true",
                    help="print the models and xfails per class (Markdown) and stop, running nothing")
    args = ap.parse_args()
    os.environ.setdefault("OPENSYSML_KERNEL_DETERMINISTIC", "1")
    cases = [c for c in load_cases() if args.only in c.name] if not args.machines else []
    machines = [c for c in load_machine_cases() if args.only in c.name] if not args.actions else []
    if args.classes:
        if cases:
            print_classes(cases, CLASSES)
        if machines:
            print_classes(machines, MACHINE_CLASSES, "machine class")
        return 0
    peer: Peer | None = None
    if args.no_peer:
        print("peer skipped: --no-peer")
    else:
        cmd, where = peer_command(args.peer_venv)
        if cmd is None:
            print(where)
        else:
            try:
                peer = Peer(cmd)
                print(f"peer: {where}")
            except Exception as error:  # any startup failure skips the peer, named
                print(f"peer skipped: it did not start ({error!r})")
    tally = {"agree": 0, "ours wrong": 0, "peer wrong": 0, "unclear": 0, "ours fixed": 0}
    mtally = dict.fromkeys(tally, 0)
    baseline = {line.strip() for line in (ROOT / "tests" / "referee" / "wrong_when_written.txt")
                .read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")}
    peer_wrong: list[str] = []
    try:
        for case in cases:
            ours = run_ours(case)
            theirs = run_peer(peer, case) if peer is not None else None
            if "unclear" in case.spec:
                _unclear(tally, case.name, case.klass, case.spec["unclear"], describe(ours),
                         None if theirs is None else describe(theirs))
                continue
            mine = judge(case, ours)
            peers = judge(case, theirs, exact=False) if theirs is not None else []
            _count(tally, peer_wrong, baseline, case.name, case.klass, "xfail" in case.spec, mine, peers,
                   args.verbose, expected_text(case.spec), describe(ours),
                   None if theirs is None else describe(theirs))
        for mcase in machines:
            mours = run_ours_machine(mcase)
            mtheirs = run_peer_machine(peer, mcase) if peer is not None else None
            if "unclear" in mcase.spec:
                _unclear(mtally, mcase.name, mcase.klass, mcase.spec["unclear"], describe_machine(mours),
                         None if mtheirs is None else describe_machine(mtheirs))
                continue
            mine = judge_machine(mcase, mours)
            peers = judge_machine(mcase, mtheirs, exact=False) if mtheirs is not None else []
            _count(mtally, peer_wrong, baseline, mcase.name, mcase.klass, "xfail" in mcase.spec, mine, peers,
                   args.verbose, expected_machine(mcase.spec), describe_machine(mours),
                   None if mtheirs is None else describe_machine(mtheirs))
    finally:
        if peer is not None:
            peer.close()
    print()
    suffix = "" if peer is not None else " (no peer)"
    if cases:
        print(f"{len(cases)} action cases: " + ", ".join(f"{k} {v}" for k, v in tally.items()) + suffix)
    if machines:
        print(f"{len(machines)} machine cases: " + ", ".join(f"{k} {v}" for k, v in mtally.items()) + suffix)
    if peer_wrong:
        print("\npeer wrong:")
        for line in peer_wrong:
            print("  " + line)
    return 0


def _unclear(tally: dict[str, int], name: str, klass: str, why: str, ours: str, theirs: str | None) -> None:
    tally["unclear"] += 1
    print(f"~ {name} [{klass}] unclear: {why}")
    print(f"    ours:     {ours}")
    if theirs is not None:
        print(f"    peer:     {theirs}")


def _count(tally: dict[str, int], peer_wrong: list[str], baseline: set[str], name: str, klass: str, xfail: bool,
           mine: list[str], peers: list[str], verbose: bool, expected: str, ours: str, theirs: str | None) -> None:
    """One case into the tally, and its lines printed when someone misses (or always, verbose)."""
    if mine:
        tally["ours wrong"] += 1
    elif name in baseline:
        tally["ours fixed"] += 1
        if xfail:
            print(f"! {name}: meets its expectation now; delete its xfail line")
    if peers:
        tally["peer wrong"] += 1
        peer_wrong.append(f"{name} [{klass}]: {'; '.join(peers)}")
    if not mine and not peers and name not in baseline:
        tally["agree"] += 1
    if mine or peers or verbose:
        print(f"{'✗' if mine or peers else '✓'} {name} [{klass}]")
        print(f"    expected: {expected}")
        print(f"    ours:     {ours}" + (f"  <- {'; '.join(mine)}" if mine else ""))
        if theirs is not None:
            print(f"    peer:     {theirs}" + (f"  <- {'; '.join(peers)}" if peers else ""))


if __name__ == "__main__":
    sys.exit(main())
