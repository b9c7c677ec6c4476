"""Notation beyond the first corpus: reserved words, `constant`, references, conjugated port types,
short names, named multiplicity bounds, `then [n] x;`, `while ... until`, chains after `perform`."""

from __future__ import annotations

import pytest

from ir import SysmlSyntaxError, parse
from ir import syntax as s
from ir.reserved import ACCEPTED_AS_NAMES, REFUSED_AS_NAMES, SYSML_RESERVED
from tests.corpus_cases import CORPUS, MORE

MODELS = sorted(CORPUS.rglob("*.sysml")) + sorted(MORE.glob("*.sysml"))


def only(text: str) -> s.Member:
    (member,) = parse(text).members
    return member


def action_members(text: str) -> tuple[s.Member, ...]:
    usage = only(f"action a {{ {text} }}")
    assert isinstance(usage, s.Usage)
    return usage.members


# ---------------------------------------------------------------- reserved words


@pytest.mark.parametrize("word", ["connect", "filter", "use", "satisfy", "variant", "then", "constant"])
def test_a_reserved_word_is_refused_as_a_name_with_where_and_the_way_out(word: str) -> None:
    text = f"package P {{\n  attribute {word} : Integer = 1;\n}}"
    with pytest.raises(SysmlSyntaxError) as caught:
        parse(text, "plant.sysml")
    err = caught.value
    assert (err.path, err.line, err.column) == ("plant.sysml", 2, 13)
    assert f"'{word}' is a SysML v2 reserved word" in err.message
    assert f"'{word}'" in str(err) and "^" in str(err)


@pytest.mark.parametrize("text", [
    "action filter;",
    "part def use;",
    "package P { action a { assign connect := 1; } }",
    "action a { for satisfy in (1, 2) { } }",
    "enum def Mode { variant; }",
])
def test_reserved_words_are_refused_wherever_a_name_stands(text: str) -> None:
    with pytest.raises(SysmlSyntaxError, match="reserved word"):
        parse(text)


# A feature named by a reserved word parses where it is declared; reading it in an expression later is
# where the grammar fails (`state == 2` reads `state` as the keyword). The error names the cause, where
# it is written, and the line that failed; a quoted name or an unrelated error elsewhere is no such case.
def test_a_reserved_name_read_later_is_reported_where_it_is_declared() -> None:
    text = ("package r {\n  action def A {\n    attribute state : Integer := 0;\n"
            "    then action w { assign x := 2; }\n  }\n  requirement Two { state == 2 }\n}")
    with pytest.raises(SysmlSyntaxError) as caught:
        parse(text, "r.sysml")
    err = caught.value
    assert (err.line, err.column) == (3, 15)
    assert err.message.startswith("'state' is a SysML v2 reserved word and cannot be a name")
    assert "fails to parse at line 6" in err.message
    quoted = text.replace("attribute state", "attribute 'state'")
    with pytest.raises(SysmlSyntaxError) as other:
        parse(quoted, "r.sysml")
    assert "reserved word" not in other.value.message and other.value.line == 6


def test_a_quoted_reserved_word_is_a_name() -> None:
    usage = only("attribute 'connect' : Integer = 1;")
    assert isinstance(usage, s.Usage) and usage.name == "connect"


@pytest.mark.parametrize("word", sorted(ACCEPTED_AS_NAMES))
def test_reserved_words_the_corpora_use_as_names_stay_names(word: str) -> None:
    usage = only(f"action {word};")
    assert isinstance(usage, s.Usage) and usage.name == word


def test_words_the_corpus_uses_as_names_but_sysml_does_not_reserve_stay_names() -> None:
    for word in ("start", "done", "deep"):
        assert word not in SYSML_RESERVED
        usage = only(f"state {word};")
        assert isinstance(usage, s.Usage) and usage.name == word


def test_the_refused_set_is_the_reserved_set_less_the_accepted_one() -> None:
    assert ACCEPTED_AS_NAMES <= SYSML_RESERVED
    assert REFUSED_AS_NAMES == SYSML_RESERVED - ACCEPTED_AS_NAMES
    assert {"connect", "filter", "use"} <= REFUSED_AS_NAMES


