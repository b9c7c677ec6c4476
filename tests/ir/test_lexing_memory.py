"""Comments, notes, docs and strings are lexed in memory independent of their length (a lazy
`(.|\\n)*?` cost Python's regex engine about 180 bytes per character: 900 MB for a 5 MB comment)."""

from __future__ import annotations

import tracemalloc

import pytest

import ir
from ir import syntax as s
from ir.parse import parser

SIZE = 1_000_000
FILLER = "lorem ipsum * dolor / sit amet\n"


def _texts() -> dict[str, str]:
    body = FILLER * (SIZE // len(FILLER))
    return {
        "block comment": f"package P {{\n/* {body} */\n  attribute x;\n}}\n",
        "note": f"package P {{\n//* {body} */\n  attribute x;\n}}\n",
        "doc": f"package P {{\n  doc /* {body} */\n  attribute x;\n}}\n",
        "string": 'package P {\n  attribute s = "' + body.replace("\n", ' \\" ') + '";\n}\n',
    }


@pytest.mark.parametrize("kind", sorted(_texts()))
def test_a_megabyte_comment_or_string_lexes_in_little_memory(kind: str) -> None:
    text = _texts()[kind]
    parser()
    tracemalloc.start()
    try:
        document = ir.parse(text, "big.sysml")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 12 * len(text)  # the text, its token and the syntax tree: a few copies, no per-character stack
    (package,) = document.members
    assert isinstance(package, s.Package)


@pytest.mark.parametrize(("text", "kept"), [
    ("/**/", True), ("/***/", True), ("/* a * b / c **/", True), ("/* a */ b */", False), ("/* never closed", False),
])
def test_block_comment_ends_at_the_first_star_slash(text: str, kept: bool) -> None:
    source = f"package P {{ {text} attribute x; }}"
    if kept:
        assert ir.parse(source, "c.sysml").members
    else:
        with pytest.raises(ir.SysmlSyntaxError):
            ir.parse(source, "c.sysml")


def test_strings_keep_their_escapes() -> None:
    document = ir.parse('package P { attribute s = "a \\"quoted\\" \\\\ b"; attribute t = "/* no comment */"; }', "s")
    (package,) = document.members
    assert isinstance(package, s.Package)
    values = [m.value for m in package.members if isinstance(m, s.Usage)]
    assert [v.text for v in values if isinstance(v, s.Literal)] == ['a "quoted" \\ b', "/* no comment */"]
