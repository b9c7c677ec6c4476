"""The check engine over the state-machine families of ../shared/bench/gen_states.py, beside the peer.

Per model (N orthogonal regions of K completion-driven states): our reduced check's states, moves,
wall seconds and peak memory, the unreduced search's states (what the reduction saves), and, when the
peer kernel is installed (see check_scaling.py), its states and wall seconds measured in the same run,
with the ratios. The peer's check searches a machine only up to its initial transition unless it is
advanced, so it is driven as ../shared/bench/README.md "State machines" says: `%engine check`, the
model, `%check-diverge F`, `%state NAME`, `%advance 1`; its figures are those of the advance cell.
Ours searches the same machine with time running to t=1 and the same feature named for divergence.
Printed as a markdown table (ratios are ours / the peer's), then each family's growth: the law its
states follow on every row, else their log-log slope against N*K. A side whose check of a row takes
longer than --limit seconds (default 60) is not run on the mode's larger rows; the peer is stopped there.

    python benchmarks/check_states.py                       # the issue's rows
    python benchmarks/check_states.py indep:4:3 shared:6:4  # chosen rows
    python benchmarks/check_states.py --no-peer             # ours only
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from math import factorial, log
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.check_scaling import BENCH, ROOT, in_child, peer_cells, peer_figures

DEFAULT_ROWS = ["indep:4:3", "indep:5:3", "indep:6:4", "indep:7:4", "indep:8:5", "indep:10:6",
                "shared:4:3", "shared:5:3", "shared:6:4", "shared:7:4", "shared:8:5", "shared:10:6"]


def model(mode: str, n: int, k: int) -> tuple[str, str]:
    gen = str(BENCH / "gen_states.py")
    text = subprocess.run([sys.executable, gen, mode, str(n), str(k)], capture_output=True, text=True,
                          check=True).stdout
    name = subprocess.run([sys.executable, gen, "--name", mode, str(n), str(k)], capture_output=True,
                          text=True, check=True).stdout.strip()
    return text, name


def feature(mode: str) -> str:
    """The feature asked for divergence: the shared counter, or the first region's own."""
    return "c" if mode == "shared" else "x1"


def ours_in_process(text: str, name: str, diverge: str, reduce: bool, timeout: float | None = None) -> dict[str, object]:
    """One check of the machine here (called in a child process): figures and peak resident memory;
    `timeout` seconds at most (the search stops there: `stopped`)."""
    sys.path.insert(0, str(ROOT))
    from fractions import Fraction

    import ir
    from engines.framework import Bounds
    from engines.runtime import Program

    program = Program(ir.resolve([ir.parse(text, "bench")]))
    check_machine, script = _machine_check()
    started = time.perf_counter()
    bounds = Bounds().with_(timeout=timeout) if timeout is not None else Bounds()
    result = check_machine(program, name, script(horizon=Fraction(1)), bounds, diverge=(diverge,), reduce=reduce)
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    values = {v for o in result.outcomes for k, v in o.values if k == diverge}
    return {"states": result.stats.states, "moves": result.stats.moves, "seconds": seconds, "peak_kb": peak_kb,
            "verdict": result.verdict.value, "values": len(values),
            "stopped": timeout is not None and seconds >= timeout}


def _machine_check() -> tuple[Any, Any]:
    """The machine check and its environment's script (engines/check/machine.py)."""
    from engines.check.machine import check_machine
    from engines.runtime.states.driven import Script

    return check_machine, Script


def ours(text: str, name: str, diverge: str, reduce: bool = True, timeout: float | None = None) -> dict[str, object] | None:
    try:
        return in_child("check_states.ours_in_process", text, name, diverge, reduce, timeout)
    except subprocess.CalledProcessError as failed:
        print(f"  ours failed: {failed.stderr.strip().splitlines()[-1] if failed.stderr else failed}", flush=True)
        return None


def peer(text: str, name: str, diverge: str, limit: float) -> dict[str, object] | None:
    """The peer's figures of the advance cell; {"seconds": None} when it ran past `limit` seconds."""
    cells = ["%engine check", text, f"%check-diverge {diverge}", f"%state {name}", "%advance 1"]
    rows = peer_cells(cells, timeout=limit + 30)  # the kernel's start and the first cells are not timed
    if rows is None:
        return None
    if len(rows) < len(cells):
        return {"states": None, "seconds": None}
    return peer_figures(rows[-1])


