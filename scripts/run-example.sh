#!/usr/bin/env bash
# Create .venv, install the project, register the kernel in it, and run the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e .
.venv/bin/python -m opensysml_kernel install --sys-prefix
.venv/bin/opensysml-kernel run examples/heater.sysml --action heater::Warmup --trace
