"""The `opensysml-kernel` command line: install the kernelspec, start the REPL, run an action."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from ir.errors import SysmlError
from opensysml_kernel import __version__
from opensysml_kernel.errors import RunFailedError
from opensysml_kernel.session import Session

EXIT_COMPLETED = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="opensysml-kernel", description="Run and step SysML v2 actions.")
    parser.add_argument("--version", action="version", version=f"opensysml-kernel {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="{install,repl,run}")

    install = commands.add_parser("install", help="register the Jupyter kernelspec 'opensysml'")
    where = install.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="for the current user (the default)")
    where.add_argument("--sys-prefix", action="store_true", help="in this Python's environment")
    where.add_argument("--prefix", metavar="DIR", help="under DIR/share/jupyter/kernels")

    repl = commands.add_parser("repl", help="the terminal REPL")
    repl.add_argument("files", nargs="*", metavar="FILE", help="SysML files to load first")

    run = commands.add_parser("run", help="run an action to completion under one schedule")
    run.add_argument("files", nargs="+", metavar="FILE", help="SysML files (globs allowed)")
    run.add_argument("--action", required=True, metavar="NAME", help="the action (qualified, or unique unqualified)")
    run.add_argument("--schedule", metavar="P", default="reverse", help="reverse (default), declared or seed:<n>")
    run.add_argument("--trace", action="store_true", help="print the whole trace before the result")
    run.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    return parser


def _install(args: argparse.Namespace) -> int:
    from opensysml_kernel.install import KERNEL_NAME, install

    prefix = sys.prefix if args.sys_prefix else args.prefix
    try:
        directory = install(user=prefix is None, prefix=prefix)
    except OSError as error:
        print(f"error: cannot install the kernelspec: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"installed kernelspec '{KERNEL_NAME}' in {directory}")
    return 0


def _repl(args: argparse.Namespace) -> int:
    from opensysml_kernel.repl import Repl

    repl = Repl()
    if args.files:
        try:
            repl.session.load(args.files)
        except SysmlError as error:
            print(error, file=sys.stderr)
            return EXIT_BAD_INPUT
    repl.loop()
    return 0


def _run(args: argparse.Namespace) -> int:
    session = Session()
    session.trace = True
    subject, status, code, error = args.action, "error", EXIT_BAD_INPUT, None
    head: list[str] = []
    try:
        session.load(args.files)
        session.set_schedule(args.schedule)
        subject = session.start_action(args.action).subject
        progress = session.continue_run()
        status, code = "completed", EXIT_COMPLETED
        head = [f"✓ Action {subject} completed", *(f"  {path} = {value}" for path, value in progress.outputs)]
    except RunFailedError as failure:
        status, code, error = "failed", EXIT_FAILED, str(failure.cause)
        head = [str(failure)]
    except SysmlError as bad:
        error = str(bad)
        print(error, file=sys.stderr)
    trace = session.full_trace()
    if args.json:
        document = {"status": status, "exit": code, "subject": subject, "outputs": session.outputs(),
                    "error": error, "trace": trace}
        print(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        lines = [*trace, *head] if args.trace else head
        if lines:
            print("\n".join(lines))
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (0 completed, 1 run failed, 2 bad input)."""
    parser = _parser()
    args = parser.parse_args(argv)
    handlers = {"install": _install, "repl": _repl, "run": _run}
    if args.command not in handlers:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        code = handlers[args.command](args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left (`| head`): no traceback, and no second error when Python flushes at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    return code