# growth laws a family's figures are held against (a law is printed when it gives every row exactly)
LAWS: dict[str, Callable[[int, int], int]] = {
    "N*K + 1": lambda n, k: n * k + 1,
    "N*K + N + 1": lambda n, k: n * k + n + 1,
    "N! * (N*K + 1)": lambda n, k: factorial(n) * (n * k + 1),
    "N! * (N*K + N + 1)": lambda n, k: factorial(n) * (n * k + n + 1),
}


def growth(points: list[tuple[int, int, int]]) -> str:
    """The law the states of (N, K, states) rows follow, else the log-log slope against N*K."""
    if not points:
        return "no rows"
    for law, f in LAWS.items():
        if all(f(n, k) == states for n, k, states in points):
            return f"states = {law} on every row"
    (n0, k0, s0), (n1, k1, s1) = points[0], points[-1]
    if n0 * k0 == n1 * k1 or not s0 or not s1:
        return "states " + ", ".join(str(s) for _, _, s in points)
    return f"states grow as (N*K)^{log(s1 / s0) / log(n1 * k1 / (n0 * k0)):.1f} between the first and last rows"


def _cell(value: object, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{float(value):.{digits}f}" if digits else str(value)  # type: ignore[arg-type]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", default=DEFAULT_ROWS, help="mode:n:k")
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--limit", type=float, default=60.0,
                        help="seconds a check may take: past it that side's larger rows of the mode are skipped")
    args = parser.parse_args()
    print("| model | ours states | ours s | ours unreduced | ours values | peer states | peer s | states ratio "
          "| time ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    slow: set[tuple[str, str]] = set()  # (side, mode) past the limit: its larger rows are skipped
    mine_points: dict[str, list[tuple[int, int, int]]] = {}
    peer_points: dict[str, list[tuple[int, int, int]]] = {}
    for row in args.rows:
        mode, n, k = row.split(":")
        text, name = model(mode, int(n), int(k))
        mine = None if ("ours", mode) in slow else ours(text, name, feature(mode))
        # the unreduced search only to show what the reduction saves: stopped at the limit
        full = ours(text, name, feature(mode), reduce=False, timeout=args.limit) if mine is not None else None
        theirs = None if args.no_peer or ("peer", mode) in slow else peer(text, name, feature(mode), args.limit)
        seconds = float(mine["seconds"]) if mine else None  # type: ignore[arg-type]
        states = int(mine["states"]) if mine else None  # type: ignore[call-overload]
        peer_states = theirs.get("states") if theirs else None
        peer_seconds = float(theirs["seconds"]) if theirs and theirs.get("seconds") else None  # type: ignore[arg-type]
        if seconds is not None and seconds > args.limit:
            slow.add(("ours", mode))
        if theirs is not None and (peer_seconds is None or peer_seconds > args.limit):
            slow.add(("peer", mode))
        if states is not None:
            mine_points.setdefault(mode, []).append((int(n), int(k), states))
        if peer_states:
            peer_points.setdefault(mode, []).append((int(n), int(k), int(peer_states)))  # type: ignore[call-overload]
        ratio = f"{states / int(peer_states):.3f}" if states and peer_states else "-"  # type: ignore[call-overload]
        time_ratio = f"{seconds / peer_seconds:.3f}" if seconds is not None and peer_seconds else "-"
        peer_time = _cell(peer_seconds, 2) if peer_seconds else (f"> {args.limit:.0f}" if theirs else "-")
        print(f"| {mode} {n}x{k} | {_cell(states)} | {_cell(seconds, 2)} | {('> ' if full and full.get('stopped') else '') + _cell(full['states'] if full else None)} "
              f"| {_cell(mine['values'] if mine else None)} | {_cell(peer_states)} | {peer_time} | {ratio} "
              f"| {time_ratio} |", flush=True)
    print()
    for mode in dict.fromkeys(row.split(":")[0] for row in args.rows):
        print(f"growth, {mode}: ours {growth(mine_points.get(mode, []))}; "
              f"peer {growth(peer_points.get(mode, [])) if not args.no_peer else 'not run'}")
    if os.environ.get("OPENSYSML_KERNEL_DETERMINISTIC") != "1":
        print("(wall times are noisy: compare ratios from one run on one machine)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
