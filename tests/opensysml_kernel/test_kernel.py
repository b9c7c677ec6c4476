"""The Jupyter kernel through jupyter_client: SysML cells, a failing cell, Python with `session`, completion."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import NOT_BOOLEAN, RACE
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

from opensysml_kernel.install import KERNEL_NAME, kernel_json
from opensysml_kernel.kernel import is_sysml_cell

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BlockingKernelClient]:
    specs = tmp_path_factory.mktemp("kernels")
    (specs / KERNEL_NAME).mkdir()
    (specs / KERNEL_NAME / "kernel.json").write_text(json.dumps(kernel_json()))
    manager = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(specs)]))
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    manager.start_kernel(env={**os.environ, "PYTHONPATH": path, "OPENSYSML_KERNEL_DETERMINISTIC": "1"})
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    yield client
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def execute(client: BlockingKernelClient, code: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    outputs: list[dict[str, Any]] = []

    def keep(message: dict[str, Any]) -> None:
        if message["msg_type"] in ("display_data", "execute_result", "error", "stream"):
            outputs.append({"type": message["msg_type"], **message["content"]})

    reply = client.execute_interactive(code, output_hook=keep, timeout=60)
    return reply["content"], outputs


def texts(outputs: list[dict[str, Any]]) -> list[str]:
    return [o["data"]["text/plain"] for o in outputs if o["type"] in ("display_data", "execute_result")]


def test_sysml_cell_runs_commands_and_submissions(kernel: BlockingKernelClient) -> None:
    reply, outputs = execute(kernel, RACE + "%action Race\n%step\n")
    assert reply["status"] == "ok"
    assert texts(outputs) == ["declared action race::Race",
                              "▶ Action race::Race started (schedule reverse)\ntoken 1@start",
                              "step 1: token 1@f"]
    assert "text/html" in outputs[1]["data"]


def test_failing_cell_is_a_readable_error_and_changes_nothing(kernel: BlockingKernelClient) -> None:
    reply, outputs = execute(kernel, "package more { action M; }\npackage broken {\n  action a \n}\n")
    assert reply["status"] == "error" and reply["ename"] == "SysmlSyntaxError"
    error = next(o for o in outputs if o["type"] == "error")
    assert error["evalue"].startswith("<cell ") and ":3:" in error["evalue"]
    assert error["traceback"][0] == error["evalue"].splitlines()[0]
    assert not any("Traceback" in line for line in error["traceback"])
    reply, outputs = execute(kernel, "[d.qualified_name for d in session.declarations()][:2], session.subject")
    assert reply["status"] == "ok"
    assert texts(outputs) == ["(['race', 'race::Race'], 'race::Race')"]


def test_unknown_command_and_python_errors(kernel: BlockingKernelClient) -> None:
    reply, _ = execute(kernel, "%stpe")
    assert reply["ename"] == "UnknownCommandError" and "did you mean '%step'" in reply["evalue"]
    reply, _ = execute(kernel, "1 / 0")
    assert reply["ename"] == "ZeroDivisionError"


def test_run_failure_shows_its_trace_lines(kernel: BlockingKernelClient) -> None:
    reply, _ = execute(kernel, NOT_BOOLEAN + "%action Seq\n%continue\n")
    assert reply["ename"] == "RunFailedError"
    assert reply["traceback"] == ["step 1: token 1@s1",
                                  "✗ Action guards::Seq failed at step 2: guard must evaluate to boolean, got Integer 7"]
    execute(kernel, RACE + "%action Race\n%step\n")


def test_python_cell_uses_the_session(kernel: BlockingKernelClient) -> None:
    reply, outputs = execute(kernel, "from opensysml_kernel.commands import execute\n"
                            "r = execute(session, '%continue')\nprint(r.data['outputs'])")
    assert reply["status"] == "ok"
    assert [o["text"] for o in outputs if o["type"] == "stream"] == ["{'c': '1'}\n"]


def test_completion_and_is_complete(kernel: BlockingKernelClient) -> None:
    kernel.complete("%ste", 4)
    assert kernel.get_shell_msg(timeout=10)["content"]["matches"] == ["%step"]
    kernel.complete("%action race::R", 15)
    content = kernel.get_shell_msg(timeout=10)["content"]
    assert content["matches"][0] == "race::Race" and content["cursor_start"] == 8
    for code, status in [("package p {", "incomplete"), ("package p { }", "complete"), ("x = (", "incomplete"),
                         ("x = 1", "complete")]:
        kernel.is_complete(code)
        assert kernel.get_shell_msg(timeout=10)["content"]["status"] == status, code


def test_inspect_a_name_and_a_command(kernel: BlockingKernelClient) -> None:
    execute(kernel, RACE)
    kernel.inspect("%action race::Race", 15)
    content = kernel.get_shell_msg(timeout=10)["content"]
    assert content["found"] is True
    text = content["data"]["text/plain"]
    assert text.splitlines()[0] == "action race::Race" and re.match(r"  declared at <cell \d+>:3$", text.splitlines()[1])
    assert "attribute c : Integer := 0" in text and "<table>" in content["data"]["text/html"]
    kernel.inspect("%replay last", 3)
    content = kernel.get_shell_msg(timeout=10)["content"]
    said = content["data"]["text/plain"]
    assert said.startswith("%replay [<witness file>|last|<n>|off]: the next %action follows the witness")
    assert "\x1b" not in said and "\n" not in said and ".py" not in said


@pytest.mark.parametrize("cell, sysml", [
    ("package p { }", True),
    ("%step\n%tokens", True),
    ("%stpe", True),
    ("%load_ext opensysml_kernel", False),
    ("x = 1\n%step", False),
    ("%%time\nx = 1", False),
    ("", False),
])
def test_which_cells_are_sysml(cell: str, sysml: bool) -> None:
    assert is_sysml_cell(cell, {"load_ext", "time"}) is sysml


def test_a_bug_is_an_internal_error_and_the_kernel_lives_on(kernel: BlockingKernelClient) -> None:
    """A failure of the tool (injected from a Python cell) in the middle of a SysML cell: a readable
    internal error, no traceback but under %debug on, the session as before, the kernel still up."""
    execute(kernel, RACE + "%action Race\n%step 2\n")
    reply, _ = execute(kernel, "from engines.runtime.actions.statements import StatementRunner as R\n"
                               "kept = R._assign\nR._assign = lambda *a: 1 / 0")
    assert reply["status"] == "ok"
    reply, outputs = execute(kernel, "%trace on\n%step\n")
    assert reply["ename"] == "InternalError"
    assert reply["traceback"][0] == "internal error: ZeroDivisionError: division by zero"
    assert not any("Traceback" in line for line in reply["traceback"])
    execute(kernel, "%debug on")
    reply, _ = execute(kernel, "%step")
    assert any("Traceback (most recent call last)" in line for line in reply["traceback"])
    execute(kernel, "R._assign = kept\n%sysml debug off")
    reply, outputs = execute(kernel, "%trace\n%step\n")
    assert texts(outputs) == ["trace off\ntrace of race::Race so far:\n  step 1: token 1@f\n"
                              "  step 2: token 2@a, token 3@b", "step 3: token 2@j, token 3@j"]


# ---------------------------------------------------------------- the protocol the kernel speaks itself


def test_kernel_info_names_the_language_and_the_protocol(kernel: BlockingKernelClient) -> None:
    kernel.kernel_info()
    content = kernel.get_shell_msg(timeout=10)["content"]
    assert content["protocol_version"] == "5.3" and content["implementation"] == "opensysml-kernel"
    from opensysml_kernel.highlight import LEXER_NAME

    assert content["language_info"]["name"] == "sysml" and content["language_info"]["pygments_lexer"] == LEXER_NAME


def test_display_updates_streams_and_results_in_order(kernel: BlockingKernelClient) -> None:
    code = ("from IPython.display import display, update_display\n"
            "print('before')\nh = display({'text/plain': 'one'}, raw=True, display_id=True)\n"
            "h.update({'text/plain': 'two'}, raw=True)\nprint('after', flush=True)\n40 + 2")
    seen: list[tuple[str, str]] = []

    def keep(message: dict[str, Any]) -> None:
        kind, content = message["msg_type"], message["content"]
        if kind == "stream":
            seen.append((kind, content["text"]))
        elif kind in ("display_data", "update_display_data", "execute_result"):
            seen.append((kind, content["data"]["text/plain"]))

    reply = kernel.execute_interactive(code, output_hook=keep, timeout=60)
    assert reply["content"]["status"] == "ok"
    assert seen == [("stream", "before\n"), ("display_data", "one"), ("update_display_data", "two"),
                    ("stream", "after\n"), ("execute_result", "42")]


def test_input_asks_the_front_end(kernel: BlockingKernelClient) -> None:
    asked: list[str] = []

    def answer(message: dict[str, Any]) -> None:
        asked.append(message["content"]["prompt"])
        kernel.input("Valve")

    outputs: list[str] = []
    reply = kernel.execute_interactive("name = input('which part? ')\nprint(name.upper())", allow_stdin=True,
                                       stdin_hook=answer, timeout=60,
                                       output_hook=lambda m: outputs.append(m["content"].get("text", "")))
    assert reply["content"]["status"] == "ok" and asked == ["which part? "] and "VALVE\n" in outputs
    reply = kernel.execute_interactive("input('no front end to ask')", allow_stdin=False, timeout=60)
    assert reply["content"]["ename"] == "StdinNotImplementedError"


def statuses(client: BlockingKernelClient, *ids: str) -> dict[str, str]:
    """The status of each request's reply, by its id."""
    replies: dict[str, str] = {}
    while len(replies) < len(ids):
        message = client.get_shell_msg(timeout=30)
        replies[message["parent_header"]["msg_id"]] = message["content"]["status"]
    return replies


