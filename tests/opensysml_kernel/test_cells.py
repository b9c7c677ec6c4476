"""Cutting a cell into commands and submissions, and counting open braces."""

from __future__ import annotations

from opensysml_kernel.cells import CommandLine, Submission, command_word, open_braces, split_cell


def test_open_braces_ignores_strings_and_comments() -> None:
    assert open_braces("package p {") == 1
    assert open_braces("package p { }") == 0
    assert open_braces('package p { attribute s = "{"; // {\n /* { */') == 1
    assert open_braces("package 'a{b' {") == 1


def test_split_keeps_order_and_line_numbers() -> None:
    cell = "package p {\n  action a;\n}\n%action a\n\npackage q { }\n%step 2"
    chunks = split_cell(cell)
    assert [type(c) for c in chunks] == [Submission, CommandLine, Submission, CommandLine]
    assert chunks[1] == CommandLine("%action a", 4)
    third = chunks[2]
    assert isinstance(third, Submission) and third.line == 5
    assert third.text.splitlines()[5] == "package q { }"  # padded: positions match the cell


def test_percent_inside_braces_is_text() -> None:
    chunks = split_cell("package p {\n%not a command\n}")
    assert len(chunks) == 1 and isinstance(chunks[0], Submission)


def test_blank_text_is_no_submission() -> None:
    assert split_cell("\n%list\n\n") == [CommandLine("%list", 2)]


def test_command_word() -> None:
    assert command_word("  %step 3") == "step"
    assert command_word("%") == ""
