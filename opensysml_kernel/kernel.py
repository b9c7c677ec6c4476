"""The Jupyter kernel: IPython's shell with the extension loaded, where a cell that is not Python is SysML.

It speaks the messaging protocol itself (opensysml_kernel/wire.py) and answers kernel_info before it
imports IPython or the session: a front end sees it ready after pyzmq alone. The shell, the extension
and the session are made when the kernel is first idle for a moment, or at the first request that
needs them, whichever comes first.
"""

from __future__ import annotations

import builtins
import getpass
import importlib
import os
import signal
import sys
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from opensysml_kernel import __version__
from opensysml_kernel.wire import PROTOCOL_VERSION, BadMessage, Channel, Message, Wire, log, read_connection

if TYPE_CHECKING:
    from IPython.core.inputtransformer2 import TransformerManager

    from opensysml_kernel.session import Session
    from opensysml_kernel.shell import KernelShell, Outlet

IDLE_WARM_UP = 0.3  # seconds idle after which the shell and the session are made before anyone asks
STREAM_FLUSH = 0.1  # seconds at most between a line printed and its stream message


@lru_cache(maxsize=1)
def _python() -> TransformerManager:
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager()


def is_sysml_cell(text: str, python_magics: Collection[str] = ()) -> bool:
    """A cell of `%` lines none of which is one of IPython's own magics, or any text that is not Python."""
    from opensysml_kernel.cells import command_word, is_command_line

    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or lines[0].lstrip().startswith("%%"):
        return False
    if all(is_command_line(line) for line in lines):
        from opensysml_kernel.commands import COMMANDS

        words = [command_word(line) for line in lines]
        return all(word in COMMANDS or word not in python_magics for word in words)
    import ast

    try:
        source = _python().transform_cell(text)
        compile(source, "<cell>", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except (SyntaxError, ValueError):
        return True
    return False


class _SysmlCells:
    """IPython cleanup transform: a SysML cell becomes the body of a `%%sysml` cell magic."""

    def __init__(self, shell: KernelShell) -> None:
        self.shell = shell

    def magics(self) -> Collection[str]:
        return self.shell.magics_manager.magics["line"].keys()

    def __call__(self, lines: list[str]) -> list[str]:
        if is_sysml_cell("".join(lines), self.magics()):
            return ["%%sysml\n", *lines]
        return lines


LANGUAGE_INFO = {
    "name": "sysml",
    "version": "2.0",
    "mimetype": "text/x-sysml",
    "file_extension": ".sysml",
    "pygments_lexer": "sysml",  # opensysml_kernel.highlight.LEXER_NAME (not imported: Pygments is no start's)
    # CodeMirror has no SysML mode; Scala's (C-like comments, strings and numbers, and the words def,
    # abstract, package, import, if, else, while, true, false, null in common) colours a cell more
    # rightly than plain text; few of its other words (val, object) are SysML names.
    "codemirror_mode": "text/x-scala",
}


class SysmlKernel:
    """IPython, plus SysML cells, `%` commands, and completion of commands and qualified names, answering
    one request at a time: control before shell, a failing cell's queued successors aborted."""

    implementation = "opensysml-kernel"
    implementation_version = __version__
    banner = f"opensysml-kernel {__version__}: SysML v2 actions, run and stepped (%help lists the commands)"

    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        self._shell: KernelShell | None = None
        self._outlet: Outlet | None = None
        self._cells: _SysmlCells | None = None
        self.session: Session | None = None
        self.done = False
        self._asked = False  # a front end has asked something: it is there, and the shell may be made
        self._handlers: dict[str, Callable[[Message], dict[str, Any] | None]] = {
            "kernel_info_request": self._kernel_info,
            "execute_request": self._execute,
            "complete_request": self._complete,
            "inspect_request": self._inspect,
            "is_complete_request": self._is_complete,
            "history_request": self._history,
            "comm_info_request": lambda _: {"status": "ok", "comms": {}},
            "comm_open": self._comm_open,
            "comm_msg": lambda _: None,
            "comm_close": lambda _: None,
            "shutdown_request": self._shutdown,
            "interrupt_request": self._interrupt,
        }

    # ------------------------------------------------------------ the shell, made once

    @property
    def shell(self) -> KernelShell:
        """IPython's shell with the extension registered and `session` bound, made when first needed."""
        if self._shell is None:
            from opensysml_kernel.magics import register
            from opensysml_kernel.shell import KernelShell, Outlet, Stream

            outlet = Outlet(self.wire)
            # the instance (IPython's `get_ipython()`), so that `display()` anywhere publishes through it
            shell = KernelShell.instance(outlet=outlet)
            self._cells = _SysmlCells(shell)
            shell.input_transformers_cleanup.insert(0, self._cells)
            self.session = register(shell)
            outlet.streams = [Stream(outlet, "stdout"), Stream(outlet, "stderr")]
            sys.stdout, sys.stderr = outlet.streams
            outlet.flush_every(STREAM_FLUSH)
            self._outlet = outlet
            self._shell = shell
        return self._shell

    @property
    def outlet(self) -> Outlet:
        self.shell  # noqa: B018 (made with the shell)
        assert self._outlet is not None
        return self._outlet

    # ------------------------------------------------------------ the loop

    def serve(self) -> None:
        """Answer requests until a shutdown: control first; the shell and session made when idle."""
        import zmq

        poller = zmq.Poller()
        control, shell = self.wire.sockets[Channel.CONTROL], self.wire.sockets[Channel.SHELL]
        iopub = self.wire.sockets[Channel.IOPUB]
        for socket in (control, shell, iopub):
            poller.register(socket, zmq.POLLIN)
        self.wire.publish("status", {"execution_state": "starting"}, None)
        while not self.done:
            try:
                waiting = self._asked and self._shell is None
                ready = dict(poller.poll(int(IDLE_WARM_UP * 1000) if waiting else None))
            except KeyboardInterrupt:
                continue  # an interrupt with nothing running, under a SIGINT handler a cell installed
            if not ready:
                self.shell  # noqa: B018 (idle: made now, so the first cell does not wait for it)
                continue
            if iopub in ready:
                self.wire.welcome()
            for channel in (Channel.CONTROL, Channel.SHELL):
                if self.wire.sockets[channel] in ready and not self.done:
                    self._one(channel)

    def _receive(self, channel: Channel) -> Message | None:
        try:
            return self.wire.receive(channel, block=False)
        except (BadMessage, ValueError) as err:
            log(f"message refused: {err}")
            return None

    def _one(self, channel: Channel) -> None:
        request = self._receive(channel)
        if request is None:
            return
        first = not self._asked
        self._asked = True
        self._answer(channel, request)
        if first:
            _preload()  # after the first answer: begun before it, the imports slowed it down by a tenth

    def _answer(self, channel: Channel, request: Message, aborted: bool = False) -> None:
        """Busy, the reply, idle. A cell that fails (`stop_on_error`) aborts the cells already sent after it,
        as a front end's Run All expects: they are taken off the queue before its reply goes out, so a
        front end that waits for one reply before sending the next cell never sees one aborted."""
        handler = self._handlers.get(request.kind)
        self.wire.publish("status", {"execution_state": "busy"}, request)
        queued: list[Message] = []
        reply: dict[str, Any] | None = None
        if handler is None:
            log(f"no answer to a {request.kind or 'message without a type'}")
        elif aborted and request.kind == "execute_request":
            reply = {"status": "aborted", "execution_count": None}
        else:
            try:
                reply = handler(request)
            except KeyboardInterrupt:  # an interrupt that came before or after the cell ran: nothing ran
                reply = {"status": "error", "ename": "KeyboardInterrupt", "evalue": "", "traceback": [],
                         "execution_count": self._shell.execution_count if self._shell is not None else 0}
            except Exception as err:  # a bug answering one request never ends the kernel
                log(f"{request.kind} failed: {type(err).__name__}: {err}")
                reply = {"status": "error", "ename": type(err).__name__, "evalue": str(err), "traceback": []}
            if request.kind == "execute_request" and reply is not None and reply.get("status") == "error" \
                    and not request.content.get("silent", False) and request.content.get("stop_on_error", True):
                while (waiting := self._receive(Channel.SHELL)) is not None:
                    queued.append(waiting)
        if reply is not None:
            self.wire.send(channel, request.kind.replace("_request", "_reply"), reply, request)
        self.wire.publish("status", {"execution_state": "idle"}, request)
        for waiting in queued:
            self._answer(Channel.SHELL, waiting, aborted=True)
        if self._shell is not None and getattr(self._shell, "exit_now", False):
            self.done = True  # `exit` in a cell: the reply told the front end; the kernel ends

    # ------------------------------------------------------------ the requests

    def _kernel_info(self, _: Message) -> dict[str, Any]:
        return {"status": "ok", "protocol_version": PROTOCOL_VERSION, "implementation": self.implementation,
                "implementation_version": self.implementation_version, "language_info": LANGUAGE_INFO,
                "banner": self.banner, "debugger": False, "help_links": []}

    def _execute(self, request: Message) -> dict[str, Any]:
        content = request.content
        code = str(content.get("code", ""))
        silent = bool(content.get("silent", False))
        store = bool(content.get("store_history", not silent))
        shell = self.shell
        if not silent:
            self.wire.publish("execute_input", {"code": code, "execution_count": shell.execution_count}, request)
        shell.last_traceback = []
        with self.outlet.serving(request), self._stdin(request), _interruptible():
            result = shell.run_cell(code, store_history=store, silent=silent)
        assert shell.payload_manager is not None
        payload = shell.payload_manager.read_payload()
        shell.payload_manager.clear_payload()
        reply: dict[str, Any] = {"execution_count": shell.execution_count - 1 if store else shell.execution_count,
                                 "user_expressions": {}, "payload": payload}
        if result.success:
            expressions = content.get("user_expressions") or {}
            reply["user_expressions"] = shell.user_expressions(expressions) if expressions else {}
            return {"status": "ok", **reply}
        error = result.error_before_exec or result.error_in_exec
        return {"status": "error", **reply, "ename": type(error).__name__, "evalue": str(error),
                "traceback": shell.last_traceback}

    @contextmanager
    def _stdin(self, request: Message) -> Iterator[None]:
        """`input()` and `getpass()` in a Python cell ask the front end (input_request), when it allows."""
        allowed = bool(request.content.get("allow_stdin", False))

        def ask(prompt: object = "", password: bool = False) -> str:
            if not allowed:
                from IPython.core.error import StdinNotImplementedError

                raise StdinNotImplementedError("input() is not supported by the front end that sent this cell")
            self.outlet.flush()
            self.wire.send(Channel.STDIN, "input_request", {"prompt": str(prompt), "password": password},
                           request)
            while True:
                answer = self.wire.receive(Channel.STDIN)
                if answer is not None and answer.kind == "input_reply":
                    return str(answer.content.get("value", ""))

        saved = builtins.input, getpass.getpass
        builtins.input = ask
        getpass.getpass = lambda prompt="Password: ", stream=None: ask(prompt, password=True)
        try:
            yield
        finally:
            builtins.input, getpass.getpass = saved

    def _complete(self, request: Message) -> dict[str, Any]:
        """Commands and qualified names first; IPython's completion otherwise."""
        from opensysml_kernel.complete import complete

        code = str(request.content.get("code", ""))
        cursor_pos = request.content.get("cursor_pos")
        cursor = len(code) if cursor_pos is None else int(cursor_pos)
        shell = self.shell
        assert self.session is not None
        found = complete(self.session, code, cursor)
        if found is not None:
            return {"matches": list(found.matches), "cursor_start": found.start, "cursor_end": cursor,
                    "metadata": {}, "status": "ok"}
        from IPython.core.completer import provisionalcompleter, rectify_completions

        with provisionalcompleter():  # IPython's completions (jedi's among them), as ipykernel asks for them
            found_python = list(rectify_completions(code, shell.Completer.completions(code, cursor)))
        start, end = (found_python[0].start, found_python[0].end) if found_python else (cursor, cursor)
        return {"matches": [c.text for c in found_python], "cursor_start": start, "cursor_end": end,
                "metadata": {}, "status": "ok"}

    def _inspect(self, request: Message) -> dict[str, Any]:
        """A model element's declaration, or a % command's one-line help; IPython's inspection otherwise."""
        from opensysml_kernel.inspection import inspect_at

        code = str(request.content.get("code", ""))
        cursor = int(request.content.get("cursor_pos", len(code)))
        shell = self.shell
        assert self.session is not None
        found = inspect_at(self.session, code, cursor)
        if found is not None:
            return {"status": "ok", "found": True, "data": {"text/plain": found.text, "text/html": found.html},
                    "metadata": {}}
        from IPython.utils.tokenutil import token_at_cursor

        name = token_at_cursor(code, cursor)
        try:
            bundle = shell.object_inspect_mime(name, detail_level=int(request.content.get("detail_level", 0)))
        except KeyError:
            return {"status": "ok", "found": False, "data": {}, "metadata": {}}
        if not shell.enable_html_pager:
            bundle.pop("text/html", None)
        return {"status": "ok", "found": True, "data": bundle, "metadata": {}}

    def _is_complete(self, request: Message) -> dict[str, Any]:
        """Incomplete while braces are open; a SysML cell is complete otherwise."""
        from opensysml_kernel.cells import open_braces

        code = str(request.content.get("code", ""))
        depth = open_braces(code)
        if depth > 0:
            return {"status": "incomplete", "indent": "    " * depth}
        status, indent = _python().check_complete(code)
        if status == "incomplete" and "{" not in code:
            return {"status": "incomplete", "indent": " " * (indent or 0)}
        self.shell  # noqa: B018 (the cells' magics are the shell's)
        assert self._cells is not None
        if is_sysml_cell(code, self._cells.magics()):
            return {"status": "complete"}
        return {"status": status, **({"indent": " " * (indent or 0)} if status == "incomplete" else {})}

    def _history(self, request: Message) -> dict[str, Any]:
        """The cells run so far, as IPython's history keeps them (tail, range or search)."""
        content = request.content
        raw, output = bool(content.get("raw", True)), bool(content.get("output", False))
        history = self.shell.history_manager
        assert history is not None
        kind = content.get("hist_access_type", "tail")
        if kind == "tail":
            found = history.get_tail(int(content.get("n", 10)), raw=raw, output=output, include_latest=True)
        elif kind == "range":
            found = history.get_range(int(content.get("session", 0)), int(content.get("start", 0)),
                                      content.get("stop"), raw=raw, output=output)
        elif kind == "search":
            found = history.search(str(content.get("pattern", "*")), raw=raw, output=output, n=content.get("n"),
                                   unique=bool(content.get("unique", False)))
        else:
            found = []
        return {"status": "ok", "history": [list(entry) for entry in found]}

    def _comm_open(self, request: Message) -> None:
        """No comm target is served here (no ipywidgets): the comm is closed at once, as a kernel does for
        a target it does not know, so the front end does not wait on it."""
        self.wire.publish("comm_close", {"comm_id": request.content.get("comm_id", ""), "data": {}}, request)

    def _shutdown(self, request: Message) -> dict[str, Any]:
        restart = bool(request.content.get("restart", False))
        self.wire.publish("shutdown_reply", {"status": "ok", "restart": restart}, request)
        self.done = True
        return {"status": "ok", "restart": restart}

    def _interrupt(self, _: Message) -> dict[str, Any]:
        """An interrupt asked by message (the kernelspec asks for signals): the same SIGINT."""
        os.kill(os.getpid(), signal.SIGINT)
        return {"status": "ok"}

    def close(self) -> None:
        # IPython's own exit operations run at interpreter exit (it registers them): not called twice here
        if self._outlet is not None:
            self._outlet.flush()
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        self.wire.close()


def _preload() -> None:
    """Import what the shell and the session are made of on a thread of its own, while the kernel answers
    and waits: the first cell finds the modules loaded (making the objects stays on the main thread)."""
    import threading

    def load() -> None:
        try:
            for module in ("opensysml_kernel.magics", "opensysml_kernel.shell"):  # IPython, the commands, the session
                importlib.import_module(module)
        except Exception as err:  # the first cell imports again and reports it
            log(f"preloading failed: {type(err).__name__}: {err}")

    threading.Thread(target=load, name="preload", daemon=True).start()


_RUNNING = [False]  # a cell is running: an interrupt now stops it


def _on_interrupt(signum: int, frame: object) -> None:
    """Ctrl-C (SIGINT) interrupts a running cell; between cells it is ignored. One handler for the kernel's
    life, reading a flag: switching handlers around each cell let an interrupt that landed as the cell
    ended raise inside `signal.signal` (which runs pending handlers before it installs the new one), so the
    raising handler stayed installed, and the next interrupt ended the kernel as it sent a reply."""
    if _RUNNING[0]:
        raise KeyboardInterrupt


@contextmanager
def _interruptible() -> Iterator[None]:
    """A cell running: Ctrl-C stops it (`_on_interrupt`)."""
    _RUNNING[0] = True
    try:
        yield
    finally:
        _RUNNING[0] = False


def main(argv: list[str] | None = None) -> int:
    """`python -m opensysml_kernel.kernel -f CONNECTION_FILE`, as the kernelspec starts it."""
    args = sys.argv[1:] if argv is None else argv
    path = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-f", "--f", "--connection-file")), None)
    if path is None:
        print("usage: python -m opensysml_kernel.kernel -f CONNECTION_FILE (a front end writes the file)",
              file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, _on_interrupt)
    kernel = SysmlKernel(Wire(read_connection(path)))
    try:
        kernel.serve()
    finally:
        kernel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
