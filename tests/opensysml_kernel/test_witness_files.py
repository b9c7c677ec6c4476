"""Witness files stay under their folder whatever the action is named, are created exclusively and
private, and a check's report is printed before (and whatever becomes of) its witness files."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from conftest import RACE

from opensysml_kernel.cli import main
from opensysml_kernel.commands import execute
from opensysml_kernel.session import Session
from opensysml_kernel.witness import STEM_BYTES, file_stem

# A race under a name chosen by someone else: its check is divergent, so it has two witnesses.
RACE_NAMED = RACE.replace("package race", "package p").replace("action Race", "action 'NAME'")
ESCAPES = ["../../x", "/abs/dir/x", "a" * 300, "..", ".hidden", "a\\\\b", "ok name", "über"]


def _everything_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


def _assert_inside(out: Path, written: list[str]) -> None:
    assert len(written) == 2
    for path in written:
        real = Path(path).resolve()
        assert real.parent == out.resolve(), path
        assert len(real.name.encode()) <= 255
        assert ".." not in real.name and not real.name.startswith(".")
        assert stat.S_IMODE(real.stat().st_mode) == 0o600


@pytest.mark.parametrize("name", ESCAPES, ids=["parent", "absolute", "300-bytes", "dotdot", "hidden", "backslash",
                                               "space", "non-ascii"])
def test_the_cli_writes_every_witness_inside_the_folder_and_replays_it(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    work = tmp_path / "deep" / "er"
    work.mkdir(parents=True)
    model = work / "m.sysml"
    model.write_text(RACE_NAMED.replace("NAME", name), encoding="utf-8")
    out = work / "out"
    before = _everything_under(tmp_path)
    assert main(["check", str(model), "--action", f"p::{name}", "--witness-dir", str(out), "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    written = [w["path"] for w in document["checks"][0]["witnesses"]]
    _assert_inside(out, written)
    assert _everything_under(tmp_path) - before == {out, *map(Path, written)}
    assert not Path("/abs").exists()
    for path in written:
        assert main(["replay", str(model), "--witness", path]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("name", ESCAPES[:3], ids=["parent", "absolute", "300-bytes"])
def test_check_witness_writes_every_witness_inside_the_folder(name: str, tmp_path: Path) -> None:
    session = Session()
    session.submit(RACE_NAMED.replace("NAME", name))
    out = tmp_path / "w"
    execute(session, "%engine check")
    execute(session, f"%check-witness {out}")
    execute(session, f"%action p::{name}")
    assert session.last_check is not None
    written = list(session.last_check.checks[0].paths)
    _assert_inside(out, written)
    assert sorted(p.name for p in out.iterdir()) == sorted(Path(p).name for p in written)
    execute(session, f"%replay {written[0]}")
    execute(session, f"%action p::{name}")
    assert execute(session, "%continue").data["outputs"] == {"c": "2"}


def test_names_that_need_no_change_keep_their_readable_stem_and_others_get_a_hash() -> None:
    assert file_stem("race::Race") == "race.Race"
    assert file_stem("race::Race", "explore") == "race.Race-explore"
    parent, absolute = file_stem("p::../../x"), file_stem("p::/abs/dir/x")
    assert parent.startswith("p._._x-") and absolute.startswith("p._abs_dir_x-")
    # two names that sanitize alike are told apart by their hash
    assert file_stem("p::a/b") != file_stem("p::a_b") and file_stem("p::a?b") != file_stem("p::a/b")
    assert len(file_stem("p::" + "a" * 300)) <= STEM_BYTES + 9
    assert file_stem("..") .startswith("witness-") and "/" not in file_stem("/")


def test_a_second_check_replaces_its_witness_files_without_following_a_link(tmp_path: Path) -> None:
    out = tmp_path / "w"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    os.symlink(victim, out / "race.Race-1.witness")
    session = Session()
    session.submit(RACE)
    execute(session, "%engine check")
    execute(session, f"%check-witness {out}")
    execute(session, "%action Race")
    execute(session, "%action Race")
    assert victim.read_text() == "keep me"
    assert not (out / "race.Race-1.witness").is_symlink()
    assert sorted(p.name for p in out.iterdir()) == ["race.Race-1.witness", "race.Race-2.witness"]


# ---------------------------------------------------------------- results first, then files


def test_an_unwritable_witness_folder_is_said_after_the_report_and_the_violation_stands(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "race.sysml"
    model.write_text(RACE)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["check", str(model), "--action", "Race", "--witness-dir", str(blocker / "w")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("✗ Action race::Race: divergent")
    assert lines[-2].startswith("  standing: sensitive")
    assert lines[-1] == f"  ✗ witness files not written to {blocker / 'w'}: Not a directory"


def test_an_unwritable_witness_folder_makes_an_answer_without_violation_undecided(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "race.sysml"
    model.write_text(RACE.replace("assign c := 2", "assign c := 1"))
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["check", str(model), "--action", "Race", "--engine", "explore", "--witness-dir", str(blocker),
                 "--json"]) == 2
    document = json.loads(capsys.readouterr().out)
    (check,) = document["checks"]
    assert check["verdict"] == "complete" and check["exit"] == 2 and document["exit"] == 2
    assert check["witnessError"].startswith(f"witness files not written to {blocker}: ")


def test_every_action_gets_its_report_whatever_another_one_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "race.sysml"
    model.write_text(RACE)
    assert main(["check", str(model), "--action", "Nowhere", "--action", "Race"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("✗ Action race::Race: divergent")
    assert "no action named 'Nowhere'" in captured.err

    checked = Session.check

    def crash_on_the_second(self: Session, name: str, performer: str | None = None) -> object:
        if name == "Second":
            raise RecursionError("maximum recursion depth exceeded")
        return checked(self, "Race", performer)

    monkeypatch.setattr(Session, "check", crash_on_the_second)
    assert main(["check", str(model), "--action", "Race", "--action", "Second", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert [c["subject"] for c in document["checks"]] == ["race::Race"]
    assert document["exit"] == 1 and document["status"] == "failed"
    assert document["error"] == ("internal error while checking Second: RecursionError: maximum recursion depth"
                                 " exceeded (a bug in opensysml-kernel: please report it with the model)")


def test_json_is_one_document_when_nothing_could_be_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "race.sysml"
    model.write_text(RACE)
    assert main(["check", str(model), "--action", "Nowhere", "--action", "Neither", "--json"]) == 2
    document = json.loads(capsys.readouterr().out)
    assert document["status"] == "error" and document["checks"] == []
    assert document["error"].count("no action named") == 2
