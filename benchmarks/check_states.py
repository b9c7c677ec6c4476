"""The check engine over the state-machine families of ../shared/bench/gen_states.py, beside the peer.

Per model (N orthogonal regions of K completion-driven states): our reduced check's states, moves,
wall seconds and peak memory, the unreduced search's states (what the reduction saves), and, when the
peer kernel is installed (see check_scaling.py), its states and wall seconds measured in the same run,
with the ratios. The peer's check searches a machine only up to its initial transition unless it is
advanced, so it is driven as ../shared/bench/README.md "State machines" says: `%engine check`, the
model, `%check-diverge F`, `%state NAME`, `%advance 1`; its figures are those of the advance cell.
Ours searches the same machine with time running to t=1 and the same feature named for divergence.

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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.check_scaling import BENCH, ROOT, in_child, peer_cells, peer_figures

DEFAULT_ROWS = ["indep:4:3", "shared:4:3", "indep:5:3", "shared:5:3", "indep:6:4", "shared:6:4"]


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


def ours_in_process(text: str, name: str, diverge: str, reduce: bool) -> dict[str, object]:
    """One check of the machine here (called in a child process): figures and peak resident memory."""
    sys.path.insert(0, str(ROOT))
    from fractions import Fraction

    import ir
    from engines.runtime import Program

    program = Program(ir.resolve([ir.parse(text, "bench")]))
    check_machine, script = _machine_check()
    started = time.perf_counter()
    result = check_machine(program, name, script(horizon=Fraction(1)), diverge=(diverge,), reduce=reduce)
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    values = {v for o in result.outcomes for k, v in o.values if k == diverge}
    return {"states": result.stats.states, "moves": result.stats.moves, "seconds": seconds, "peak_kb": peak_kb,
            "verdict": result.verdict.value, "values": len(values)}


def _machine_check() -> tuple[Any, Any]:
    """The machine check and its environment's script (engines/check/machine.py)."""
    from engines.check.machine import check_machine
    from engines.runtime.states.driven import Script

    return check_machine, Script


def ours(text: str, name: str, diverge: str, reduce: bool = True) -> dict[str, object] | None:
    try:
        return in_child("check_states.ours_in_process", text, name, diverge, reduce)
    except subprocess.CalledProcessError as failed:
        print(f"  ours failed: {failed.stderr.strip().splitlines()[-1] if failed.stderr else failed}", flush=True)
        return None


def peer(text: str, name: str, diverge: str) -> dict[str, object] | None:
    rows = peer_cells(["%engine check", text, f"%check-diverge {diverge}", f"%state {name}", "%advance 1"])
    return peer_figures(rows[-1]) if rows else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", default=DEFAULT_ROWS, help="mode:n:k")
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    print(f"{'model':<12}{'states':>8}{'moves':>8}{'values':>7}{'wall s':>8}{'peak MB':>8}{'unreduced':>10}"
          f"{'peer states':>12}{'peer s':>8}{'states ratio':>13}{'time ratio':>11}")
    for row in args.rows:
        mode, n, k = row.split(":")
        text, name = model(mode, int(n), int(k))
        mine = ours(text, name, feature(mode))
        if mine is None:
            continue
        full = ours(text, name, feature(mode), reduce=False)
        theirs = None if args.no_peer else peer(text, name, feature(mode))
        seconds = float(mine["seconds"])  # type: ignore[arg-type]
        states = int(mine["states"])  # type: ignore[call-overload]
        line = (f"{mode + ' ' + n + 'x' + k:<12}{states:>8}{mine['moves']:>8}{mine['values']:>7}{seconds:>8.2f}"
                f"{int(mine['peak_kb']) / 1024:>8.0f}{full['states'] if full else '?':>10}")  # type: ignore[call-overload]
        if theirs is not None and theirs.get("seconds"):
            peer_states = theirs.get("states")
            peer_seconds = float(theirs["seconds"])  # type: ignore[arg-type]
            ratio = f"{states / int(peer_states):.2f}" if peer_states else "?"  # type: ignore[call-overload]
            line += f"{peer_states or '?':>12}{peer_seconds:>8.2f}{ratio:>13}{seconds / peer_seconds:>11.2f}"
        print(line, flush=True)
    if os.environ.get("OPENSYSML_KERNEL_DETERMINISTIC") != "1":
        print("(wall times are noisy: compare ratios from one run on one machine)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