def test_a_failing_cell_aborts_the_cells_queued_after_it(kernel: BlockingKernelClient) -> None:
    # the failing cell runs long enough that the second is queued behind it on a loaded machine too (a cell
    # arriving after the failure's reply runs, as ipykernel's do)
    first = kernel.execute("import time; time.sleep(0.5); 1 / 0")
    second = kernel.execute("never = 1")
    assert statuses(kernel, first, second) == {first: "error", second: "aborted"}
    _, outputs = execute(kernel, "'never' in dir()")
    assert texts(outputs) == ["False"]


def test_a_badly_signed_message_is_refused_and_the_kernel_lives_on(kernel: BlockingKernelClient) -> None:
    import hmac

    session = kernel.session
    signer = session.auth
    session.auth = hmac.new(b"not the key", digestmod="sha256")
    try:
        kernel.execute("forged = 1")
    finally:
        session.auth = signer
    reply, outputs = execute(kernel, "'forged' in dir()")
    assert reply["status"] == "ok" and texts(outputs) == ["False"]


def test_an_interrupt_stops_a_running_python_cell(kernel: BlockingKernelClient) -> None:
    import threading
    import time

    def interrupt_soon() -> None:
        time.sleep(1.0)
        kernel.parent.interrupt_kernel()  # type: ignore[union-attr]

    assert kernel.parent is not None
    threading.Thread(target=interrupt_soon, daemon=True).start()
    reply, _ = execute(kernel, "import time\nfor _ in range(600):\n    time.sleep(0.1)")
    assert reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt"
    reply, outputs = execute(kernel, "1 + 1")
    assert texts(outputs) == ["2"]


