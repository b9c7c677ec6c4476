"""Register the Jupyter kernelspec `opensysml`, which starts this package's kernel with this Python."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from importlib import resources

KERNEL_NAME = "opensysml"
DISPLAY_NAME = "SysML v2 (opensysml-kernel)"
LOGOS = ("logo-32x32.png", "logo-64x64.png")


def kernel_json() -> dict[str, object]:
    return {
        "argv": [sys.executable, "-m", "opensysml_kernel.kernel", "-f", "{connection_file}"],
        "display_name": DISPLAY_NAME,
        "language": "sysml",
        "interrupt_mode": "signal",
        "metadata": {"debugger": False},
    }


def install(user: bool = False, prefix: str | None = None) -> str:
    """Install the kernelspec (for the user, or under `prefix`); returns the directory it went to."""
    from jupyter_client.kernelspec import KernelSpecManager

    with tempfile.TemporaryDirectory() as source:
        with open(os.path.join(source, "kernel.json"), "w", encoding="utf-8") as handle:
            json.dump(kernel_json(), handle, indent=1)
        shipped = resources.files("opensysml_kernel") / "kernelspec"
        for logo in LOGOS:
            with resources.as_file(shipped / logo) as path:
                shutil.copyfile(path, os.path.join(source, logo))
        return str(KernelSpecManager().install_kernel_spec(
            source, kernel_name=KERNEL_NAME, user=user, prefix=prefix))
