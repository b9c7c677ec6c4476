"""Nesting past MAX_NESTING is a syntax error at the place it passes the limit, never a RecursionError;
everything up to the limit goes through every phase, even from a host already deep in its stack."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import ir
from ir.parse import MAX_NESTING
from opensysml_kernel.checking import CheckSettings
from opensysml_kernel.session import Session


def _action(body: str) -> str:
    return f"package P {{\n  private import ScalarValues::*;\n  action A {{\n{body}\n  }}\n}}\n"


def _in_step(expression: str) -> str:
    return _action(f"    attribute x : Integer := 0;\n    first start; then s1;\n    action s1 {{ assign x := {expression}; }}")


SHAPES: dict[str, Callable[[int], str]] = {
    "parentheses": lambda n: _in_step("(1 + " * n + "1" + ")" * n),
    "operator chain": lambda n: _in_step(" + ".join(["1"] * n)),
    "unary chain": lambda n: _in_step("-" * n + "1"),
    "conditional chain": lambda n: _in_step("if true ? 1 else " * n + "2"),
    "nested actions": lambda n: _action("    attribute x : Integer := 0;\n    first start; then n0;\n    "
                                        + "".join(f"action n{i} {{ " for i in range(n)) + "assign x := 1;" + " }" * n),
    "nested ifs": lambda n: _action("    attribute x : Integer := 0;\n    first start; then s1;\n    action s1 {"
                                    + "".join(f"if x < {i + 1} {{ " for i in range(n)) + "assign x := 1;" + " }" * n + "}"),
    "nested loops": lambda n: _action("    attribute x : Integer := 0;\n    first start; then s1;\n    action s1 {"
                                      + "".join(f"while x < {i + 1} {{ " for i in range(n)) + "assign x := x + 1;"
                                      + " }" * n + "}"),
}


def _deepest(shape: Callable[[int], str]) -> tuple[int, str]:
    """The largest n whose text parses (nesting grows with n), by bisection."""
    low, high = 1, MAX_NESTING * 2
    while low < high:
        mid = (low + high + 1) // 2
        try:
            ir.parse(shape(mid), "deep.sysml")
            low = mid
        except ir.SysmlSyntaxError:
            high = mid - 1
    return low, shape(low)


def _from_deep_stack(frames: int, call: Callable[[], object]) -> object:
    return call() if frames == 0 else _from_deep_stack(frames - 1, call)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_past_the_limit_is_a_syntax_error_naming_the_limit_and_the_place(shape: str) -> None:
    text = SHAPES[shape](MAX_NESTING * 2)
    with pytest.raises(ir.SysmlSyntaxError) as info:
        ir.parse(text, "deep.sysml")
    error = info.value
    assert f"deeper than {MAX_NESTING} levels" in error.message
    assert error.line == 6 and error.column > 1  # inside the step, where the limit is passed
    assert "^" in str(error)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_at_the_limit_the_model_runs_and_checks_from_a_deep_host_stack(shape: str) -> None:
    depth, text = _deepest(SHAPES[shape])
    assert depth >= 40  # the limit leaves realistic models far inside it

    def whole_path() -> tuple[str, str]:
        session = Session()
        session.submit(text)
        session.start_action("A")
        progress = session.continue_run()
        session.settings = CheckSettings("all", (), None, None, None, None, 10.0)
        report = session.check("A", None)
        return progress.status, report.text

    status, report = _from_deep_stack(300, whole_path)  # type: ignore[misc]
    assert status == "completed"
    assert "violation" not in report.splitlines()[0] or "no violation" in report.splitlines()[0]


def test_a_500_deep_parenthesis_is_refused_not_a_crash() -> None:
    with pytest.raises(ir.SysmlSyntaxError):
        ir.parse(_in_step("(" * 500 + "1" + ")" * 500), "deep.sysml")
