"""The smt engine beside the check engine on the scaling families (../shared/bench/gen_scaling.py): a
fork of N branches of K leaves, asked whether `c` (or `x1`) ends the same on every schedule.

Run as `python benchmarks/smt_scaling.py [--sizes 2x2,3x2,3x3] [--timeout 60]`. Each row prints the
family, N x K, k (the moves the encoding unrolls), each engine's verdict and wall time. The `+input`
rows make each leaf's increment an input the model leaves unbound (`in attribute step : Integer;`):
smt ranges over every Integer, where check has no value to run.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ir
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


def row(family: str, n: int, k: int, text: str, subject: str, feature: str, timeout: float,
        run_check: bool) -> str:
    from engines.smt.answer import solve

    program = Program(ir.resolve([ir.parse(text, f"{family}.sysml")]))
    started = time.monotonic()
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
    return (f"| {family:<12} | {n}x{k} | {answer.k:>3} | {smt:<40} | {smt_time:6.2f}s | {check_text:<38} |"
            f" {check_time} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2x2,3x2,3x3,4x2")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    gen = _generator()
    print("| family       | NxK | k   | smt                                      | time    | check"
          "                                  | time    |")
    print("|---|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        n, k = (int(x) for x in size.split("x"))
        for mode in ("shared", "racy", "indep"):
            text = gen.model(mode, n, k)  # type: ignore[attr-defined]
            subject = gen.qualified_name(mode, n, k)  # type: ignore[attr-defined]
            feature = "x1" if mode == "indep" else "c"
            print(row(mode, n, k, text, subject, feature, args.timeout, True), flush=True)
            if mode != "racy":
                print(row(mode + "+input", n, k, with_input(text), subject, feature, args.timeout, False), flush=True)


if __name__ == "__main__":
    main()
