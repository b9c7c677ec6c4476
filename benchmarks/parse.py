"""Parse-time benchmark: a generated 2,000-line model of 200 action defs, parsed five times.

Run as `python benchmarks/parse.py [--defs N] [--runs N] [--profile]`. It prints the cold figure
(the first parse in the process, which builds the parser, from lark's grammar cache when present)
and the median of the warm runs; the target is a warm median under 0.3 s for 200 defs.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ir.parse import parse, parser


def action_def(i: int) -> list[str]:
    """One action def of ten lines: attributes, first start, a fork, assigns, successions, join, done."""
    return [
        f"  action def Step{i} {{",
        f"    attribute count : Integer := {i};",
        "    first start then split;",
        "    fork split;",
        "      then left;",
        "      then right;",
        f"    action left {{ assign count := count + {i % 7 + 1}; }}",
        f"    action right {{ if count < {i % 10 + 5} {{ assign count := count * 2; }} }}",
        "    succession left then sync; succession right then sync; join sync; then done;",
        "  }",
    ]


def model(defs: int) -> str:
    lines = ["package Benchmark {", "  private import ScalarValues::*;"]
    for i in range(defs):
        lines += action_def(i)
    lines.append("}")
    return "\n".join(lines) + "\n"


def timed(text: str) -> float:
    start = time.perf_counter()
    parse(text, "benchmark.sysml")
    return time.perf_counter() - start


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--defs", type=int, default=200)
    options.add_argument("--runs", type=int, default=5)
    options.add_argument("--profile", action="store_true", help="print the top of a cProfile of one warm run")
    args = options.parse_args()

    text = model(args.defs)
    lines = text.count("\n")
    started = time.perf_counter()
    parser()
    build = time.perf_counter() - started
    cold = timed(text)
    warm = [timed(text) for _ in range(args.runs)]

    print(f"model:        {lines} lines, {args.defs} action defs")
    print(f"parser build: {build:.3f} s (first in this process; lark's grammar cache when present)")
    print(f"first parse:  {cold:.3f} s")
    print(f"warm median:  {statistics.median(warm):.3f} s over {args.runs} runs "
          f"(min {min(warm):.3f}, max {max(warm):.3f}); {lines / statistics.median(warm):,.0f} lines/s")

    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(parse, text, "benchmark.sysml")
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
