"""Bound overshoot: how far past its timeout, its interrupt and its memory bound a check or an explore
of a model with long single moves goes before it stops with its partial report.

Run as `python benchmarks/bounds.py [--timeout 2] [--interrupt-at 1]`. The models: a step of
multiplicity 1000 (`action serve[1000]`), a loop over `1..1000000000`, a loop that never ends; the
step budget is lifted so that only the bound under test can stop them. Each row prints the engine,
the model, the bound, the time it took past the bound (or the memory past it) and the verdict.
Targets: a timeout overshoot under 1 s, an interrupt answered within 100 ms. The command line rows
run `opensysml-kernel check` in fresh processes: its --timeout counts from the process's start, so
the target is an exit within T + 1 s of the spawn; `--cli-only` prints only those. `--workers N` prints
instead the rows of the check partitioned over N Ray workers (the pool started by a first check, as a session's second
check finds it): the same models, a machine whose event starts a loop that never ends inside one move
(the lift below), and racy 4x3 of ../shared/bench (rounds of up to a second and more), where present.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["OPENSYSML_MAX_ACTION_STEPS"] = str(10 ** 12)

import ir
from engines.check.search import check
from engines.explore import explore
from engines.framework import Bounds, Result
from engines.runtime import Program
from engines.runtime.watch import parse_bytes, resident_memory, spell_bytes

MODELS = """
package Plant {
    private import ScalarValues::*;
    action Crowd {
        attribute served : Integer := 0;
        first start; then serve;
        action serve[1000] { assign served := served + 1; }
        then done;
    }
    action Count {
        attribute total : Integer := 0;
        first start; then tally;
        action tally { for i in 1..1000000000 { assign total := total + i; } }
    }
    action Spin {
        attribute turns : Integer := 0;
        first start; then spin;
        action spin { while true { assign turns := turns + 1; } }
    }
}
"""

# a lift whose Go starts a loop that never ends inside one move (the machine a worker replays in its interpreter)
LIFT = """
package Lift {
    private import ScalarValues::*;
    attribute def Go;
    state def Spinner {
        attribute turns : Integer := 0;
        entry; then idle;
        state idle;
        state busy;
        transition first idle accept Go do action spin { while true { assign turns := turns + 1; } } then busy;
    }
}
"""

ACTIONS = {"action serve[1000]": "Plant::Crowd", "for i in 1..1000000000": "Plant::Count",
           "while true": "Plant::Spin"}


def ask(engine: str, program: Program, action: str, bounds: Bounds, interrupted: object = None) -> Result:
    if engine == "check":
        return check(program, action, bounds, interrupted=interrupted)  # type: ignore[arg-type]
    return explore(program, action, bounds, interrupted=interrupted)  # type: ignore[arg-type]


def timeout_rows(program: Program, timeout: float) -> None:
    print(f"timeout {timeout:g} s (engine time from the call to the report)")
    print(f"  {'engine':8} {'model':24} {'elapsed':>8} {'overshoot':>10}  incomplete")
    for engine in ("check", "explore"):
        for label, action in ACTIONS.items():
            started = time.monotonic()
            result = ask(engine, program, action, Bounds(timeout=timeout))
            elapsed = time.monotonic() - started
            print(f"  {engine:8} {label:24} {elapsed:7.2f}s {elapsed - timeout:+9.3f}s  {result.incomplete}")


def interrupted_at(at: float, asked: Callable[[Callable[[], bool]], Result]) -> tuple[Result, str]:
    """What `asked` answers given an interrupt flag set `at` seconds in, and how long after the flag was set
    it answered (`ended first` where it answered before: there was nothing to interrupt)."""
    flag = threading.Event()
    set_at: list[float] = []

    def interrupt() -> None:
        set_at.append(time.monotonic())
        flag.set()

    timer = threading.Timer(at, interrupt)
    timer.start()
    result = asked(flag.is_set)
    answered = time.monotonic()
    timer.join()
    return result, f"{(answered - set_at[0]) * 1000:.1f} ms" if answered >= set_at[0] else "ended first"


def interrupt_rows(program: Program, at: float) -> None:
    print(f"interrupt at {at:g} s (from the flag set to the report)")
    print(f"  {'engine':8} {'model':24} {'answered in':>12}  incomplete")
    for engine in ("check", "explore"):
        for label, action in ACTIONS.items():
            result, answered = interrupted_at(
                at, lambda flag, engine=engine, action=action: ask(engine, program, action, Bounds(), flag))
            print(f"  {engine:8} {label:24} {answered:>12}  {result.incomplete}")


def memory_rows(program: Program, headroom: int) -> None:
    print(f"memory bound: resident memory at the start + {spell_bytes(headroom)} (explore keeps every"
          f" alternative it has not run; peak sampled every 5 ms; 10 s timeout)")
    print(f"  {'engine':8} {'model':24} {'bound':>10} {'peak':>10} {'past it':>10}  incomplete")
    for label, action in ACTIONS.items():
        bound = resident_memory() + headroom
        peak = [0]
        done = threading.Event()

        def sample(peak: list[int] = peak, done: threading.Event = done) -> None:
            while not done.is_set():
                peak[0] = max(peak[0], resident_memory())
                time.sleep(0.005)

        sampler = threading.Thread(target=sample)
        sampler.start()
        result = ask("explore", program, action, Bounds(memory=bound, timeout=10.0, runs=10 ** 9))
        done.set()
        sampler.join()
        print(f"  {'explore':8} {label:24} {spell_bytes(bound):>10} {spell_bytes(peak[0]):>10} "
              f"{spell_bytes(max(peak[0] - bound, 0)):>10}  {result.incomplete}")


def _command(args: list[str]) -> tuple[float, float, int, str]:
    """One command in a fresh process: its wall time from spawn to exit, its CPU time, its peak resident
    memory and the first line of its report."""
    started = time.monotonic()
    child = subprocess.Popen([sys.executable, "-m", "opensysml_kernel", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    assert child.stdout is not None
    output = child.stdout.read()
    _, _, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - started
    child.returncode = 0  # reaped above
    verdict = next((line.strip() for line in output.splitlines() if "incomplete" in line or "verdict" in line),
                   output.strip().splitlines()[0] if output.strip() else "")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, verdict


def cli_rows(timeout: float, memory: str) -> None:
    """The whole command, process start to exit: --timeout counts from the process's start (imports, the
    grammar and loading the model included), so the target is an exit within T + 1 s of the spawn."""
    import tempfile

    print(f"command line: opensysml-kernel check --engine E --timeout {timeout:g}s (spawn to exit; CPU = the"
          " process's user + system time)")
    print(f"  {'engine':8} {'model':24} {'wall':>7} {'past T':>8} {'cpu':>6}   start-up alone (--timeout 1ms)")
    with tempfile.TemporaryDirectory() as folder:
        model = Path(folder) / "plant.sysml"
        model.write_text(MODELS, encoding="utf-8")
        for engine in ("check", "explore"):
            for label, action in ACTIONS.items():
                base = ["check", "--engine", engine, "--action", action, str(model)]
                wall, cpu, _, _ = _command([*base, "--timeout", f"{timeout}s"])
                alone, alone_cpu, _, _ = _command([*base, "--timeout", "0.001s"])
                print(f"  {engine:8} {label:24} {wall:6.2f}s {wall - timeout:+7.2f}s {cpu:5.2f}s   "
                      f"{alone:.2f}s wall, {alone_cpu:.2f}s cpu")
        args = ["check", "--engine", "explore", "--action", ACTIONS["action serve[1000]"], "--memory", memory,
                "--timeout", "120s", str(model)]
        wall, cpu, peak, verdict = _command(args)
        print(f"  explore  action serve[1000] --memory {memory}: peak {spell_bytes(peak)} after {wall:.1f}s ({verdict})")


def worker_rows(timeout: float, at: float, workers: int) -> None:
    """The check over `workers` Ray workers: how far past its timeout, and how long after the interrupt, it
    reports (the driver looks every parallel.POLL seconds and cancels the round; a worker looks at its
    task's flag every parallel.LOOK states, and inside an interpreter's move every 10 ms)."""
    from engines.check.machine import check_machine
    from engines.runtime import Script
    from engines.runtime.states import parse_send

    subjects: list[tuple[str, Program, object]] = []
    plant = Program(ir.resolve([ir.parse(MODELS, "plant.sysml")]))
    subjects.extend((label, plant, action) for label, action in ACTIONS.items())
    lift = Program(ir.resolve([ir.parse(LIFT, "lift.sysml")]))
    subjects.append(("machine: Go spins forever", lift, ("Spinner", Script(alphabet=(parse_send("Go"),), max_events=1))))
    try:
        from benchmarks.check_scaling import model

        text, name = model("racy", 4, 3)
        subjects.append(("racy 4x3", Program(ir.resolve([ir.parse(text, "racy.sysml")])), name))
    except (OSError, subprocess.CalledProcessError):  # ../shared/bench is not beside the project
        print("  (racy 4x3 left out: ../shared/bench/gen_scaling.py is not there)")

    def asked(program: Program, subject: object, bounds: Bounds, interrupted: Any = None) -> Result:
        if isinstance(subject, tuple):
            return check_machine(program, subject[0], subject[1], bounds=bounds, interrupted=interrupted)
        return check(program, cast(str, subject), bounds, interrupted=interrupted)

    asked(plant, ACTIONS["action serve[1000]"], Bounds(workers=workers, timeout=0.5))  # the pool started
    print(f"check over {workers} workers: timeout {timeout:g} s, interrupt at {at:g} s")
    print(f"  {'model':28} {'past the timeout':>17} {'interrupt answered in':>22}  incomplete")
    for label, program, subject in subjects:
        started = time.monotonic()
        timed = asked(program, subject, Bounds(workers=workers, timeout=timeout))
        past = time.monotonic() - started - timeout
        cut, answered = interrupted_at(
            at, lambda flag, program=program, subject=subject: asked(program, subject, Bounds(workers=workers), flag))
        print(f"  {label:28} {past:+16.3f}s {answered:>22}  {timed.incomplete}, {cut.incomplete}")


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--timeout", type=float, default=2.0)
    options.add_argument("--interrupt-at", type=float, default=1.0)
    options.add_argument("--headroom", default="200M", help="the memory bound past the starting resident memory")
    options.add_argument("--memory", default="300M", help="the command line's --memory bound")
    options.add_argument("--cli-only", action="store_true", help="only the command line rows")
    options.add_argument("--workers", type=int, help="only the rows of the check over N Ray workers")
    args = options.parse_args()
    if args.workers:
        worker_rows(args.timeout, args.interrupt_at, args.workers)
        return
    if not args.cli_only:
        program = Program(ir.resolve([ir.parse(MODELS, "plant.sysml")]))
        timeout_rows(program, args.timeout)
        interrupt_rows(program, args.interrupt_at)
        memory_rows(program, parse_bytes(args.headroom))
    cli_rows(args.timeout, args.memory)


if __name__ == "__main__":
    main()
