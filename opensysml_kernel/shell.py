"""IPython's shell inside the kernel: what it displays, returns, prints and raises, published as Jupyter messages.

`KernelShell` is IPython's InteractiveShell (magics, the extension, Python cells as in any IPython) whose
display publisher, result hook, streams and traceback go to the iopub channel, each output tagged with
the request it answers (`Outlet.parent`).
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from IPython.core.displayhook import DisplayHook
from IPython.core.displaypub import DisplayPublisher
from IPython.core.interactiveshell import InteractiveShell
from traitlets import Any as AnyTrait

from opensysml_kernel.wire import Message, Wire


class Outlet:
    """Where outputs go: the wire, and the request now answered (outputs name it as their parent; text a
    thread prints after it ended goes with it, as a front end shows it)."""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        self.parent: Message | None = None
        self.streams: list[Stream] = []

    def flush_every(self, seconds: float) -> None:
        """Send what the streams hold at least every `seconds`, on a thread of its own: a line printed
        reaches the front end while the cell runs on, and a thread's output after the cell ends too."""

        def loop() -> None:
            while True:
                time.sleep(seconds)
                self.flush()

        threading.Thread(target=loop, name="stream flusher", daemon=True).start()

    def publish(self, kind: str, content: dict[str, Any]) -> None:
        self.wire.publish(kind, content, self.parent)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()

    @contextmanager
    def serving(self, request: Message) -> Iterator[None]:
        """Outputs while the request runs are its own; what its streams still hold is sent before the reply."""
        self.parent = request
        try:
            yield
        finally:
            self.flush()


class Stream(io.TextIOBase):
    """stdout or stderr as `stream` messages: text gathered and sent before any other output, when the
    request ends and by the outlet's flusher (as a front end shows it: in order, in few pieces). Any thread
    may write."""

    def __init__(self, outlet: Outlet, name: str) -> None:
        super().__init__()
        self._outlet = outlet
        self.name = name
        self._pending: list[str] = []
        self._lock = threading.Lock()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text:
            with self._lock:
                self._pending.append(text)
        return len(text)

    def flush(self) -> None:
        if not self._pending:
            return
        with self._lock:
            text = "".join(self._pending)
            self._pending.clear()
            if self._outlet.parent is None:
                return  # nothing asked for it yet: no request to show it under
            self._outlet.publish("stream", {"name": self.name, "text": text})


class Publisher(DisplayPublisher):
    """`display()` as display_data (update_display_data for a display updated by its id), clear_output too."""

    outlet = AnyTrait()

    def publish(self, data: dict[str, Any], metadata: dict[str, Any] | None = None, source: Any = None, *,
                transient: dict[str, Any] | None = None, update: bool = False, **kwargs: Any) -> None:
        self.outlet.flush()
        content = {"data": data, "metadata": metadata or {}, "transient": transient or {}}
        self.outlet.publish("update_display_data" if update else "display_data", content)

    def clear_output(self, wait: bool = False) -> None:
        self.outlet.flush()
        self.outlet.publish("clear_output", {"wait": wait})


class ResultHook(DisplayHook):
    """A cell's last value as execute_result, numbered by the cell's execution count."""

    outlet = AnyTrait()

    def start_displayhook(self) -> None:
        self._data: dict[str, Any] = {}
        self._metadata: dict[str, Any] = {}

    def write_output_prompt(self) -> None:
        """No prompt: the front end numbers the result."""

    def write_format_data(self, format_dict: dict[str, Any], md_dict: dict[str, Any] | None = None) -> None:
        self._data = format_dict
        self._metadata = md_dict or {}

    def finish_displayhook(self) -> None:
        self.outlet.flush()
        if self._data:
            self.outlet.publish("execute_result", {"execution_count": self.prompt_count, "data": self._data,
                                                   "metadata": self._metadata})
        self._data = {}


class KernelShell(InteractiveShell):
    """InteractiveShell publishing to a front end; `last_traceback` the error lines of the last failing cell."""

    displayhook_class = ResultHook
    display_pub_class = Publisher

    def __init__(self, outlet: Outlet, **kwargs: Any) -> None:
        self.outlet = outlet
        self.last_traceback: list[str] = []
        super().__init__(**kwargs)
        publisher, hook = self.display_pub, self.displayhook
        assert isinstance(publisher, Publisher) and isinstance(hook, ResultHook)
        publisher.outlet = hook.outlet = outlet

    def _showtraceback(self, etype: type[BaseException], evalue: BaseException, stb: list[str]) -> None:
        self.outlet.flush()
        self.last_traceback = list(stb)
        self.outlet.publish("error", {"traceback": list(stb), "ename": etype.__name__, "evalue": str(evalue)})

    def enable_gui(self, gui: str | None = None) -> None:
        """No GUI event loop runs inside the kernel (`%matplotlib inline` needs none)."""

    def set_next_input(self, text: str, replace: bool = False) -> None:
        """The front end's next cell (`%load`, `%recall`): a payload of the reply, as ipykernel sends it."""
        assert self.payload_manager is not None
        self.payload_manager.write_payload({"source": "set_next_input", "text": text, "replace": replace})

    def ask_exit(self) -> None:
        """`exit` / `quit`: the kernel ends after the reply, which tells the front end (`ask_exit`)."""
        assert self.payload_manager is not None
        self.exit_now = True
        self.payload_manager.write_payload({"source": "ask_exit", "keepkernel": False})
