"""The command line never ends in a traceback and never exits 1 for anything but a violation or a
failed run: a file not in UTF-8 names the byte, an internal error exits 2 with a bug-report hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from ir.source import SourceEncodingError
from opensysml_kernel import cli
from opensysml_kernel.session import Session

HEATER = """package Heater {
    private import ScalarValues::*;
    action Warm {
        attribute level : Integer := 1; // café
        first start; then s;
        action s { assign level := level + 1; }
    }
}
"""


def test_a_model_not_in_utf8_names_the_byte_offset_line_and_column(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = HEATER.encode("latin-1")
    model = tmp_path / "heater.sysml"
    model.write_bytes(data)
    offset = data.index(b"\xe9")
    assert cli.main(["run", "--action", "Warm", str(model)]) == 2
    err = capsys.readouterr().err
    assert f"{model}:4:47: not UTF-8: byte 0xe9 at offset {offset}" in err
    assert "Traceback" not in err


def test_a_byte_order_mark_is_read_and_offsets_count_it(tmp_path: Path) -> None:
    model = tmp_path / "bom.sysml"
    model.write_bytes(b"\xef\xbb\xbf" + HEATER.encode("utf-8"))
    Session().load([str(model)])
    broken = b"\xef\xbb\xbfpackage P { attribute \xff; }"
    model.write_bytes(broken)
    with pytest.raises(SourceEncodingError) as info:
        Session().load([str(model)])
    offset = broken.index(b"\xff")
    assert f"offset {offset}" in str(info.value)
    assert ":1:23:" in str(info.value)


def test_an_internal_error_exits_2_with_a_bug_report_hint(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "heater.sysml"
    model.write_text(HEATER, encoding="utf-8")

    def broken(self: Session, name: str, performer: str | None = None) -> object:
        raise KeyError("a bug")

    monkeypatch.setattr(Session, "start_action", broken)
    assert cli.main(["run", "--action", "Warm", str(model)]) == 2
    err = capsys.readouterr().err
    assert "internal error: KeyError" in err and "please report" in err


def test_a_deeply_recursive_calculation_exits_2_not_1_and_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "calc.sysml"
    model.write_text("package P { private import ScalarValues::*;\n"
                     "  calc def F { in n : Integer; return : Integer; F(n - 1) }\n"
                     "  action A { attribute x : Integer := 0; first start; then s; action s { assign x := F(1); } }\n"
                     "}\n", encoding="utf-8")
    code = cli.main(["run", "--action", "A", str(model)])
    out = capsys.readouterr()
    assert code == 1  # the run failed, with the chain named: a failure of the model, not of the tool
    assert "F → … (repeating F → F)" in out.out
    assert "Traceback" not in out.err


def test_an_unreadable_model_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "dir.sysml"
    folder.mkdir()
    assert cli.main(["run", "--action", "Warm", str(folder)]) == 2
