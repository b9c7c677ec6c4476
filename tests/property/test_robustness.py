"""Crash fuzzers: byte and token mutations of the corpus and example models, and arbitrary (often
ill-typed, often huge) expressions, through parse, resolve, lower, run, check and explore via the
Session; every outcome must be a result or a typed error. The crashes they found stay as regression
models in crashes/ (each is exercised on every run). HYPOTHESIS_PROFILE=slow runs 10,000 cases each."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st

from tests.property.mutants import mutate_structure
from tests.property.robustness import CRASHES, EXAMPLES, exercise, mutate_bytes, mutate_tokens

SLOW = os.environ.get("HYPOTHESIS_PROFILE") == "slow"
# OPENSYSML_FUZZ_CASES sets the count of each crash fuzzer (a slow run sized to the time at hand).
CASES = int(os.environ.get("OPENSYSML_FUZZ_CASES") or (10_000 if SLOW else 40))


def _seeds() -> list[Path]:
    from tests.corpus_cases import CORPUS

    corpus = sorted(Path(CORPUS).glob("conformance/*.sysml")) if CORPUS is not None else []
    more = Path(CORPUS).parent / "conformance-more" if CORPUS is not None else None
    extra = sorted(more.glob("*.sysml")) if more is not None and more.is_dir() else []
    return [*sorted(EXAMPLES.glob("*.sysml")), *corpus, *extra]


@pytest.mark.parametrize("path", sorted(CRASHES.iterdir()), ids=lambda p: p.name)
def test_every_crash_found_stays_fixed(path: Path) -> None:
    assert exercise(path.read_bytes()) in ("refused", "ran", "no action")


@pytest.mark.corpus
@settings(max_examples=CASES)
@given(seed=st.integers(0, 2 ** 32 - 1), edits=st.integers(1, 4),
       kind=st.sampled_from(("bytes", "tokens", "structure", "structure")))
def test_mutated_models_give_results_or_typed_errors(seed: int, edits: int, kind: str) -> None:
    # Half the mutants keep the model's shape (most of them submit and run); the other half are
    # byte and token edits, which mostly test the refusals.
    seeds = _seeds()
    rng = random.Random(seed)
    source = rng.choice(seeds).read_bytes()
    if kind == "bytes":
        mutant: bytes | str = mutate_bytes(source, rng, edits)
    elif kind == "tokens":
        mutant = mutate_tokens(source.decode("utf-8"), rng, edits)
    else:
        mutant = mutate_structure(source.decode("utf-8"), rng, min(edits, 2))[0]
    outcome = exercise(mutant, check=rng.random() < 0.3)
    note(f"{kind}: {outcome}")
    event(f"{kind} mutant {'refused' if outcome == 'refused' else 'submitted'}")


@pytest.mark.corpus
def test_most_shape_keeping_mutants_submit() -> None:
    """The grammar-aware edits must mostly give models that submit, or the fuzzer tests only refusals."""
    seeds = [p.read_text(encoding="utf-8") for p in _seeds()]
    rng = random.Random(9)
    outcomes = [exercise(mutate_structure(rng.choice(seeds), rng, 1)[0], check=False) for _ in range(40)]
    assert sum(o != "refused" for o in outcomes) >= 20, outcomes


# ---------------------------------------------------------------- expressions

ATOMS = st.sampled_from(["0", "1", "-1", "2", "7", "10", "4000", "1000000", "0.5", "2.5", "1e308", "true", "false",
                         "null", '"a"', '""', "()", "x", "s", "n", "1..5", "1..3000000"])
OPERATORS = st.sampled_from(["+", "-", "*", "/", "%", "**", "^", "<", ">", "<=", ">=", "==", "!=", "and", "or",
                             "xor", "&", "|", "implies", ".."])
FUNCTIONS = st.sampled_from(["SequenceFunctions::size", "SequenceFunctions::sum", "SequenceFunctions::first",
                             "SequenceFunctions::includes", "RealFunctions::sqrt", "RealFunctions::floor",
                             "IntegerFunctions::abs", "BaseFunctions::ToString", "Twice", "Loop"])


def _expressions() -> st.SearchStrategy[str]:
    return st.recursive(
        ATOMS,
        lambda inner: st.one_of(
            st.tuples(inner, OPERATORS, inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(["-", "+", "not "]), inner).map(lambda t: f"{t[0]}{t[1]}"),
            st.tuples(inner, inner, inner).map(lambda t: f"(if {t[0]} ? {t[1]} else {t[2]})"),
            st.tuples(FUNCTIONS, st.lists(inner, max_size=2)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
            st.tuples(inner, inner).map(lambda t: f"({t[0]}, {t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}#({t[1]})"),
        ),
        max_leaves=12,
    )


EXPRESSION_MODEL = """package Fuzz {{
    private import ScalarValues::*;
    calc def Twice {{ in v; 2 * v }}
    calc def Loop {{ in v; Loop(v) }}
    action A {{
        attribute x : Integer := 3;
        attribute s : String := "s";
        attribute n := null;
        attribute r;
        first start; then step;
        action step {{ assign r := {expression}; while x < 6 {{ assign x := x + 1; assign r := {expression}; }} }}
    }}
}}
"""


@settings(max_examples=CASES)
@given(expression=_expressions())
def test_any_expression_gives_a_value_or_a_typed_error(expression: str) -> None:
    exercise(EXPRESSION_MODEL.format(expression=expression), actions=1, check=False)
