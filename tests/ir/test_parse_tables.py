"""The parse driver's tables kept in a cache file (ir/parse/tables.py): written once, read back equal,
rebuilt when missing, corrupt or of another grammar; a process whose texts parse cleanly never builds
lark's parser (a third of the command line's start-up), and one given a bad text still reports it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ir.parse import GRAMMAR, parser, tables

ROOT = Path(__file__).resolve().parents[2]
KEY = tables.key(GRAMMAR.read_text(encoding="utf-8"), "document")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "opensysml-kernel" / f"parse-tables-{KEY}.json"


def test_tables_are_written_once_and_read_back_equal(cache: Path) -> None:
    assert tables.load(KEY) is None
    extracted = tables.extract(parser(), "document", KEY)
    tables.save(extracted)
    assert cache.is_file() and oct(cache.parent.stat().st_mode & 0o777) == "0o700"
    assert tables.load(KEY) == json.loads(json.dumps(extracted))
    assert [p.name for p in cache.parent.iterdir()] == [cache.name]  # no temporary file left


@pytest.mark.parametrize("content", ["", "{", "[]", '{"key": "another grammar"}', "\x00\xff"])
def test_a_corrupt_or_foreign_cache_file_is_not_read(cache: Path, content: str) -> None:
    cache.parent.mkdir(parents=True)
    cache.write_text(content, encoding="latin-1")
    assert tables.load(KEY) is None


def test_another_grammar_or_lark_has_another_key() -> None:
    grammar = GRAMMAR.read_text(encoding="utf-8")
    assert tables.key(grammar + "\n", "document") != KEY
    assert tables.key(grammar, "other") != KEY


def test_an_unwritable_cache_folder_only_means_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    tables.save(tables.extract(parser(), "document", KEY))
    assert tables.load(KEY) is None


def _fresh_process(cache_home: Path, code: str) -> str:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=True)
    return done.stdout.strip()


PARSE_AND_SAY = """
import sys
import ir
from ir.parse import parser
try:
    ir.parse(sys.argv[-1] if len(sys.argv) > 1 else {text!r}, "m.sysml")
    print("parsed", parser.cache_info().currsize)
except ir.SysmlSyntaxError as error:
    print("refused", error.line, error.column, parser.cache_info().currsize)
"""


def test_a_process_with_the_cache_parses_without_building_lark(tmp_path: Path) -> None:
    text = "package P { action a { first start; then b; action b; } }"
    # The first process builds lark's parser and writes the tables; the next reads them only.
    assert _fresh_process(tmp_path, PARSE_AND_SAY.format(text=text)) == "parsed 1"
    assert _fresh_process(tmp_path, PARSE_AND_SAY.format(text=text)) == "parsed 0"
    # A bad text still gets its error, from lark's parser built on demand.
    assert _fresh_process(tmp_path, PARSE_AND_SAY.format(text="package P { action a }")) == "refused 1 22 1"
