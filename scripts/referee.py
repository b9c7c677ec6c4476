#!/usr/bin/env python3
"""Run every referee model (tests/referee/models) through this tool and, where it is installed,
through the peer kernel (`jupyter-opensysml-kernel` from PyPI, a dev-only comparison, never a
dependency); print every disagreement (ours vs expected vs peer) and the tally.

    python scripts/referee.py [--peer-venv DIR] [--no-peer] [--only SUBSTRING] [--verbose]

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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.referee.cases import Case, Observed, first_line, judge, load_cases, run_ours  # noqa: E402

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


def print_classes(cases: list[Case]) -> None:
    from tests.referee.cases import CLASSES

    print("| class | models | xfail | unclear |\n|-------|-------:|------:|--------:|")
    for key, title in CLASSES.items():
        mine = [c for c in cases if c.klass == key]
        print(f"| {title} (`{key}`) | {len(mine)} | {sum('xfail' in c.spec for c in mine)} |"
              f" {sum('unclear' in c.spec for c in mine)} |")
    print(f"| **total** | **{len(cases)}** | **{sum('xfail' in c.spec for c in cases)}** |"
          f" **{sum('unclear' in c.spec for c in cases)}** |\n")
    for key in CLASSES:
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
    ap.add_argument("--verbose", action="store_true", help="print every case, not only disagreements")
    ap.add_argument("--classes", action="store_true",
                    help="print the models and xfails per class (Markdown) and stop, running nothing")
    args = ap.parse_args()
    os.environ.setdefault("OPENSYSML_KERNEL_DETERMINISTIC", "1")
    cases = [c for c in load_cases() if args.only in c.name]
    if args.classes:
        print_classes(cases)
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
    baseline = {line.strip() for line in (ROOT / "tests" / "referee" / "wrong_when_written.txt")
                .read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")}
    peer_wrong: list[str] = []
    ours_wrong: list[str] = []
    try:
        for case in cases:
            ours = run_ours(case)
            theirs = run_peer(peer, case) if peer is not None else None
            if "unclear" in case.spec:
                tally["unclear"] += 1
                print(f"~ {case.name} [{case.klass}] unclear: {case.spec['unclear']}")
                print(f"    ours:     {describe(ours)}")
                if theirs is not None:
                    print(f"    peer:     {describe(theirs)}")
                continue
            mine = judge(case, ours)
            peers = judge(case, theirs, exact=False) if theirs is not None else []
            if mine:
                tally["ours wrong"] += 1
                ours_wrong.append(f"{case.name} [{case.klass}]: {'; '.join(mine)}")
            elif case.name in baseline:
                tally["ours fixed"] += 1
                if "xfail" in case.spec:
                    print(f"! {case.name}: meets its expectation now; delete its xfail line")
            if peers:
                tally["peer wrong"] += 1
                peer_wrong.append(f"{case.name} [{case.klass}]: {'; '.join(peers)}")
            if not mine and not peers and case.name not in baseline:
                tally["agree"] += 1
            if mine or peers or args.verbose:
                mark = "✗" if mine or peers else "✓"
                print(f"{mark} {case.name} [{case.klass}]")
                print(f"    expected: {expected_text(case.spec)}")
                print(f"    ours:     {describe(ours)}" + (f"  <- {'; '.join(mine)}" if mine else ""))
                if theirs is not None:
                    print(f"    peer:     {describe(theirs)}" + (f"  <- {'; '.join(peers)}" if peers else ""))
    finally:
        if peer is not None:
            peer.close()
    print()
    print(f"{len(cases)} cases: " + ", ".join(f"{k} {v}" for k, v in tally.items())
          + ("" if peer is not None else " (no peer)"))
    if peer_wrong:
        print("\npeer wrong:")
        for line in peer_wrong:
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
