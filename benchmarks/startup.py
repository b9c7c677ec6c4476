"""Start-up benchmark: the command line answering a one-leaf model, and the kernel from start to ready.

Run as `python benchmarks/startup.py [--runs N] [--peer DIR] [--imports]`. It prints the median wall
time of N fresh processes of `opensysml-kernel run FILE --action A` (and of `check`) on a model of one
leaf action, and the median time from starting the `opensysml` kernel to its first kernel_info reply
through jupyter_client, side by side with the peer's kernel (an environment with
`jupyter-opensysml-kernel` installed, /work/peer-venv by default; left out when absent). Targets: the
`run` under 0.35 s, the kernel under 0.4 s. `--imports` lists the slowest imports of one `run`
(python -X importtime), to see what start-up pays for.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ONE_LEAF = """package startup {
    action A {
        attribute x = 0;
        first start;
        then work;
        action work { assign x := 1; }
        then done;
    }
}
"""


def _environment() -> dict[str, str]:
    """As a user starts it: bytecode written and read (a shell that forbids it measures compiling)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": path}


def command_median(argv: list[str], runs: int) -> tuple[float, float, str]:
    """Median wall seconds and median CPU seconds (user + system) of `runs` processes, and what one printed.
    On a loaded machine the wall time waits for a core; the CPU time is what start-up costs."""
    walls: list[float] = []
    cpus: list[float] = []
    out = ""
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=_environment(), check=False)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out = done.stdout.strip().splitlines()[0] if done.stdout.strip() else done.stderr.strip()
    return statistics.median(walls), statistics.median(cpus), out


def kernel_ready(argv: list[str], runs: int) -> tuple[float, float]:
    """Median seconds from starting the kernel process to its first kernel_info reply (as jupyter_client's
    `wait_for_ready` sees it: the reply, then 0.2 s of quiet on iopub), and to the reply to a first cell
    declaring the one-leaf model (what a modeler waits for before the first answer)."""
    from jupyter_client.manager import KernelManager

    times: list[float] = []
    firsts: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "bench"
        spec.mkdir()
        (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "bench", "language": "sysml"}))
        from jupyter_client.kernelspec import KernelSpecManager

        for _ in range(runs):
            manager = KernelManager(kernel_name="bench", kernel_spec_manager=KernelSpecManager(kernel_dirs=[folder]))
            start = time.perf_counter()
            manager.start_kernel(env=_environment())
            client = manager.client()
            client.start_channels()
            try:
                client.wait_for_ready(timeout=60)
                times.append(time.perf_counter() - start)
                reply = client.execute_interactive(ONE_LEAF, timeout=60, output_hook=lambda _: None)
                if reply["content"]["status"] != "ok":
                    raise RuntimeError(f"the first cell failed: {reply['content']}")
                firsts.append(time.perf_counter() - start)
            finally:
                client.stop_channels()
                manager.shutdown_kernel(now=True)
    return statistics.median(times), statistics.median(firsts)


def slowest_imports(argv: list[str], top: int = 15) -> list[tuple[int, str]]:
    done = subprocess.run([sys.executable, "-X", "importtime", *argv[1:]], capture_output=True, text=True,
                          env=_environment(), check=False)
    rows: list[tuple[int, str]] = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = (part.strip() for part in line[len("import time:"):].split("|"))
            if cumulative.isdigit():
                rows.append((int(cumulative), name))
    return sorted(rows, reverse=True)[:top]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--peer", default="/work/peer-venv", help="an environment with jupyter-opensysml-kernel")
    parser.add_argument("--imports", action="store_true", help="list the slowest imports of one run")
    parser.add_argument("--no-kernel", action="store_true", help="only the command line")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        model = Path(folder) / "one_leaf.sysml"
        model.write_text(ONE_LEAF, encoding="utf-8")
        run = [sys.executable, "-m", "opensysml_kernel", "run", str(model), "--action", "A"]
        check = [sys.executable, "-m", "opensysml_kernel", "check", str(model), "--action", "A"]
        command_median(run, 1)  # the first process writes bytecode and may build the parser's cache
        for name, argv in (("run", run), ("check", check), ("run --json", [*run, "--json"])):
            wall, cpu, first = command_median(argv, args.runs)
            print(f"cli {name:<12} median {wall:.3f} s wall, {cpu:.3f} s cpu over {args.runs} runs   ({first})")
        if args.imports:
            for microseconds, module in slowest_imports(run):
                print(f"  import {module:<50} {microseconds / 1e6:.3f} s")

    if not args.no_kernel:
        ours = [sys.executable, "-m", "opensysml_kernel.kernel", "-f", "{connection_file}"]
        ready, first = kernel_ready(ours, args.runs)
        print(f"kernel opensysml     ready median {ready:.3f} s, first cell answered {first:.3f} s, "
              f"over {args.runs} starts")
        peer = Path(args.peer) / "bin" / "python"
        if peer.is_file():
            theirs = [str(peer), "-m", "jupyter_opensysml_kernel", "-connection-file", "{connection_file}"]
            ready, first = kernel_ready(theirs, args.runs)
            print(f"kernel peer          ready median {ready:.3f} s, first cell answered {first:.3f} s, "
                  f"over {args.runs} starts")
        else:
            print(f"kernel peer          not measured (no {peer})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
