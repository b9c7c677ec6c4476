"""The one witness format: every witness reads back as itself, and no text makes the parser do
anything but return a witness or raise the typed witness error."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import tests.property.conftest  # noqa: F401  (the Hypothesis profiles: ci by default, slow on demand)
from engines.errors import ReplayRefused, WitnessFormatError
from engines.witness import END, Choice, Claim, ClaimKind, Witness, parse_witness, read_witness

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


_NAME = _WORD.filter(lambda w: " = " not in w and w == w.strip())
_CLAIM = st.one_of(
    st.builds(Claim, st.just(ClaimKind.PROPERTY), _NAME, st.sampled_from(("true", "false"))),
    st.builds(Claim, st.just(ClaimKind.VALUE), _NAME, _LINE),
)
_END_CLAIM = st.one_of(
    st.builds(Claim, st.sampled_from((ClaimKind.DEADLOCK, ClaimKind.FAILS)), _LINE.filter(lambda s: s.strip() != "")),
    st.just(Claim(ClaimKind.COMPLETES)),
)


@st.composite
def witnesses(draw: st.DrawFn) -> Witness:
    claims = draw(st.lists(_CLAIM, max_size=3))
    end = draw(st.none() | _END_CLAIM)
    if end is not None and end.kind is not ClaimKind.COMPLETES:
        claims = [c for c in claims if c.kind is ClaimKind.PROPERTY]
    if end is not None:
        claims.insert(draw(st.integers(0, len(claims))), end)
    if not claims:
        claims = [Claim(ClaimKind.COMPLETES)]
    trace = tuple(line for line in draw(st.lists(_LINE, max_size=6)) if line != END)
    digest = "sha256:" + draw(st.text("0123456789abcdef", min_size=16, max_size=16))
    performer = draw(st.none() | _NAME)
    inputs = draw(st.lists(st.tuples(_WORD.filter(lambda w: " " not in w), _LINE), max_size=3))
    horizon = draw(st.none() | st.fractions(min_value=0, max_denominator=8).map(str))
    return Witness(draw(_NAME), digest, draw(st.sampled_from(("check", "explore", "smt"))), tuple(claims),
                   draw(choices()), trace, performer, tuple(inputs), horizon)


@given(witnesses())
def test_every_witness_reads_back_as_itself(witness: Witness) -> None:
    assert parse_witness(witness.text()) == witness


@pytest.mark.parametrize("name", ["0 =", "a = b", " padded ", '"quoted"', "x = 1 = y", "über = 2"])
@pytest.mark.parametrize("kind", [ClaimKind.PROPERTY, ClaimKind.VALUE])
def test_a_claim_about_a_name_holding_an_equals_sign_reads_back(name: str, kind: ClaimKind) -> None:
    """Found by the slow profile: a quoted SysML name may hold ` = ` (`'a = b'`), which the claim line
    also uses between the name and the value; such a name is written as a JSON string."""
    value = "true" if kind is ClaimKind.PROPERTY else "a = b"
    witness = Witness("P::A", "sha256:0123456789abcdef", "check", (Claim(kind, name, value),), (), ())
    assert parse_witness(witness.text()) == witness
    assert Claim.read(Claim(kind, "plain::name", value).line()) == Claim(kind, "plain::name", value)


def _parse_or_refuse(text: str) -> None:
    try:
        parsed = parse_witness(text, "fuzzed")
    except WitnessFormatError as refused:
        assert isinstance(refused, ReplayRefused) and str(refused).startswith("witness refused: fuzzed")
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


@given(witnesses(), st.data())
def test_a_witness_with_lines_dropped_doubled_or_swapped_is_a_witness_or_the_witness_error(
        witness: Witness, data: st.DataObject) -> None:
    lines = witness.text().split("\n")
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        j = data.draw(st.integers(0, len(lines) - 1))
        edit = data.draw(st.sampled_from(("drop", "double", "swap")))
        if edit == "drop" and len(lines) > 1:
            del lines[i]
        elif edit == "double":
            lines.insert(i, lines[j])
        else:
            lines[i], lines[j] = lines[j], lines[i]
    _parse_or_refuse("\n".join(lines))


@given(witnesses(), st.data())
def test_a_witness_cut_short_anywhere_is_refused_as_truncated(witness: Witness, data: st.DataObject) -> None:
    text = witness.text()
    cut = data.draw(st.integers(1, len(text) - 1))
    if text[:cut].rstrip() == text.rstrip():
        return  # only the last newline went: the witness is whole
    with pytest.raises(WitnessFormatError):
        parse_witness(text[:cut], "cut")


FILL = Witness("tank::Fill", "sha256:0123456789abcdef", "check",
               (Claim(ClaimKind.PROPERTY, "tank::NeverNegative", "false"),),
               (Choice(1, "1@start", ("1@start",)), Choice(3, "3@valve", ("2@pump", "3@valve"))),
               ("step 1: start", "  level: 0 -> -3"), None, (("n", "3"),))


def test_the_format_as_written() -> None:
    assert FILL.text() == (
        "opensysml witness 1\n"
        "behavior: tank::Fill\n"
        "model: sha256:0123456789abcdef\n"
        "engine: check\n"
        "claim: property tank::NeverNegative = false\n"
        "input n = 3\n"
        "step 1: 1@start first of 1@start\n"
        "step 3: 3@valve first of 2@pump, 3@valve\n"
        "\n"
        "step 1: start\n"
        "  level: 0 -> -3\n"
        "property: tank::NeverNegative\n"
        "end of witness\n")
    assert FILL.last_step == 3 and FILL.taken_at(3) == "3@valve" and FILL.taken_at(2) is None
    assert parse_witness(FILL.text().replace("\n", "\r\n")) == FILL


def _refusal(text: str) -> str:
    with pytest.raises(WitnessFormatError) as refused:
        parse_witness(text, "w")
    return str(refused.value)


def test_an_empty_witness_is_refused() -> None:
    for text in ("", "\n", "  \n\n"):
        assert _refusal(text) == "witness refused: w: the witness is empty: there is nothing to replay"


def test_an_old_headerless_witness_is_refused_saying_how_to_regenerate_it() -> None:
    for old in ("step 1: 1@start first of 1@start\n\nproperty: a::R\n", "input n = 3\nstep 2: 1@a first of 1@a\n\n",
                "\n\nstmt assign c\n"):
        said = _refusal(old)
        assert said.startswith("witness refused: w:1: a witness without a header, written before witnesses named")
        assert "regenerate it: `opensysml-kernel check FILES --action NAME --witness-dir DIR`" in said


@pytest.mark.parametrize(("edit", "said"), [
    (lambda t: t.replace("end of witness\n", ""), "w:12: truncated: the witness stops at line 12 without its last"
                                                  " line 'end of witness'"),
    (lambda t: t.replace("witness 1", "witness 2", 1), "w:1: witness format 'opensysml witness 2': this tool reads"
                                                       " 'opensysml witness 1'"),
    (lambda t: "hello\n" + t, "w:1: not a witness: it begins 'hello', not 'opensysml witness 1'"),
    (lambda t: t.replace("behavior: tank::Fill\n", ""), "w: the header has no 'behavior:' line"),
    (lambda t: t.replace("model: sha256:0123456789abcdef", "model: 42"),
     "w: the model hash '42' is not sha256:<16 hex digits>"),
    (lambda t: t.replace("engine: check\n", "engine: check\nengine: smt\n"), "w:5: a second 'engine:' line"),
    (lambda t: t.replace("claim: property tank::NeverNegative = false\n", ""),
     "w: the header has no 'claim:' line: the witness claims nothing"),
    (lambda t: t.replace("= false", "= maybe"), "w:5: not a claim"),
    (lambda t: t.replace("engine: check\n", "engine: check\nclaim: fails x\nclaim: deadlock y\n"),
     "w: the claims contradict each other"),
    (lambda t: t.replace("step 3: 3@valve first", "step 1: 3@valve first"), "w:8: steps must increase"),
    (lambda t: t.replace("step 3: 3@valve first", "step 3: 9@pump first"),
     "w:8: the move taken is not among the moves it is chosen from"),
    (lambda t: t.replace("property: tank::NeverNegative\n", ""),
     "w:11: the trace ends with '  level: 0 -> -3', not the 'property: tank::NeverNegative' its claim implies"),
    (lambda t: t.replace("step 1: 1@start first", "go left and then"), "w:7: not a header or choice line"),
])
def test_a_witness_out_of_the_format_is_refused_saying_where_and_what(edit: object, said: str) -> None:
    assert callable(edit)
    assert said in _refusal(edit(FILL.text()))


def test_a_witness_file_that_is_not_utf8_is_refused_by_its_byte_offset() -> None:
    data = FILL.text().encode("utf-8").replace(b"tank::Fill", b"tank::F\xffll", 1)
    with pytest.raises(WitnessFormatError) as refused:
        read_witness(data, "w")
    assert str(refused.value) == "witness refused: w: not UTF-8 text: byte 37 is 0xff"


@given(witnesses(), st.binary(max_size=4), st.integers(0, 10_000))
def test_bytes_spliced_into_a_witness_are_a_witness_or_the_witness_error(
        witness: Witness, junk: bytes, where: int) -> None:
    raw = witness.text().encode("utf-8")
    where %= len(raw) + 1
    with contextlib.suppress(WitnessFormatError):
        read_witness(raw[:where] + junk + raw[where:], "spliced")


def test_a_horizon_that_is_no_number_is_refused() -> None:
    text = FILL.text().replace("engine: check\n", "engine: check\nhorizon: soon\n")
    with pytest.raises(WitnessFormatError, match="the horizon 'soon' is not a number of seconds"):
        parse_witness(text)
