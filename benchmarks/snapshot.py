"""Snapshot and restore cost over the scaling models: microseconds per snapshot and per restore,
taken at every state of the first schedule (a fine run), beside the size of the run's state.

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


def main() -> int:
    rows = sys.argv[1:] or ["indep:6:4", "shared:6:4", "racy:3:3"]
    print(f"{'model':<12}{'states':>8}{'snapshot us':>13}{'restore us':>12}{'frames':>8}")
    for row in rows:
        mode, n, k = row.split(":")
        count, take, restore, frames = measure(mode, int(n), int(k))
        print(f"{mode + ' ' + n + 'x' + k:<12}{count:>8}{take:>13.1f}{restore:>12.1f}{frames:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
