"""Snapshot and restore cost: over the scaling models, microseconds per snapshot and per restore,
taken at every state of the first schedule (a fine run); then over runs of growing size (an action
holding n features and n finished performances), one move between snapshot and restore, to show
that a restore costs what the move changed, not what the run holds.

    python benchmarks/snapshot.py [mode:n:k ...]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ir  # noqa: E402
from benchmarks.check_scaling import model  # noqa: E402
from engines.runtime import Program  # noqa: E402


def measure(mode: str, n: int, k: int) -> tuple[int, float, float, int]:
    text, name = model(mode, n, k)
    program = Program(ir.resolve([ir.parse(text, "bench")]))
    run = program.start_action(name, fine=True)
    run.ctx.trace.enabled = False
    takes: list[float] = []
    restores: list[float] = []
    frames = 0
    while not run.finished:
        started = time.perf_counter()
        snap = run.snapshot()
        takes.append(time.perf_counter() - started)
        moves = run.enabled_moves()
        if not moves:
            break
        run.apply(moves[0])
        started = time.perf_counter()
        snap.restore()
        restores.append(time.perf_counter() - started)
        frames = max(frames, 1 + len(run.root.frame.pins))
        run.apply(moves[0])
        snap.release()
    return len(takes), statistics.median(takes) * 1e6, statistics.median(restores) * 1e6, frames


def sized(n: int) -> str:
    """An action holding n features, whose first n nodes write one each, then two nodes more."""
    features = "".join(f"\t\tattribute x{i} : Integer := 0;\n" for i in range(n))
    nodes = "".join(f"\t\taction w{i} {{ attribute t : Integer := x{i}; assign x{i} := t + 1; }}\n"
                    for i in range(n + 2))
    chain = "".join(f"\t\tsuccession first w{i} then w{i + 1};\n" for i in range(n + 1))
    return (f"package sized {{\n\tprivate import ScalarValues::*;\n\taction def Sized {{\n{features}"
            f"\t\tattribute y : Integer := 0;\n\t\tfirst start;\n\t\tthen w0;\n{nodes}{chain}\t}}\n}}\n")


def restore_by_size(n: int, repeats: int = 2000) -> tuple[int, float]:
    """Microseconds to restore a snapshot over one move, in a run holding n features and n pins."""
    program = Program(ir.resolve([ir.parse(sized(n), "sized")]))
    run = program.start_action("sized::Sized", fine=True)
    run.ctx.trace.enabled = False
    while len(run.root.frame.pins) < n:
        run.apply(run.enabled_moves()[0])
    snap = run.snapshot()
    move = run.enabled_moves()[0]
    spent = 0.0
    for _ in range(repeats):
        run.apply(move)
        started = time.perf_counter()
        snap.restore()
        spent += time.perf_counter() - started
    snap.release()
    return len(run.root.frame.values) + len(run.root.frame.pins), spent / repeats * 1e6


def main() -> int:
    rows = sys.argv[1:] or ["indep:6:4", "shared:6:4", "racy:3:3"]
    print(f"{'model':<12}{'states':>8}{'snapshot us':>13}{'restore us':>12}{'frames':>8}")
    for row in rows:
        mode, n, k = row.split(":")
        count, take, restore, frames = measure(mode, int(n), int(k))
        print(f"{mode + ' ' + n + 'x' + k:<12}{count:>8}{take:>13.1f}{restore:>12.1f}{frames:>8}")
    print()
    print(f"{'run holds':<12}{'restore us':>12}   (features and pins; one move between snapshot and restore)")
    for n in (10, 100, 1000):
        held, restore = restore_by_size(n)
        print(f"{held:<12}{restore:>12.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