def test_an_interrupt_landing_as_a_cell_starts_never_ends_the_kernel(kernel: BlockingKernelClient) -> None:
    """Ctrl-C within milliseconds of a cell (Run, then Interrupt at once): the interrupt may land before
    IPython runs the cell or as it publishes; the kernel answers the cell (an error or its result) and lives."""
    import time

    assert kernel.parent is not None
    for delay in (0.0, 0.001, 0.002, 0.004, 0.008) * 4:
        msg_id = kernel.execute("s = 0\nfor i in range(20000): s += i\nprint(s)")
        time.sleep(delay)
        kernel.parent.interrupt_kernel()  # type: ignore[union-attr]
        while True:
            reply = kernel.get_shell_msg(timeout=30)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        assert reply["content"]["status"] in ("ok", "error", "aborted")
        assert kernel.parent.is_alive()  # type: ignore[union-attr]
    _, outputs = execute(kernel, "40 + 2")
    assert texts(outputs) == ["42"]


def test_python_names_complete_as_in_ipython(kernel: BlockingKernelClient) -> None:
    execute(kernel, "my_variable = 1\nimport os")
    for code, expected in [("my_va", "my_variable"), ("os.pa", "path"), ("[1, 2].app", "append")]:
        kernel.complete(code, len(code))
        content = kernel.get_shell_msg(timeout=30)["content"]
        assert expected in content["matches"], code
        assert content["cursor_end"] == len(code)


