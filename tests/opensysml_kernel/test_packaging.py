"""Packaging: the licence as an SPDX expression, the kernel spec with its logos, `--version`."""

from __future__ import annotations

import importlib.metadata
import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from opensysml_kernel import __version__
from opensysml_kernel.cli import main
from opensysml_kernel.install import KERNEL_NAME, LOGOS, install

ROOT = Path(__file__).resolve().parents[2]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_license_is_an_spdx_expression() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    # a string, not the table form `{ text = ... }` that setuptools>=77 warns about (tomllib is 3.11+)
    assert re.findall(r"^license\s*=\s*(.+)$", text, re.MULTILINE) == ['"Apache-2.0"']
    assert "License ::" not in text


def test_installed_metadata_carries_the_expression() -> None:
    metadata = importlib.metadata.metadata("opensysml-kernel")
    assert metadata.get("License-Expression") == "Apache-2.0"
    assert metadata["Version"] == __version__


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"opensysml-kernel {__version__}"


def test_version_as_a_process() -> None:
    done = subprocess.run([sys.executable, "-m", "opensysml_kernel", "--version"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"opensysml-kernel {__version__}"


def test_kernelspec_installs_with_its_logos(tmp_path: Path) -> None:
    directory = Path(install(prefix=str(tmp_path)))
    assert directory.name == KERNEL_NAME
    spec = json.loads((directory / "kernel.json").read_text(encoding="utf-8"))
    assert spec["language"] == "sysml"
    for logo in LOGOS:
        side = int(logo.removeprefix("logo-").split("x")[0])
        assert _png_size(directory / logo) == (side, side)


def test_kernelspec_manager_finds_the_logos(tmp_path: Path) -> None:
    from jupyter_client.kernelspec import KernelSpecManager

    install(prefix=str(tmp_path))
    manager = KernelSpecManager(kernel_dirs=[str(tmp_path / "share" / "jupyter" / "kernels")])
    found = Path(manager.get_kernel_spec(KERNEL_NAME).resource_dir)
    assert {p.name for p in found.glob("logo-*.png")} == set(LOGOS)
