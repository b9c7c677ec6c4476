#!/usr/bin/env bash
# JupyterLab beside the kernel: make .venv if missing, install the project with its `lab` extra
# when JupyterLab or the project is not in it yet, register the kernel `opensysml` there, and open
# the tutorials in notebooks/. Arguments go to `jupyter lab` (e.g. --no-browser --port=8890).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
if ! .venv/bin/python -c "from importlib.metadata import version; version('jupyterlab'); version('opensysml-kernel')" \
        2>/dev/null; then
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null
    .venv/bin/python -m pip install -q -e '.[lab]'
fi
.venv/bin/python -m opensysml_kernel install --sys-prefix >/dev/null
cd notebooks  # the server's root folder (unless --ServerApp.root_dir=DIR says another)
exec ../.venv/bin/python -m jupyterlab "$@"
