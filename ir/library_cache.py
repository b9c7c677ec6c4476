"""The standard library's syntax tree, kept in the user's cache folder between processes.

Parsing the library text was most of a one-leaf `run`'s start-up (its per-state lexers are compiled
regular expressions, its text longer than a typical model). The tree is pickled under the cache
folder the parser's tables use, in a file named by a hash of everything that shapes it: the library
text, the grammar, the source of the syntax classes and of the parser, and Python's version. A file
that is missing, unreadable, of another key or of another shape is ignored (and rewritten); a folder
that cannot be written only means the next process parses the library again. The file is the user's
own (mode 0600 in a 0700 folder), as lark's cache of its tables is.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path

from ir import syntax as s

FORMAT = "library-tree 1"
_IR = Path(__file__).resolve().parent


def key(text: str) -> str:
    digest = hashlib.sha256(f"{FORMAT}\n{sys.version}\n".encode())
    digest.update(text.encode("utf-8"))
    for source in (_IR / "grammar.lark", _IR / "syntax.py", *sorted((_IR / "parse").glob("*.py"))):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:32]


def _path(digest: str) -> Path:
    from ir.parse.tables import cache_folder

    return cache_folder() / f"library-{digest}.pickle"


def load(digest: str) -> s.Document | None:
    try:
        with open(_path(digest), "rb") as handle:
            stored = pickle.load(handle)
    except Exception:  # a torn, foreign or stale file is the same as none
        return None
    if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == digest and isinstance(stored[1], s.Document):
        return stored[1]
    return None


def save(digest: str, document: s.Document) -> None:
    """Written whole or not at all: a temporary file renamed into place."""
    target = _path(digest)
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".library-")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            pickle.dump((digest, document), out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, target)
    except (OSError, pickle.PicklingError, RecursionError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)
