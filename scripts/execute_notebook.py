"""Execute a notebook's code cells in the opensysml kernel and store their outputs, so nbval can
compare against them (no nbconvert needed). Run with the project's venv and
OPENSYSML_KERNEL_DETERMINISTIC=1:

    OPENSYSML_KERNEL_DETERMINISTIC=1 .venv/bin/python scripts/execute_notebook.py notebooks/02-exploring-interleavings.ipynb
"""

import sys

import nbformat
from jupyter_client.manager import start_new_kernel

path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
km, kc = start_new_kernel(kernel_name="opensysml")
try:
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        msg_id = kc.execute(cell.source, store_history=True)
        outputs = []
        while True:
            msg = kc.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "status" and content["execution_state"] == "idle":
                break
            if kind in ("display_data", "execute_result"):
                out = {"output_type": kind, "data": content["data"], "metadata": content.get("metadata", {})}
                if kind == "execute_result":
                    out["execution_count"] = content["execution_count"]
                outputs.append(nbformat.from_dict(out))
            elif kind == "stream":
                outputs.append(nbformat.from_dict({"output_type": "stream", "name": content["name"], "text": content["text"]}))
            elif kind == "error":
                outputs.append(nbformat.from_dict({"output_type": "error", "ename": content["ename"], "evalue": content["evalue"], "traceback": content["traceback"]}))
            elif kind == "execute_input":
                count = content["execution_count"]
        cell.outputs = outputs
        cell.execution_count = count
finally:
    kc.stop_channels(); km.shutdown_kernel()
nbformat.write(nb, path)
