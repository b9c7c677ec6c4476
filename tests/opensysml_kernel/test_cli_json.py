"""`--json` on every command: a command line argparse refuses is one JSON error document (exit 2), and
`replay --json` is the replayed run: its outputs, its trace, and whether the witness's claim held."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opensysml_kernel.cli import main

# A shared counter two workers bump: the second read-modify-write may go first, leaving it short.
COUNTER = """package counter {
    private import ScalarValues::*;
    action Bump {
        attribute hits : Integer := 0;
        attribute seen : Integer := 0;
        first start;
        then fork f;
            then reader;
            then writer;
        action reader { assign seen := hits; }
        action writer { assign hits := hits + 2; }
        succession reader then j;
        succession writer then j;
        join j;
        then done;
    }
    requirement SawTheWrite {
        require constraint { seen >= 0 }
    }
}
"""


def _document(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    out = capsys.readouterr()
    assert out.err == ""
    document = json.loads(out.out)
    assert isinstance(document, dict)
    return document


@pytest.mark.parametrize("argv", [
    ["check", "m.sysml", "--json", "--engine", "bogus"],
    ["check", "--json", "m.sysml", "--depth", "many"],
    ["run", "m.sysml", "--json"],
    ["replay", "m.sysml", "--json"],
    ["install", "--json", "--user", "--prefix", "x"],
])
def test_a_refused_command_line_under_json_is_one_error_document(argv: list[str],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    document = _document(capsys)
    assert document["status"] == "error" and document["exit"] == 2
    assert str(document["error"]).startswith(f"opensysml-kernel {argv[0]}: ")
    assert str(document["usage"]).startswith(f"opensysml-kernel {argv[0]} ")


def test_without_json_argparse_refusals_stay_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "m.sysml", "--engine", "bogus"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("usage: opensysml-kernel check")
    assert "opensysml-kernel check: error: argument --engine: invalid choice: 'bogus'" in captured.err


def test_replay_json_is_the_replayed_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "counter.sysml"
    model.write_text(COUNTER)
    out = tmp_path / "w"
    assert main(["check", str(model), "--action", "Bump", "--diverge", "seen", "--witness-dir", str(out)]) == 1
    capsys.readouterr()
    for path in sorted(out.iterdir()):
        claimed = next(line for line in path.read_text().splitlines() if line.startswith("claim: value seen"))
        assert main(["replay", str(model), "--witness", str(path), "--json"]) == 0
        document = _document(capsys)
        assert document["status"] == "completed" and document["reproduced"] is True
        assert document["subject"] == "counter::Bump" and document["witness"] == str(path)
        assert document["claims"] == [claimed.removeprefix("claim: ")]
        outputs = document["outputs"]
        assert isinstance(outputs, dict) and outputs["hits"] == "2"
        assert f"value seen = {outputs['seen']}" == claimed.removeprefix("claim: ")
        assert document["moves"] == 6 and "stmt assign seen" in list(document["trace"])  # type: ignore[call-overload]
        assert main(["replay", str(model), "--witness", str(path)]) == 0
        assert capsys.readouterr().out.splitlines() == document["lines"]
    # a claim the replay does not reproduce: refused, said in the document
    first = sorted(out.iterdir())[0]
    first.write_text(first.read_text().replace("claim: value seen = ", "claim: value seen = 7").replace(
        "value seen = 70", "value seen = 7"))
    assert main(["replay", str(model), "--witness", str(first), "--json"]) == 2
    document = _document(capsys)
    assert document["status"] == "refused" and document["reproduced"] is False
    assert "the witness claims value seen = 7" in str(document["error"])
