#!/usr/bin/env bash
# Create .venv, install the project with its dev extra (OPENSYSML_TEST_EXTRAS=dev,lab,browser adds the
# browser test's tools), then lint, type-check and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[${OPENSYSML_TEST_EXTRAS:-dev}]"
.venv/bin/python -m opensysml_kernel install --sys-prefix >/dev/null
.venv/bin/ruff check ir engines opensysml_kernel tests benchmarks
.venv/bin/mypy
export OPENSYSML_KERNEL_DETERMINISTIC=1
.venv/bin/python -m pytest tests
.venv/bin/python -m pytest --nbval -p no:cacheprovider --nbval-kernel-name opensysml notebooks
