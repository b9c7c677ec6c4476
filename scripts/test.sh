#!/usr/bin/env bash
# Create .venv, install the project with its dev extra (OPENSYSML_TEST_EXTRAS=dev,lab,browser adds the
# browser test's tools), then lint, type-check and run every test: on two pytest-xdist workers
# (OPENSYSML_TEST_WORKERS=N for another count, 0 for one process), which keeps CI within its 15 minutes
# on a 2-core machine; the notebooks run after, under nbval, in one process.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[${OPENSYSML_TEST_EXTRAS:-dev}]"
.venv/bin/python -m opensysml_kernel install --sys-prefix >/dev/null
.venv/bin/ruff check ir engines opensysml_kernel tests benchmarks
.venv/bin/mypy
export OPENSYSML_KERNEL_DETERMINISTIC=1
.venv/bin/python -m pytest -n "${OPENSYSML_TEST_WORKERS:-2}" tests
.venv/bin/python -m pytest --nbval -p no:cacheprovider --nbval-kernel-name opensysml notebooks
