"""Start-up: the command line imports only what a command uses, and the kernel answers before it loads the
session (benchmarks/startup.py measures the times)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("prompt_toolkit", "IPython", "ipykernel", "jupyter_client", "zmq", "pygments")
MODEL = """package p {
    action A {
        attribute x = 0;
        first start;
        then work;
        action work { assign x := 1; }
        then done;
    }
}
"""

PROBE = """
import contextlib, io, json, sys
from opensysml_kernel.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def _imports(tmp_path: Path, *argv: str) -> tuple[int, str, set[str]]:
    (tmp_path / "m.sysml").write_text(MODEL, encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    return found["code"], found["out"], {name.split(".")[0] for name in found["modules"]}


@pytest.mark.parametrize("argv", [
    ("run", "m.sysml", "--action", "A"),
    ("run", "m.sysml", "--action", "A", "--json"),
    ("check", "m.sysml", "--action", "A", "--json"),
])
def test_the_command_line_imports_no_repl_and_no_kernel(tmp_path: Path, argv: tuple[str, ...]) -> None:
    code, out, modules = _imports(tmp_path, *argv)
    assert code == 0, out
    assert "A" in out
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_a_run_does_not_import_the_checking_reports(tmp_path: Path) -> None:
    _, _, modules = _imports(tmp_path, "run", "m.sysml", "--action", "A")
    assert "rich" not in modules


def test_the_kernel_answers_before_it_loads_the_session() -> None:
    from jupyter_client.kernelspec import KernelSpecManager  # noqa: F401 (jupyter_client is a dependency)

    from opensysml_kernel.install import kernel_json

    argv = kernel_json()["argv"]
    assert isinstance(argv, list)
    probe = ("import sys; import opensysml_kernel.kernel; "
             "print(sorted(m for m in sys.modules if m.startswith(('opensysml_kernel.session', "
             "'opensysml_kernel.commands', 'lark', 'engines.runtime', 'IPython', 'ipykernel', 'jupyter_client', "
             "'tornado', 'asyncio'))))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_errors_load_no_parser_and_the_package_keeps_its_functions() -> None:
    # `from ir.errors import ...` is every command's error handling: the grammar loads only on a parse.
    # Importing the submodules ir.parse and ir.resolve (which Python binds on the package) leaves
    # ir.parse and ir.resolve the functions.
    probe = ("import sys, types; import ir.errors; eager = sorted(m for m in sys.modules if m.startswith(('lark', "
             "'ir.parse', 'ir.resolve'))); import ir.parse.common, ir.resolve, ir; "
             "print(eager, [isinstance(getattr(ir, n), types.ModuleType) for n in ('parse', 'resolve', 'lookup',"
             " 'Model')], ir.parse.__module__, ir.resolve.__module__)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[] [False, False, False, False] ir.parse ir.resolve"
