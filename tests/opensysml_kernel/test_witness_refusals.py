"""A witness knows what it witnesses: replay (the CLI's, and %replay) refuses one of another model or
behavior, an empty, malformed, truncated or headerless one, and one whose claim it does not reproduce."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import RACE, TANK

from engines.errors import ReplayRefused, WitnessFormatError, WitnessMismatch
from engines.witness import Claim, ClaimKind, Witness, model_hash
from opensysml_kernel.cli import main
from opensysml_kernel.commands import execute
from opensysml_kernel.session import Session


@pytest.fixture
def fill(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """The tank model and the witness its check finds: NeverNegative false after 3 moves."""
    model = tmp_path / "tank.sysml"
    model.write_text(TANK)
    out = tmp_path / "w"
    assert main(["check", str(model), "--action", "Fill", "--property", "NeverNegative", "--witness-dir", str(out)]) == 1
    capsys.readouterr()
    return model, out / "tank.Fill-1.witness"


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["replay", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err.strip()


def test_the_witness_names_its_model_behavior_engine_and_claim(fill: tuple[Path, Path]) -> None:
    model, witness = fill
    session = Session()
    session.load([str(model)])
    assert witness.read_text().splitlines()[:5] == [
        "opensysml witness 1", "behavior: tank::Fill", f"model: {model_hash(session.model)}", "engine: check",
        "claim: property tank::NeverNegative = false"]


def test_the_replay_takes_the_action_from_the_witness(fill: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    model, witness = fill
    code, out, _ = replay(capsys, str(model), "--witness", str(witness))
    assert code == 1
    assert out.splitlines()[-2] == "✗ Action tank::Fill: witness reproduced after 3 moves: property: tank::NeverNegative"


def test_a_witness_of_another_model_is_refused(fill: tuple[Path, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _, witness = fill
    fixed = tmp_path / "fixed.sysml"
    fixed.write_text(TANK.replace("level := level - 3", "level := level - 0"))
    code, out, err = replay(capsys, str(fixed), "--witness", str(witness))
    assert code == 2 and out == ""
    assert err.startswith(f"witness refused: {witness} was written for another model (sha256:")
    assert "the model changed since; regenerate it: `opensysml-kernel check FILES" in err


def test_layout_and_how_the_text_is_split_do_not_change_the_model(fill: tuple[Path, Path], tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    _, witness = fill
    spaced = tmp_path / "spaced.sysml"
    spaced.write_text("\n\n" + TANK.replace("\n", "   \r\n\r\n"))
    assert replay(capsys, str(spaced), "--witness", str(witness))[0] == 1


def test_a_witness_of_another_behavior_is_refused(fill: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    model, witness = fill
    code, _, err = replay(capsys, str(model), "--witness", str(witness), "--action", "Handshake")
    assert code == 2
    assert err == (f"witness refused: {witness} is a witness of tank::Fill, not tank::Handshake: replay it with the"
                   " action tank::Fill")


def test_a_witness_of_a_behavior_the_model_lacks_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "race.sysml"
    model.write_text(RACE)
    session = Session()
    session.load([str(model)])
    witness = tmp_path / "w.witness"
    witness.write_text(Witness("race::Gone", model_hash(session.model), "check", (Claim(ClaimKind.COMPLETES),),
                               (), ()).text())
    code, _, err = replay(capsys, str(model), "--witness", str(witness))
    assert code == 2
    assert err == f"witness refused: {witness} is a witness of race::Gone, which the model does not declare"


@pytest.mark.parametrize(("edit", "said"), [
    (lambda text: "", "the witness is empty: there is nothing to replay"),
    (lambda text: text[:len(text) // 2], "truncated: the witness stops at line"),
    (lambda text: text.removesuffix("end of witness\n"), "truncated: the witness stops at line"),
    (lambda text: text.split("\n", 5)[5], "a witness without a header, written before witnesses named their model"),
    (lambda text: "step 1: 1@start first of 1@start\n", "regenerate it: `opensysml-kernel check FILES --action NAME"),
    (lambda text: text.replace("step 3:", "step 2:"), "steps must increase"),
])
def test_an_empty_truncated_headerless_or_malformed_witness_is_refused(
        fill: tuple[Path, Path], capsys: pytest.CaptureFixture[str], edit: object, said: str) -> None:
    model, witness = fill
    assert callable(edit)
    witness.write_text(edit(witness.read_text()))
    code, out, err = replay(capsys, str(model), "--witness", str(witness))
    assert code == 2 and out == ""
    assert err.startswith(f"witness refused: {witness}") and said in err


def test_a_witness_file_with_a_bad_byte_is_refused(fill: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    model, witness = fill
    witness.write_bytes(witness.read_bytes().replace(b"Fill", b"F\xc3ll", 1))
    code, _, err = replay(capsys, str(model), "--witness", str(witness))
    assert code == 2 and err == f"witness refused: {witness}: not UTF-8 text: byte 37 is 0xc3"


@pytest.mark.parametrize(("claim", "found"), [
    ("property tank::NeverNegative = true", "tank::NeverNegative is false after 3 moves"),
    ("property tank::Nope = false", "tank::Nope"),
])
def test_a_property_claim_the_replay_does_not_reproduce_is_refused(
        fill: tuple[Path, Path], capsys: pytest.CaptureFixture[str], claim: str, found: str) -> None:
    model, witness = fill
    name = claim.split()[1]
    text = witness.read_text().replace("claim: property tank::NeverNegative = false", f"claim: {claim}")
    witness.write_text(text.replace("property: tank::NeverNegative\n", f"property: {name}\n"))
    code, out, err = replay(capsys, str(model), "--witness", str(witness))
    assert code == 2
    assert out.splitlines()[-1] == "  level: 0 → -3"  # the moves were made; the claim at their end is not
    assert err.startswith(f"replay refused: {witness}: the witness claims {claim}, but ") and found in err


def test_value_and_deadlock_claims_the_replay_does_not_reproduce_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "race.sysml"
    model.write_text(RACE)
    out = tmp_path / "w"
    assert main(["check", str(model), "--action", "Race", "--witness-dir", str(out)]) == 1
    capsys.readouterr()
    witness = out / "race.Race-2.witness"  # the schedule that takes b first
    assert replay(capsys, str(model), "--witness", str(witness))[0] == 0  # as written: c ends 1
    text = witness.read_text()
    witness.write_text(text.replace("claim: value c = 1", "claim: value c = 7"))
    code, _, err = replay(capsys, str(model), "--witness", str(witness))
    assert code == 2
    assert err == f"replay refused: {witness}: the witness claims value c = 7, but the replay ends with c = 1"
    witness.write_text(text.replace("claim: value c = 1", "claim: deadlock token 2@j wait")
                       .replace("end of witness", "fails: deadlock: token 2@j wait\nend of witness"))
    code, _, err = replay(capsys, str(model), "--witness", str(witness))
    assert code == 2
    assert err == f"replay refused: {witness}: the witness claims deadlock token 2@j wait, but the replay completes"


def test_a_replay_of_a_deadlock_witness_reproduces_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "tank.sysml"
    model.write_text(TANK)
    out = tmp_path / "w"
    assert main(["check", str(model), "--action", "Handshake", "--witness-dir", str(out)]) == 1
    capsys.readouterr()
    code, said, _ = replay(capsys, str(model), "--witness", str(out / "tank.Handshake-1.witness"))
    assert code == 1
    assert said.splitlines()[-2].endswith(": fails: deadlock: token 2@j, token 3@ack wait")


# ---------------------------------------------------------------- %replay


def test_percent_replay_refuses_what_the_cli_refuses(fill: tuple[Path, Path], tmp_path: Path) -> None:
    model, witness = fill
    session = Session()
    session.load([str(model)])
    session.submit("package extra { action Other { first start; then done; } }")
    with pytest.raises(WitnessMismatch, match="was written for another model"):
        execute(session, f"%replay {witness}")
    empty = tmp_path / "empty.witness"
    empty.write_text("")
    with pytest.raises(WitnessFormatError, match="the witness is empty"):
        execute(session, f"%replay {empty}")
    assert session.replay is None


def test_percent_replay_last_is_refused_once_the_model_changed(tmp_path: Path) -> None:
    session = Session()
    session.submit(TANK)
    execute(session, "%check-property NeverNegative")
    execute(session, "%action Fill")
    session.submit("package later { action More { first start; then done; } }")
    with pytest.raises(ReplayRefused, match="was written for another model"):
        execute(session, "%replay last")


def test_percent_replay_says_at_the_end_of_the_witness_when_its_claim_is_not_reproduced(
        fill: tuple[Path, Path]) -> None:
    model, witness = fill
    witness.write_text(witness.read_text().replace("NeverNegative = false", "NeverNegative = true"))
    session = Session()
    session.load([str(model)])
    execute(session, f"%replay {witness}")
    execute(session, "%action Fill")
    lines = str(execute(session, "%continue")).splitlines()
    assert lines[-2:] == ["⏸ end of the witness after 3 moves: property: tank::NeverNegative",
                          "✗ not reproduced: the witness claims property tank::NeverNegative = true, but"
                          " tank::NeverNegative is false after 3 moves"]
