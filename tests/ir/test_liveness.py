"""Which features of a finished performance some expression can still read (ir.liveness)."""

from __future__ import annotations

import ir
from ir.liveness import readable_after_end


def _readable(body: str, named: tuple[str, ...] = ()) -> frozenset[str]:
    text = f"package p {{\n private import ScalarValues::*;\n action def A {{\n{body}\n }}\n}}\n"
    return readable_after_end(ir.resolve([ir.parse(text, "liveness")]), named)


def test_a_body_reading_its_own_feature_keeps_nothing_readable() -> None:
    readable = _readable("attribute c : Integer := 0;\n action a { attribute t : Integer := c; assign c := t + 1; }")
    assert "t" not in readable


def test_a_chain_reads_a_pin() -> None:
    readable = _readable("attribute o : Integer := 0;\n action a { attribute t : Integer := 1; }\n"
                         " action r { assign o := a.t; }")
    assert "t" in readable


def test_a_bare_name_no_scope_declares_may_read_a_sibling_pin() -> None:
    readable = _readable("attribute o : Integer := 0;\n action a { attribute t : Integer := 1; }\n"
                         " action r { assign o := t; }")
    assert "t" in readable


def test_a_guard_of_the_action_reads_what_the_action_does_not_hold() -> None:
    readable = _readable("action a { attribute t : Integer := 1; }\n first a if t > 0 then done;\n done;")
    assert "t" in readable


def test_an_initial_value_reads_from_around_its_body() -> None:
    """`u := t` is read before the body's own `t` holds anything: it may reach a sibling's."""
    readable = _readable("action a { attribute u : Integer := t; attribute t : Integer := 1; }")
    assert "t" in readable


def test_a_for_variable_is_the_loop_body_own() -> None:
    readable = _readable("attribute s : Integer := 0;\n"
                         " action a { for k in (1, 2) { assign s := s + k; } }")
    assert "k" not in readable


def test_a_typed_usage_sees_nothing_around_it() -> None:
    """Its statements run in the performed action's frame: a name the action around declares is
    not read from there."""
    text = ("package p {\n private import ScalarValues::*;\n"
            " action def Inner { attribute x : Integer := 0; action k { attribute y : Integer := 1; } }\n"
            " action def A {\n attribute y : Integer := 0;\n action m : Inner { assign x := y; }\n }\n}\n")
    assert "y" in readable_after_end(ir.resolve([ir.parse(text, "liveness")]))


def test_bind_and_named_features_are_read() -> None:
    readable = _readable("attribute o : Integer := 0;\n action a { out attribute t : Integer := 1; }\n"
                         " bind a.t = o;", named=("b.w",))
    assert {"t", "w"} <= readable


def test_a_requirement_holds_nothing_while_it_is_checked() -> None:
    """A property is evaluated in a frame of its own that holds none of its features."""
    readable = _readable("action a { attribute t : Integer := 1; }")
    text = ("package p {\n private import ScalarValues::*;\n action def A { action a { attribute t : Integer := 1; } }\n"
            " requirement def R { attribute t : Integer; require constraint { t > 0 } }\n}\n")
    assert "t" not in readable
    assert "t" in readable_after_end(ir.resolve([ir.parse(text, "liveness")]))
