"""The fingerprint tells apart values Python's hash() confuses by construction; the portable one (the
parallel search's) does too, and is equal in every process that hashes strings with one seed."""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import ir
from engines.check.canon import fingerprint, portable_fingerprint
from engines.runtime import Program

MODEL = """package p {
    action hold {
        attribute x;
        first start;
        then done;
    }
}
"""


def _fingerprint_with(x: object, portable: bool = False) -> bytes:
    run = Program(ir.resolve([ir.parse(MODEL, "hold.sysml")])).start_action("p::hold")
    run.root.frame.values["x"] = x
    return portable_fingerprint(run) if portable else fingerprint(run)


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
@pytest.mark.parametrize("portable", [False, True], ids=["fingerprint", "portable"])
def test_values_whose_python_hashes_collide_fingerprint_apart(a: object, b: object, portable: bool) -> None:
    assert hash(_parts(a)) == hash(_parts(b))  # the pairs are chosen to collide in Python's hash()
    assert _fingerprint_with(a, portable) != _fingerprint_with(b, portable)


@pytest.mark.parametrize("portable", [False, True], ids=["fingerprint", "portable"])
def test_equal_values_fingerprint_alike(portable: bool) -> None:
    assert _fingerprint_with(-1, portable) == _fingerprint_with(-1, portable)
    assert _fingerprint_with(Fraction(-1, 3), portable) == _fingerprint_with(Fraction(-1, 3), portable)
    # one text, interned or built at run time (a key may be written with a mark for either)
    built = "".join(["go", "ne"])
    assert built is not sys.intern("gone")
    assert _fingerprint_with(built, True) == _fingerprint_with(sys.intern("gone"), True)
    assert _fingerprint_with(True, True) != _fingerprint_with(1, True)


# a machine whose state holds no value for `level` (None in its key) and a run partway through its firing
MACHINE = """package m {
    private import ScalarValues::*;
    state def Tank {
        attribute level : Integer;
        attribute done : Boolean := false;
        entry; then filling;
        state filling { entry { assign level := 3; } }
        transition first filling then full;
        state full { entry { assign done := true; } }
    }
}
"""
_PRINT = """
import sys
sys.path.insert(0, sys.argv[1])
import ir
from engines.check.canon import portable_fingerprint
from engines.runtime import Program, Script
run = Program(ir.resolve([ir.parse(sys.argv[2], "tank.sysml")])).start_driven("m::Tank", Script())
out = []
while True:
    out.append(portable_fingerprint(run).hex())
    moves = run.enabled_moves()
    if not moves:
        break
    run.apply(moves[0])
print(" ".join(out))
"""


def test_the_portable_fingerprint_is_equal_in_every_process_hashing_strings_alike() -> None:
    """Each state of a run fingerprinted alike by two processes with one hash seed (the workers' seed),
    though Python 3.11 hashes None, which the first state's key holds, by its address."""
    root = str(Path(__file__).resolve().parents[3])
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    printed = [subprocess.run([sys.executable, "-c", _PRINT, root, MACHINE], env=env, capture_output=True, text=True,
                              check=True).stdout.split() for _ in range(2)]
    assert len(printed[0]) >= 2 and len(set(printed[0])) == len(printed[0])
    assert printed[0] == printed[1]
