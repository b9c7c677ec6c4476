"""Parse-time benchmark: a generated 2,000-line model of 200 action defs, parsed five times.

Run as `python benchmarks/parse.py [--defs N] [--runs N] [--profile]`. It prints the cold figure
(the first parse in the process, which builds the parser, from lark's grammar cache when present)
and the median of the warm runs; the target is a warm median under 0.3 s for 200 defs.

`python benchmarks/parse.py --rows` prints instead the submission rows: models of 2,000, 20,000 and
50,000 lines (action defs as above, and one action of that many attributes) parsed and resolved, as a
cell is submitted, each in a fresh process, with the wall and CPU time and the process's peak memory;
and a 5 MB comment and a 5 MB string, whose lexing must stay under 100 MB peak. `--usual` takes lark's
parse tree and the transformer's walk instead of the fast driver (the path before it), so both can be
measured under the same load; `--only KIND` keeps one kind of row.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ir.parse import _driver, parse, parse_usual, parser


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


def attributes(count: int) -> str:
    """One action of `count` attributes (each line a lookup that misses by name first: the old quadratic)."""
    lines = ["package Wide {", "  private import ScalarValues::*;", "  action Many {"]
    lines += [f"    attribute a{i} : Integer := {i};" for i in range(count)]
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def big_text(kind: str, size: int) -> str:
    """A model holding one comment (or string) of about `size` characters, with `*` and `/` inside."""
    if kind == "comment":
        return "package P {\n/* " + "lorem ipsum dolor * sit amet /\n" * (size // 32) + " */\n  attribute x;\n}\n"
    return 'package P {\n  attribute s = "' + "lorem ipsum \\\" dolor sit amet " * (size // 32) + '";\n}\n'


def submission_row(kind: str, size: int, usual: bool = False) -> str:
    """One row, measured in this process (run it in a fresh one): parse + resolve time and peak memory.
    With `usual`, the text is parsed by lark's parse tree and the transformer's walk (the path before the
    fast driver, with the cyclic collector running), for a before/after on the same machine and load."""
    import ir

    parser()  # built before the clock starts: the rows are about the text, not the grammar
    _driver()
    if kind == "defs":
        text = model(size // 10)
    elif kind == "attributes":
        text = attributes(size)
    else:
        text = big_text(kind, size)
    lines = text.count("\n")
    started, cpu = time.perf_counter(), time.process_time()
    ir.resolve([(parse_usual if usual else parse)(text, "benchmark.sysml")])
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (f"  {kind:10} {lines:>9,} lines {len(text) / 1e6:6.1f} MB   {elapsed:7.2f} s  cpu {cpu:6.2f} s"
            f"   peak {peak:6.0f} MB")


def rows(usual: bool, only: str | None) -> None:
    print(f"submission (parse + resolve, fresh process each; {'lark parse tree' if usual else 'fast driver'}; "
          "wall and CPU seconds; peak = the process's resident peak)")
    for kind, size in [("defs", 2_000), ("defs", 20_000), ("defs", 50_000), ("attributes", 2_000),
                       ("attributes", 8_000), ("attributes", 50_000), ("comment", 5_000_000),
                       ("string", 5_000_000)]:
        if only is not None and only != kind:
            continue
        done = subprocess.run([sys.executable, __file__, "--row", kind, str(size), *(["--usual"] if usual else [])],
                              capture_output=True, text=True, check=True)
        print(done.stdout.rstrip(), flush=True)


def timed(text: str) -> float:
    start = time.perf_counter()
    parse(text, "benchmark.sysml")
    return time.perf_counter() - start


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--defs", type=int, default=200)
    options.add_argument("--runs", type=int, default=5)
    options.add_argument("--profile", action="store_true", help="print the top of a cProfile of one warm run")
    options.add_argument("--rows", action="store_true", help="the submission rows (2k/20k/50k lines, 5 MB comment)")
    options.add_argument("--usual", action="store_true", help="rows through lark's parse tree (the path before)")
    options.add_argument("--only", help="rows of one kind (defs, attributes, comment, string)")
    options.add_argument("--row", nargs=2, metavar=("KIND", "SIZE"), help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.row:
        print(submission_row(args.row[0], int(args.row[1]), args.usual))
        return
    if args.rows:
        rows(args.usual, args.only)
        return

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
