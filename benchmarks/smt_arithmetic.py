"""The smt engine on small models whose arithmetic is nonlinear (powers, products of two features) or
whose loop z3 must unroll: the questions the tests ask of them (tests/engines/smt/fresh/), timed.

Run as `python benchmarks/smt_arithmetic.py [--timeout 120] [--repeat N]`. Each row prints the model,
the question, the verdict, the wall seconds of the whole question (the encoding, every query, the replay
of each witness; the fastest of N runs), the seconds z3 spent in check-sat and the queries asked. These
models are a handful of moves each: a row that takes seconds is the solver's search, not the model's
size (a bound stated as two comparisons of a value, `v >= B or v <= -B`, once cost pw::Powers a minute).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ir
from benchmarks.smt_scaling import SolverWatch
from engines.runtime import Program

FRESH = Path(__file__).resolve().parents[1] / "tests" / "engines" / "smt" / "fresh"

# (file, subject, question, properties, inputs): what the tests of fresh/ ask of each
ROWS: tuple[tuple[str, str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("powers", "pw::Powers", "outcomes", (), ()),
    ("powers", "pw::Square", "holds", ("pw::NonNegY",), ()),
    ("powers", "pw::Square", "holds", ("pw::BelowHundred",), ()),
    ("literal_loops", "loops::Controller", "outcomes", (), ()),
    ("literal_loops", "loops::Race", "outcomes", (), ()),
    ("literal_loops", "loops::Rates", "outcomes", (), ()),
    ("retry", "retry::Retry", "holds", ("retry::NeverGaveUp",), ("failUntil",)),
)


def row(name: str, subject: str, question: str, properties: tuple[str, ...], inputs: tuple[str, ...],
        timeout: float, repeat: int) -> str:
    from engines.smt.answer import solve

    text = (FRESH / f"{name}.sysml").read_text(encoding="utf-8")
    program = Program(ir.resolve([ir.parse(text, f"{name}.sysml")]))
    best: tuple[float, float, int] | None = None
    verdict = ""
    for _ in range(repeat):
        started = time.monotonic()
        with SolverWatch() as watch:
            answer = solve(program, subject, question, properties=properties, inputs=inputs,
                           diverge=() if question == "holds" else None, solver_seconds=timeout)
        wall = time.monotonic() - started
        verdict = answer.verdict
        if best is None or wall < best[0]:
            best = (wall, watch.seconds, watch.queries)
    assert best is not None
    asked = question + (f" {', '.join(p.split('::')[-1] for p in properties)}" if properties else "")
    return f"| {subject:<18} | {asked:<22} | {verdict:<10} | {best[0]:7.2f}s | {best[1]:7.2f}s | {best[2]:>7} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=120.0, help="z3's seconds per query")
    parser.add_argument("--repeat", type=int, default=1, help="runs per row (the fastest is printed)")
    args = parser.parse_args()
    print("| subject            | question               | verdict    | time     | solver   | queries |")
    print("|---|---|---|---|---|---|")
    for name, subject, question, properties, inputs in ROWS:
        print(row(name, subject, question, properties, inputs, args.timeout, args.repeat), flush=True)


if __name__ == "__main__":
    main()
