"""The standard library's syntax tree kept between processes: the same tree as a parse, refused when stale."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ir import library, library_cache
from ir.library import LIBRARY_PATH, LIBRARY_TEXT, function_declarations
from ir.parse import parse


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    library.library_document.cache_clear()
    yield tmp_path / "opensysml-kernel"
    library.library_document.cache_clear()


def _text() -> str:
    return LIBRARY_TEXT + function_declarations()


def test_a_kept_tree_is_the_parsed_tree(cache: Path) -> None:
    first = library.library_document()
    kept = list(cache.glob("library-*.pickle"))
    assert len(kept) == 1
    assert (kept[0].stat().st_mode & 0o777) == 0o600
    assert library_cache.load(library_cache.key(_text())) == parse(_text(), LIBRARY_PATH) == first


def test_a_later_process_does_not_parse_the_library(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    library.library_document()
    library.library_document.cache_clear()

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the library was parsed again")

    monkeypatch.setattr(sys.modules["ir.parse"], "parse", refuse)
    assert library.library_document().members


def test_the_key_follows_the_text_and_the_parser(cache: Path) -> None:
    assert library_cache.key(_text()) == library_cache.key(_text())
    assert library_cache.key(_text()) != library_cache.key(_text() + "package Extra;\n")


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x05N."])
def test_a_torn_or_foreign_file_is_ignored_and_rewritten(cache: Path, content: bytes) -> None:
    digest = library_cache.key(_text())
    cache.mkdir(parents=True)
    (cache / f"library-{digest}.pickle").write_bytes(content)
    assert library_cache.load(digest) is None
    assert library.library_document().members
    assert library_cache.load(digest) is not None


def test_a_file_of_another_key_is_ignored(cache: Path) -> None:
    digest = library_cache.key(_text())
    library_cache.save("0" * 32, parse("package Other { }", LIBRARY_PATH))
    os.replace(cache / f"library-{'0' * 32}.pickle", cache / f"library-{digest}.pickle")
    assert library_cache.load(digest) is None


def test_an_unwritable_cache_only_costs_a_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    library.library_document.cache_clear()
    try:
        assert library.library_document().members
    finally:
        library.library_document.cache_clear()
