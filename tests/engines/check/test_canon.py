"""The fingerprint tells apart values Python's hash() confuses by construction."""

from __future__ import annotations

from fractions import Fraction

import pytest

import ir
from engines.check.canon import fingerprint
from engines.runtime import Program

MODEL = """package p {
    action hold {
        attribute x;
        first start;
        then done;
    }
}
"""


def _fingerprint_with(x: object) -> bytes:
    run = Program(ir.resolve([ir.parse(MODEL, "hold.sysml")])).start_action("p::hold")
    run.root.frame.values["x"] = x
    return fingerprint(run)


def _parts(v: object) -> tuple[object, ...]:
    return (v.numerator, v.denominator) if isinstance(v, Fraction) else (v,)


# hash(-1) == hash(-2) in CPython, and ints hash modulo 2**61 - 1
@pytest.mark.parametrize(("a", "b"), [
    (-1, -2),
    (0, (1 << 61) - 1),
    (5, (1 << 61) + 4),
    (-1, -((1 << 61) - 1) - 1),
    (Fraction(-1, 3), Fraction(-2, 3)),
    (Fraction(1, 2), Fraction(1, (1 << 61) + 1)),
], ids=["minus-one-minus-two", "zero-modulus", "wrapped", "minus-one-wrapped", "rational-numerators",
        "rational-denominators"])
def test_values_whose_python_hashes_collide_fingerprint_apart(a: object, b: object) -> None:
    assert hash(_parts(a)) == hash(_parts(b))  # the pairs are chosen to collide in Python's hash()
    assert _fingerprint_with(a) != _fingerprint_with(b)


def test_equal_values_fingerprint_alike() -> None:
    assert _fingerprint_with(-1) == _fingerprint_with(-1)
    assert _fingerprint_with(Fraction(-1, 3)) == _fingerprint_with(Fraction(-1, 3))
