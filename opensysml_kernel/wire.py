"""The Jupyter messaging protocol (5.3) over ZeroMQ: the connection file, the five sockets, signed messages.

The kernel speaks it itself rather than through ipykernel and jupyter_client, whose imports (asyncio,
tornado, the client side) took most of a start: a kernel answers its first kernel_info after pyzmq alone.
A message is the identities routing it, `<IDS|MSG>`, the HMAC of the four JSON parts, the parts
(header, parent header, metadata, content) and any binary buffers.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from datetime import datetime, timezone
from enum import Enum
from typing import Any, NamedTuple

import zmq

PROTOCOL_VERSION = "5.3"
_DELIMITER = b"<IDS|MSG>"


class Channel(Enum):
    """The kernel's sockets, by the names of the connection file's ports."""

    SHELL = "shell"
    CONTROL = "control"
    STDIN = "stdin"
    IOPUB = "iopub"
    HEARTBEAT = "hb"


class Message(NamedTuple):
    """One message received: who sent it (the ROUTER identities a reply goes back through) and its parts.
    (A named tuple, not a dataclass: the kernel answers before the dataclasses module would be loaded.)"""

    idents: tuple[bytes, ...]
    header: dict[str, Any]
    parent: dict[str, Any]
    metadata: dict[str, Any]
    content: dict[str, Any]
    buffers: tuple[bytes, ...] = ()

    @property
    def kind(self) -> str:
        return str(self.header.get("msg_type", ""))


def _new_id() -> str:
    """A fresh random id (as uuid4's hex, without loading uuid)."""
    return os.urandom(16).hex()


class BadMessage(Exception):
    """A message that is not the protocol's, or whose signature does not match the connection's key."""


def _json(part: dict[str, Any]) -> bytes:
    return json.dumps(part, default=_default, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _default(value: object) -> object:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return repr(value)


class Wire:
    """The sockets of one connection file, bound, and signed sends and receives over them; the heartbeat
    answered on a thread of its own. Publishing (iopub) is locked: a stream may flush from any thread."""

    def __init__(self, connection: dict[str, Any]) -> None:
        scheme = str(connection.get("signature_scheme", "hmac-sha256"))
        if not scheme.startswith("hmac-"):
            raise BadMessage(f"signature scheme {scheme!r} is not an HMAC")
        self._digest = getattr(hashlib, scheme.removeprefix("hmac-"))
        self._key = str(connection.get("key", "")).encode("ascii")
        self.session = _new_id()
        self._context = zmq.Context()
        self._publishing = threading.Lock()
        self.sockets: dict[Channel, zmq.Socket[bytes]] = {}
        kinds = {Channel.SHELL: zmq.ROUTER, Channel.CONTROL: zmq.ROUTER, Channel.STDIN: zmq.ROUTER,
                 Channel.IOPUB: zmq.XPUB, Channel.HEARTBEAT: zmq.ROUTER}
        transport = connection.get("transport", "tcp")
        ip = connection.get("ip", "127.0.0.1")
        for channel, kind in kinds.items():
            socket = self._context.socket(kind)
            socket.linger = 1000
            port = int(connection[f"{channel.value}_port"])
            address = f"{transport}://{ip}:{port}" if transport == "tcp" else f"{transport}://{ip}-{port}"
            socket.bind(address)
            self.sockets[channel] = socket
        heartbeat = threading.Thread(target=self._echo, name="heartbeat", daemon=True)
        heartbeat.start()

    def _echo(self) -> None:
        socket = self.sockets[Channel.HEARTBEAT]
        try:
            zmq.proxy(socket, socket)  # each ping straight back to its sender
        except zmq.ZMQError:
            return

    def _sign(self, parts: list[bytes]) -> bytes:
        if not self._key:
            return b""
        mac = hmac.new(self._key, digestmod=self._digest)
        for part in parts:
            mac.update(part)
        return mac.hexdigest().encode("ascii")

    def header(self, kind: str) -> dict[str, Any]:
        return {"msg_id": _new_id(), "session": self.session, "username": "opensysml",
                "date": datetime.now(timezone.utc).isoformat(), "msg_type": kind, "version": PROTOCOL_VERSION}

    def receive(self, channel: Channel, block: bool = True) -> Message | None:
        """The next message on a channel (None when none waits and `block` is False)."""
        try:
            frames = self.sockets[channel].recv_multipart(0 if block else zmq.NOBLOCK)
        except zmq.Again:
            return None
        if _DELIMITER not in frames:
            raise BadMessage("a message without the <IDS|MSG> delimiter")
        at = frames.index(_DELIMITER)
        idents, signature, parts = frames[:at], frames[at + 1], frames[at + 2:]
        if len(parts) < 4:
            raise BadMessage(f"a message of {len(parts)} parts; the protocol has four")
        if self._key and not hmac.compare_digest(signature, self._sign(parts[:4])):
            raise BadMessage("a message whose signature does not match the connection's key")
        header, parent, metadata, content = (json.loads(p) for p in parts[:4])
        return Message(tuple(idents), header, parent, metadata, content, tuple(parts[4:]))

    def send(self, channel: Channel, kind: str, content: dict[str, Any], parent: Message | None = None,
             idents: tuple[bytes, ...] | None = None, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one message: a reply goes back to the request's sender; a publication carries a topic.
        Returns its header."""
        header = self.header(kind)
        parts = [_json(header), _json(parent.header if parent is not None else {}), _json(metadata or {}),
                 _json(content)]
        if idents is None:
            idents = parent.idents if parent is not None and channel is not Channel.IOPUB else ()
        if channel is Channel.IOPUB:
            idents = (f"kernel.{self.session}.{kind}".encode(),)
        frames = [*idents, _DELIMITER, self._sign(parts), *parts]
        with self._publishing if channel is Channel.IOPUB else _NO_LOCK, _whole():
            self.sockets[channel].send_multipart(frames)
        return header

    def publish(self, kind: str, content: dict[str, Any], parent: Message | None) -> None:
        self.send(Channel.IOPUB, kind, content, parent)

    def welcome(self) -> None:
        """Greet each new iopub subscriber (an `iopub_welcome`, as JEP 65 has it): a front end knows its
        subscription took, rather than waiting out a quiet channel and asking again."""
        socket = self.sockets[Channel.IOPUB]
        while True:
            try:
                frame = socket.recv(zmq.NOBLOCK)
            except zmq.Again:
                return
            if frame[:1] != b"\x01":
                continue  # an unsubscription
            topic = frame[1:].decode("utf-8", "replace")
            self.publish("iopub_welcome", {"subscription": topic}, None)

    def close(self) -> None:
        """Close what the main thread uses; the heartbeat's socket ends with the process (closing it under the
        thread that echoes on it is unsafe)."""
        for channel, socket in self.sockets.items():
            if channel is not Channel.HEARTBEAT:
                socket.close(linger=200)


_NO_LOCK = contextlib.nullcontext()


@contextlib.contextmanager
def _whole() -> Iterator[None]:
    """A message's frames sent with Ctrl-C held back (delivered right after): an interrupt between two
    frames would leave half a message on the socket."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def read_connection(path: str) -> dict[str, Any]:
    """The connection file a front end wrote for the kernel (ports, key, transport)."""
    with open(path, encoding="utf-8") as handle:
        connection: dict[str, Any] = json.load(handle)
    return connection


def log(text: str) -> None:
    """A line on the kernel's own stderr (the terminal of the server that started it), never a cell's."""
    stream = sys.__stderr__
    if stream is not None:
        stream.write(f"[opensysml kernel {os.getpid()}] {text}\n")
        stream.flush()
