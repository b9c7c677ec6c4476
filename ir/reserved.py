"""The SysML v2 reserved words, and which of them this tool still accepts as names.

The SysML v2 textual notation reserves its keywords: a name spelled like one must be written as an
unrestricted name in quotes (`'connect'`). This tool's grammar reads only part of the notation, so
its lexer takes most unread keywords (`connect` in a name's place, `filter`, `satisfy`, ...) for
names; `reserved_as_name` refuses those when they name an element, so a model that a full SysML v2
tool would refuse is refused here too, with the quoted spelling as the way out.

The exceptions are the words the models in the wild (the conformance corpora and this project's own
models) give their elements: `first`, `parallel`, `after`, `decide`, ... stay names wherever a
name stands, as the grammar's `name` rule reads them.
"""

from __future__ import annotations

# The reserved words of the SysML v2 textual notation (SysML v2 specification, clause 8.2.2.1.2).
_RESERVED_TEXT = """
about abstract accept action actor after alias all allocate allocation analysis and as assert assign
assume at attribute bind binding by calc case comment concern connect connection constant constraint
crosses decide def default defined dependency derived do doc else end entry enum event exhibit exit
expose false filter first flow for fork frame from hastype if implies import in include individual
inout interface istype item join language library locale loop merge message meta metadata new
nonunique not null objective occurrence of or ordered out package parallel part perform port private
protected public redefines ref references render rendering rep require requirement return satisfy
send snapshot specializes stakeholder standard state subject subsets succession terminate then
timeslice to transition true until use variant variation verification verify via view viewpoint when
while xor
"""
SYSML_RESERVED: frozenset[str] = frozenset(_RESERVED_TEXT.split())

# Reserved words that the conformance corpora use as names (`action decide { ... }`, `state first;`,
# `then action after;`, `state deep parallel { ... }`, `attribute message : String;`,
# `attribute snapshot : Integer := source;`, `perform action bind : Bind;`): accepted, so those
# models keep reading. Every other reserved word is refused as a name.
ACCEPTED_AS_NAMES: frozenset[str] = frozenset({
    "first", "after", "decide", "parallel", "message", "snapshot", "bind",
})

REFUSED_AS_NAMES: frozenset[str] = SYSML_RESERVED - ACCEPTED_AS_NAMES


def reserved_as_name(word: str) -> bool:
    """Whether `word`, written unquoted where a name stands, is a reserved word this tool refuses."""
    return word in REFUSED_AS_NAMES
