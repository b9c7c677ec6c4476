"""The check engine over the scaling families of ../shared/bench/gen_scaling.py, beside the peer.

Prints, per model: states, moves, wall seconds, moves per second, microseconds per state and per
move (the per-state cost benchmarks/lean_floor.py measures the floor of) and peak memory of our check, and,
when `jupyter-opensysml-kernel` is importable (dev only, never a dependency), the peer's states and
wall seconds measured in the same run through ../shared/bench/peer_kernel.py, with the ratios.
Each of our checks runs in a fresh process so its peak memory is its own.

    python benchmarks/check_scaling.py                      # the issue's rows
    python benchmarks/check_scaling.py racy:3:3 shared:6:4  # chosen rows
    python benchmarks/check_scaling.py --no-peer            # ours only
    PEER_KERNEL_CMD='<peer venv>/lib/python3.11/site-packages/jupyter_opensysml_kernel/bin/sysml-jupyter-kernel \
        -connection-file {connection_file}' python benchmarks/check_scaling.py
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / ".." / "shared" / "bench"
DEFAULT_ROWS = ["indep:6:4", "shared:5:4", "shared:6:4", "racy:3:2", "racy:3:3"]


def model(mode: str, n: int, k: int) -> tuple[str, str]:
    gen = str(BENCH / "gen_scaling.py")
    text = subprocess.run([sys.executable, gen, mode, str(n), str(k)], capture_output=True, text=True,
                          check=True).stdout
    name = subprocess.run([sys.executable, gen, "--name", mode, str(n), str(k)], capture_output=True,
                          text=True, check=True).stdout.strip()
    return text, name


def ours_in_process(text: str, name: str, flat: bool = True) -> dict[str, object]:
    """One check here (called in a child process): figures and peak resident memory; `flat`: through the
    action's flat form where it covers the action (else the interpreter's run)."""
    sys.path.insert(0, str(ROOT))
    import ir
    from engines.check import check
    from engines.runtime import Program

    program = Program(ir.resolve([ir.parse(text, "bench")]))
    started = time.perf_counter()
    result = check(program, name, flat=flat)
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"states": result.stats.states, "moves": result.stats.moves, "depth": result.stats.depth,
            "seconds": seconds, "peak_kb": peak_kb, "verdict": result.verdict.value}


def in_child(function: str, text: str, *args: object) -> dict[str, object]:
    """`benchmarks.<function>(text, *args)` in a fresh process (so its peak memory is its own): the
    JSON object it returns."""
    module, _, name = function.rpartition(".")
    code = (f"import json, sys; sys.path.insert(0, {str(ROOT)!r}); "
            f"from benchmarks.{module} import {name}; "
            f"print(json.dumps({name}(sys.stdin.read(), *{args!r})))")
    out = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def ours(text: str, name: str, flat: bool = True) -> dict[str, object]:
    return in_child("check_scaling.ours_in_process", text, name, flat)


def floor_in_process(text: str, mode: str, n: int, k: int) -> dict[str, object]:
    """The lean-Python floor over the same graph (benchmarks/lean_floor.py), in a child process too."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.lean_floor import search

    states, moves, seconds = search(mode, n, k)
    return {"states": states, "moves": moves, "seconds": seconds}


def peer_command() -> str | None:
    """How to start the peer: $PEER_KERNEL_CMD, the binary of an importable jupyter-opensysml-kernel, or
    that of one installed in a virtual environment `peer-venv` beside the checkout."""
    if os.environ.get("PEER_KERNEL_CMD"):
        return os.environ["PEER_KERNEL_CMD"]
    try:
        import jupyter_opensysml_kernel as pkg
    except ImportError:
        found = sorted((ROOT / ".." / "peer-venv").glob("lib/python3*/site-packages/jupyter_opensysml_kernel"))
        if not found:
            return None
        binary = found[-1] / "bin" / "sysml-jupyter-kernel"
    else:
        binary = Path(pkg.__file__).parent / "bin" / "sysml-jupyter-kernel"
    return f"{binary} -connection-file {{connection_file}}"


