"""The smt engine beside the check engine on the scaling families (../shared/bench/gen_scaling.py): a
fork of N branches of K leaves, asked whether `c` (or `x1`) ends the same on every schedule.

Run as `python benchmarks/smt_scaling.py [--sizes 2x2,3x2,3x3] [--timeout 60] [--no-peer]`. Each row
prints the family, N x K, k (the moves the encoding unrolls), each engine's verdict and wall time, and,
where the peer kernel is installed (benchmarks/check_scaling.py says how it is found), the peer's smt
engine asked the same question in the same run (`%engine smt`, `%check-diverge F`, `%action NAME`; its
solver needs `z3` on PATH, taken from the peer's virtual environment when the PATH has none): its
verdict and the wall seconds of its check cell. `variables` counts the distinct solver constants of the
largest query asked, `solver` the seconds z3 spent in check-sat (of `time`, the whole question: the
encoding, the queries, the replay of each witness). The `+input` rows make each leaf's increment an input
the model leaves unbound (`in attribute step : Integer;`): smt ranges over every Integer, where check
has no value to run (the peer is not asked: it binds no input it is not given).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ir
from benchmarks.check_scaling import ROOT, peer_cells, peer_command
from engines.check.search import check
from engines.framework import Bounds
from engines.runtime import Program

GENERATOR = Path(__file__).resolve().parents[2] / "shared" / "bench" / "gen_scaling.py"


def _generator() -> object:
    spec = importlib.util.spec_from_file_location("gen_scaling", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def with_input(text: str) -> str:
    """The family with each leaf's increment an unbound input `step`."""
    text = text.replace("attribute c : Integer := 0;", "attribute c : Integer := 0;\n\t\tin attribute step : Integer;")
    text = text.replace("attribute x1 : Integer := 0;", "attribute x1 : Integer := 0;\n\t\tin attribute step : Integer;")
    return text.replace("+ 1;", "+ step;")


def peer_smt(text: str, subject: str, feature: str, timeout: float) -> str:
    """The peer's smt answer to the same question: its verdict line's word and its cell's wall seconds."""
    rows = peer_cells(["%engine smt", text, f"%check-diverge {feature}", f"%action {subject}"], timeout=timeout + 60)
    if not rows:
        return "| - | - |"
    output = json.dumps(rows[-1].get("outputs", ""))
    found = re.search(r"standing: ([a-z ,]+)", output)
    verdict = found.group(1).strip() if found else "?"
    return f"| {verdict} | {float(rows[-1].get('wall_s') or 0):6.2f}s |"


def _z3_on_path() -> None:
    """The peer's solver is the `z3` on PATH: the peer's virtual environment's, when there is none."""
    if shutil.which("z3") is None:
        venv_bin = ROOT / ".." / "peer-venv" / "bin"
        if (venv_bin / "z3").exists():
            os.environ["PATH"] = f"{venv_bin.resolve()}{os.pathsep}{os.environ['PATH']}"


class SolverWatch:
    """Around one question: the seconds z3 spends in check-sat, the queries (check-sats) asked, and the
    variables of the largest query (the distinct uninterpreted constants its assertions mention).
    Measured by wrapping z3's Solver here, so the product carries no instrumentation."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.queries = 0
        self.variables = 0

    def __enter__(self) -> SolverWatch:
        import z3

        self._check = z3.Solver.check
        watch, check = self, self._check

        def timed(solver: z3.Solver, *assumptions: object) -> object:
            watch.variables = max(watch.variables, _variables(solver))
            watch.queries += 1
            started = time.monotonic()
            try:
                return check(solver, *assumptions)
            finally:
                watch.seconds += time.monotonic() - started

        z3.Solver.check = timed  # type: ignore[method-assign]
        return self

    def __exit__(self, *_: object) -> None:
        import z3

        z3.Solver.check = self._check  # type: ignore[method-assign]


def _variables(solver: object) -> int:
    """The distinct uninterpreted constants in a solver's assertions (each shared subterm walked once)."""
    import z3

    assert isinstance(solver, z3.Solver)
    seen: set[int] = set()
    names: set[str] = set()
    todo = list(solver.assertions())
    while todo:
        term = todo.pop()
        key = term.get_id()
        if key in seen:
            continue
        seen.add(key)
        if z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            names.add(term.decl().name())
        elif z3.is_app(term):
            todo.extend(term.children())
        elif z3.is_quantifier(term):
            todo.append(term.body())
    return len(names)


def row(family: str, n: int, k: int, text: str, subject: str, feature: str, timeout: float,
        run_check: bool, with_peer: bool = False) -> str:
    from engines.smt.answer import solve

    program = Program(ir.resolve([ir.parse(text, f"{family}.sysml")]))
    started = time.monotonic()
    with SolverWatch() as watch:
        answer = solve(program, subject, "sensitive", diverge=(feature,), solver_seconds=timeout)
    smt_time = time.monotonic() - started
    smt = answer.verdict + (f" ({answer.reason})" if answer.reason else "")
    if run_check:
        started = time.monotonic()
        result = check(Program(program.model), subject, Bounds(timeout=timeout), diverge=(feature,))
        check_text = f"{result.verdict.value} ({result.stats.states} states)"
        check_time = f"{time.monotonic() - started:6.2f}s"
    else:
        check_text, check_time = "- (no value for the input)", "      "
    line = (f"| {family:<12} | {n}x{k} | {answer.k:>3} | {watch.variables:>6} | {smt:<40} | {smt_time:6.2f}s |"
            f" {watch.seconds:6.2f}s | {check_text:<38} | {check_time} |")
    return line + (" " + peer_smt(text, subject, feature, timeout)[2:] if with_peer else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2x2,3x2,3x3,4x2")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--no-peer", action="store_true", help="ours only")
    args = parser.parse_args()
    gen = _generator()
    with_peer = not args.no_peer and peer_command() is not None
    if with_peer:
        _z3_on_path()
    print("| family       | NxK | k   | variables | smt                                      | time    | solver  | check"
          "                                  | time    |" + (" peer smt | peer time |" if with_peer else ""))
    print("|---|---|---|---|---|---|---|---|---|" + ("---|---|" if with_peer else ""))
    for size in args.sizes.split(","):
        n, k = (int(x) for x in size.split("x"))
        for mode in ("shared", "racy", "indep"):
            text = gen.model(mode, n, k)  # type: ignore[attr-defined]
            subject = gen.qualified_name(mode, n, k)  # type: ignore[attr-defined]
            feature = "x1" if mode == "indep" else "c"
            print(row(mode, n, k, text, subject, feature, args.timeout, True, with_peer), flush=True)
            if mode != "racy":
                print(row(mode + "+input", n, k, with_input(text), subject, feature, args.timeout, False), flush=True)


if __name__ == "__main__":
    main()