@pytest.mark.corpus
def test_every_corpus_model_still_parses() -> None:
    assert MODELS, "the corpus holds no model"
    for model in MODELS:
        parse(model.read_text(encoding="utf-8"), model.name)


# ---------------------------------------------------------------- declarations


def test_constant_marks_the_feature() -> None:
    (locked, free) = action_members("constant attribute locked : Integer = 1; attribute free : Integer = 0;")
    assert isinstance(locked, s.Usage) and locked.constant and locked.name == "locked"
    assert isinstance(free, s.Usage) and not free.constant


def test_a_conjugated_port_type_names_the_port_definition() -> None:
    part = only("part def Tank { port inlet : ~FeedPort; port outlet : FeedPort; }")
    assert isinstance(part, s.Definition)
    inlet, outlet = part.members
    assert isinstance(inlet, s.Usage) and inlet.types == ("FeedPort",) and inlet.conjugated
    assert isinstance(outlet, s.Usage) and outlet.types == ("FeedPort",) and not outlet.conjugated


def test_references_name_a_feature_or_a_chain() -> None:
    first, second = action_members("perform action run ::> target.go; perform action d references Lib::inc;")
    assert isinstance(first, s.Usage) and first.references == ("target.go",) and first.performed
    assert isinstance(second, s.Usage) and second.references == ("Lib::inc",) and second.name == "d"


def test_perform_of_a_chain_refers_to_its_end_and_perform_of_a_name_types_by_it() -> None:
    chained, named = action_members("perform target.later.start; perform Halve;")
    assert isinstance(chained, s.Usage) and chained.references == ("target.later.start",)
    assert chained.name is None and chained.performed
    assert isinstance(named, s.Usage) and named.types == ("Halve",) and named.references == ()


def test_a_short_name_alone_names_the_declaration() -> None:
    usage = only("attribute <x> : Integer = 0;")
    assert isinstance(usage, s.Usage) and (usage.name, usage.short_name) == ("x", "x")
    both = only("attribute <x> longName : Integer = 0;")
    assert isinstance(both, s.Usage) and (both.name, both.short_name) == ("longName", "x")
    package = only("package <P> Plant { }")
    assert isinstance(package, s.Package) and (package.name, package.short_name) == ("Plant", "P")


def test_a_multiplicity_bound_may_name_a_feature() -> None:
    (step,) = action_members("action a[three] { }")
    assert isinstance(step, s.Usage) and step.multiplicity is not None
    assert (step.multiplicity.lower_ref, step.multiplicity.upper_ref) == ("three", "three")
    (ranged,) = action_members("action b[1..most];")
    assert isinstance(ranged, s.Usage) and ranged.multiplicity is not None
    assert (ranged.multiplicity.lower, ranged.multiplicity.lower_ref, ranged.multiplicity.upper_ref) == (1, None, "most")


def test_then_may_state_its_target_end_multiplicity() -> None:
    (then,) = action_members("then [3] a;")
    assert isinstance(then, s.ThenMember) and then.target == "a"
    assert then.multiplicity == s.Multiplicity(3, 3, "3")


# ---------------------------------------------------------------- statements


def test_while_may_end_with_until() -> None:
    (loop,) = action_members("while n < 3 { assign n := n + 1; } until n == 2;")
    assert isinstance(loop, s.While) and isinstance(loop.until, s.Binary) and loop.until.op == "=="
    (plain,) = action_members("while n < 3 { assign n := n + 1; }")
    assert isinstance(plain, s.While) and plain.until is None


def test_a_for_variable_may_have_a_short_name() -> None:
    (short,) = action_members("for <s> in steps { }")
    assert isinstance(short, s.For) and (short.variable, short.short_name) == ("s", "s")
    (both,) = action_members("for <i> index in steps { }")
    assert isinstance(both, s.For) and (both.variable, both.short_name) == ("index", "i")


def test_ref_may_qualify_a_directed_usage() -> None:
    part = only("part def Desk { out ref item ack : Ack; }")
    assert isinstance(part, s.Definition)
    (ack,) = part.members
    assert isinstance(ack, s.Usage) and (ack.kind, ack.direction, ack.name) == ("item", "out", "ack")