def peer_cells(cells: list[str], timeout: float = 3600) -> list[dict[str, object]] | None:
    """The peer kernel run over `cells` in one fresh kernel: one record per cell (outputs, wall_s), or
    None when no peer is installed. Past `timeout` seconds the driver and the kernel it started (one
    process group) are killed: the records of the cells that finished are returned."""
    command = peer_command()
    if command is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.cells"
        path.write_text("\n//%%\n".join(cells) + "\n", encoding="utf-8")
        record = Path(tmp) / "m.jsonl"
        driver = subprocess.Popen([sys.executable, str(BENCH / "peer_kernel.py"), "--cmd", command, "--quiet-src",
                                   "-f", str(path), "--jsonl", str(record)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            driver.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            for pid in [*_descendants(driver.pid), driver.pid]:  # the kernel runs in a session of its own
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            driver.wait()
        if not record.exists():
            return []
        return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines() if line.strip()]


def _descendants(pid: int) -> list[int]:
    """The processes `pid` started, and theirs (Linux: read from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text(encoding="utf-8").rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        child = todo.pop()
        out.append(child)
        todo.extend(children.get(child, []))
    return out


def peer_figures(cell: dict[str, object]) -> dict[str, object]:
    """States, moves and wall seconds of one peer check cell (`(S states, M moves`)."""
    output = json.dumps(cell.get("outputs", ""))
    m = re.search(r"\((\d[\d,]*) states, (\d[\d,]*) moves", output)
    if m is None:
        return {"states": None, "moves": None, "seconds": cell.get("wall_s")}
    return {"states": int(m.group(1).replace(",", "")), "moves": int(m.group(2).replace(",", "")),
            "seconds": cell.get("wall_s")}


def peer(text: str, name: str) -> dict[str, object] | None:
    """The peer kernel's check of the same model: states and the check cell's wall seconds."""
    rows = peer_cells(["%engine check", text, f"%action {name}"])
    return peer_figures(rows[-1]) if rows else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", default=DEFAULT_ROWS, help="mode:n:k")
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--interpreted", action="store_true",
                        help="also time the check through the interpreter's run (no flat form): its seconds and ours' speed-up")
    args = parser.parse_args()
    header = (f"{'model':<12}{'states':>9}{'moves':>10}{'wall s':>9}{'moves/s':>10}{'us/state':>10}{'us/move':>9}"
              f"{'peak MB':>9}{'floor us/st':>12}{'x floor':>8}"
              + (f"{'interp s':>10}{'speed-up':>10}" if args.interpreted else "")
              + f"{'peer states':>13}{'peer s':>9}{'time ratio':>12}")
    print(header)
    for row in args.rows:
        mode, n, k = row.split(":")
        text, name = model(mode, int(n), int(k))
        mine = ours(text, name)
        theirs = None if args.no_peer else peer(text, name)
        seconds = float(mine["seconds"])  # type: ignore[arg-type]
        moves = int(mine["moves"])  # type: ignore[call-overload]
        line = (f"{mode + ' ' + n + 'x' + k:<12}{mine['states']:>9}{moves:>10}{seconds:>9.2f}"
                f"{moves / seconds if seconds else 0:>10.0f}"
                f"{seconds * 1e6 / max(int(mine['states']), 1):>10.0f}{seconds * 1e6 / max(moves, 1):>9.0f}"  # type: ignore[call-overload]
                f"{int(mine['peak_kb']) / 1024:>9.0f}")  # type: ignore[call-overload]
        if mode == "indep":  # the floor searches the unreduced graph: (k+1)^n states, beyond reach at 16x4
            line += f"{'-':>12}{'-':>8}"
        else:
            floor = in_child("check_scaling.floor_in_process", "", mode, int(n), int(k))
            per_state = seconds * 1e6 / max(int(mine["states"]), 1)  # type: ignore[call-overload]
            floor_per_state = float(floor["seconds"]) * 1e6 / max(int(floor["states"]), 1)  # type: ignore[arg-type,call-overload]
            line += f"{floor_per_state:>12.1f}{per_state / floor_per_state:>8.1f}"
        if args.interpreted:
            slow = float(ours(text, name, flat=False)["seconds"])  # type: ignore[arg-type]
            line += f"{slow:>10.2f}{slow / seconds if seconds else 0:>10.1f}"
        print(line + peer_columns(seconds, theirs), flush=True)
    noisy()
    return 0


def peer_columns(seconds: float, theirs: dict[str, object] | None) -> str:
    """The peer's states, seconds and our time over its, where it answered."""
    if theirs is None or not theirs.get("seconds"):
        return ""
    peer_seconds = float(theirs["seconds"])  # type: ignore[arg-type]
    return f"{theirs.get('states') or '?':>13}{peer_seconds:>9.2f}{seconds / peer_seconds:>12.2f}"


def noisy() -> None:
    if os.environ.get("OPENSYSML_KERNEL_DETERMINISTIC") != "1":
        print("(wall times are noisy: compare ratios from one run on one machine)")


if __name__ == "__main__":
    raise SystemExit(main())
