"""The seam of issue 8, as imports: the world at the bottom imports no behavior, a behavior imports no
engine, and the engines (check, explore, witness, framework) reach behaviors only through the
protocol (engines/runtime/behavior.py), never the action behavior's internals. Every import counts,
those inside functions and under TYPE_CHECKING too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "engines"
RUNTIME = ENGINES / "runtime"
BEHAVIORS = ("engines.runtime.actions", "engines.runtime.states")
# the top of the runtime: it starts behaviors in a world (and the package re-exports its names)
TOP = ("engines.runtime", "engines.runtime.program")


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module `path` imports; `from package import name` counts `package.name` when that is a
    module, else the package."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            base = ROOT.joinpath(*node.module.split("."))
            for alias in node.names:
                sub = base / alias.name
                found.add(f"{node.module}.{alias.name}" if sub.with_suffix(".py").exists() or sub.is_dir()
                          else node.module)
    return found


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


WORLD = [p for p in sorted(RUNTIME.glob("*.py")) if _module(p) not in TOP]
ACTIONS = _files(RUNTIME / "actions")
ENGINE_FILES = [p for p in _files(ENGINES) if not _within(_module(p), ("engines.runtime",))]


def test_the_layers_are_where_the_seam_puts_them() -> None:
    assert {_module(p) for p in WORLD} >= {
        "engines.runtime.behavior", "engines.runtime.bus", "engines.runtime.clock", "engines.runtime.journal",
        "engines.runtime.objects", "engines.runtime.schedule", "engines.runtime.snapshot",
        "engines.runtime.trace", "engines.runtime.values", "engines.runtime.world"}
    assert ACTIONS and ENGINE_FILES


@pytest.mark.parametrize("path", WORLD, ids=lambda p: p.name)
def test_the_world_imports_no_behavior(path: Path) -> None:
    upward = sorted(m for m in _imports(path) if _within(m, BEHAVIORS) or m in TOP)
    assert not upward, f"{_module(path)} imports up into {upward}"


@pytest.mark.parametrize("path", ACTIONS, ids=lambda p: p.name)
def test_the_action_behavior_imports_no_engine_and_no_top(path: Path) -> None:
    upward = sorted(m for m in _imports(path)
                    if m in TOP or _within(m, ("engines.runtime.states", "engines.check", "engines.explore",
                                               "engines.witness", "engines.framework", "opensysml_kernel")))
    assert not upward, f"{_module(path)} imports up into {upward}"


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: _module(p))
def test_the_engines_see_behaviors_only_through_the_protocol(path: Path) -> None:
    inside = sorted(m for m in _imports(path) if _within(m, BEHAVIORS))
    assert not inside, f"{_module(path)} reaches into {inside}"
    assert not any(_within(m, ("opensysml_kernel",)) for m in _imports(path))


def test_the_import_reader_sees_a_nested_import(tmp_path: Path) -> None:
    """The test above could not fail if imports inside functions went unseen."""
    probe = ENGINES / "check" / "search.py"
    text = probe.read_text(encoding="utf-8")
    assert "engines.runtime.behavior" in _imports(probe)
    nested = tmp_path / "nested.py"
    nested.write_text(text + "\n\ndef _late() -> None:\n    from engines.runtime.actions import tokens\n",
                      encoding="utf-8")
    assert "engines.runtime.actions.tokens" in _imports(nested)
