"""The one witness format: every witness reads back as itself, and no text makes the parser do
anything but return a witness or raise the typed witness error."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import tests.property.conftest  # noqa: F401  (the Hypothesis profiles: ci by default, slow on demand)
from engines.errors import ReplayRefused, WitnessFormatError
from engines.witness import ENDINGS, Choice, Witness, parse_witness

# Names as models spell them: plain, quoted-looking, with spaces and `::`, never a line break.
_WORD = st.text(st.sampled_from("abcxyz_019 :'.-+*/<>=é"), min_size=1, max_size=12).map(str.strip).filter(
    lambda w: bool(w) and ", " not in w and " first of " not in w and not w.endswith(","))
_LABEL = st.builds(lambda token, node: f"{token}@{node}", st.integers(1, 99), _WORD)
_LINE = st.text(st.characters(blacklist_categories=("Cc", "Zl", "Zp", "Cs")), max_size=40)


@st.composite
def choices(draw: st.DrawFn) -> tuple[Choice, ...]:
    steps = sorted(draw(st.sets(st.integers(1, 60), max_size=6)))
    made = []
    for step in steps:
        enabled = tuple(dict.fromkeys(draw(st.lists(_LABEL, min_size=1, max_size=4))))
        made.append(Choice(step, draw(st.sampled_from(enabled)), enabled))
    return tuple(made)


@st.composite
def witnesses(draw: st.DrawFn) -> Witness:
    trace = draw(st.lists(_LINE, max_size=6))
    while trace and not trace[-1].strip():
        trace.pop()  # trailing blank lines are layout, not trace
    ending = draw(st.one_of(st.just(""), st.builds(lambda kind, what: kind + what, st.sampled_from(ENDINGS),
                                                      _LINE.filter(lambda s: s.strip() == s))))
    if not ending and trace and trace[-1].startswith(ENDINGS):
        trace.pop()
    inputs = draw(st.lists(st.tuples(_WORD.filter(lambda w: " " not in w), _LINE), max_size=3))
    return Witness(draw(choices()), tuple(trace), ending, tuple(inputs))


@given(witnesses())
def test_every_witness_reads_back_as_itself(witness: Witness) -> None:
    assert parse_witness(witness.text()) == witness


def _parse_or_refuse(text: str) -> None:
    try:
        parsed = parse_witness(text, "fuzzed")
    except WitnessFormatError as refused:
        assert isinstance(refused, ReplayRefused) and str(refused).startswith("fuzzed:")
        return
    assert isinstance(parsed, Witness)


@given(st.text())
@example("")
@example("\n\n\n")
@example("step 0: 1@a first of 1@a\n")
@example("step 99999999999999999999999: 1@a first of 1@a\n")
def test_any_text_is_a_witness_or_the_witness_error(text: str) -> None:
    _parse_or_refuse(text)


@given(witnesses(), st.data())
def test_a_mutated_witness_is_a_witness_or_the_witness_error(witness: Witness, data: st.DataObject) -> None:
    raw = bytearray(witness.text().encode("utf-8"))
    for _ in range(data.draw(st.integers(1, 6))):
        where = data.draw(st.integers(0, len(raw)))
        action = data.draw(st.sampled_from(("flip", "insert", "delete", "cut")))
        if action == "flip" and where < len(raw):
            raw[where] ^= 1 << data.draw(st.integers(0, 7))
        elif action == "insert":
            raw[where:where] = data.draw(st.binary(min_size=1, max_size=8))
        elif action == "delete":
            del raw[where:where + data.draw(st.integers(1, 8))]
        else:
            del raw[where:]
    _parse_or_refuse(raw.decode("utf-8", errors="replace"))


def test_sparse_steps_and_inputs() -> None:
    witness = parse_witness("input n = 3\nstep 3: 2@a first of 2@a, 3@b\nstep 7: 2@j first of 2@j, 3@j\n\n"
                            "trace line\nproperty: a::R\n", "w")
    assert witness.inputs == (("n", "3"),)
    assert witness.last_step == 7 and witness.taken_at(3) == "2@a" and witness.taken_at(4) is None
    assert witness.trace == ("trace line",) and witness.ending == "property: a::R"


@pytest.mark.parametrize(("text", "why"), [
    ("go left\n", "w:1: not a witness choice line: 'go left'"),
    ("step 2: 1@a first of 1@a\nstep 2: 1@b first of 1@b\n", "steps must increase"),
    ("step 0: 1@a first of 1@a\n", "steps must increase"),
])
def test_lines_out_of_the_format_are_refused_by_number(text: str, why: str) -> None:
    with pytest.raises(WitnessFormatError, match=why):
        parse_witness(text, "w")