def test_printed_lines_reach_the_front_end_while_the_cell_runs(kernel: BlockingKernelClient) -> None:
    """A line printed reaches the front end within the flush interval, not at the next print or the
    cell's end; a thread's print after the cell ended goes out under that cell."""
    import time

    arrivals: list[tuple[float, str]] = []
    started = time.monotonic()

    def keep(message: dict[str, Any]) -> None:
        if message["msg_type"] == "stream":
            arrivals.append((time.monotonic() - started, message["content"]["text"]))

    kernel.execute_interactive("import time\nprint('first')\ntime.sleep(1.5)\nprint('second')", output_hook=keep,
                               timeout=60)
    assert [text for _, text in arrivals] == ["first\n", "second\n"]
    assert arrivals[0][0] < 1.0  # before the sleep ended


def test_a_silent_request_that_fails_aborts_nothing(kernel: BlockingKernelClient) -> None:
    silent = kernel.execute("1 / 0", silent=True)
    cell = kernel.execute("after_silent = 3")
    assert statuses(kernel, silent, cell) == {silent: "error", cell: "ok"}


def test_a_comm_is_closed_at_once_and_unknown_requests_go_idle(kernel: BlockingKernelClient) -> None:
    """No comm target is served (no ipywidgets): a comm_open gets its comm_close, and every request, known
    or not, is framed by busy and idle, which a front end waits for."""
    for kind, content in [("comm_open", {"comm_id": "c1", "target_name": "jupyter.widget", "data": {}}),
                          ("no_such_request", {})]:
        message = kernel.session.msg(kind, content)
        kernel.shell_channel.send(message)
        seen: list[str] = []
        while "idle" not in seen:
            published = kernel.get_iopub_msg(timeout=30)
            if published["parent_header"].get("msg_id") != message["header"]["msg_id"]:
                continue
            kind_seen = published["msg_type"]
            seen.append(published["content"]["execution_state"] if kind_seen == "status" else kind_seen)
        assert seen[0] == "busy" and seen[-1] == "idle"
        assert ("comm_close" in seen) is (kind == "comm_open")


def test_history_and_payloads_are_ipythons(kernel: BlockingKernelClient) -> None:
    execute(kernel, "history_marker = 11")
    kernel.history(hist_access_type="tail", n=3, raw=True, output=False)
    history = kernel.get_shell_msg(timeout=30)["content"]["history"]
    assert any(entry[2] == "history_marker = 11" for entry in history)
    reply, _ = execute(kernel, "get_ipython().set_next_input('next cell')")
    assert reply["payload"] == [{"source": "set_next_input", "text": "next cell", "replace": False}]
