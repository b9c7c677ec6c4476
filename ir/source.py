"""Reading a model's text: UTF-8, or a typed error naming the byte where the encoding breaks."""

from __future__ import annotations

from ir.errors import PlacedError

_BOM = b"\xef\xbb\xbf"


class SourceEncodingError(PlacedError):
    """A file that is not UTF-8: the message names the byte offset, the line and the column."""

    def __init__(self, path: str, offset: int, byte: int, line: int, column: int) -> None:
        self.offset = offset
        super().__init__(f"not UTF-8: byte 0x{byte:02x} at offset {offset} cannot start or continue a "
                         f"character; save the file as UTF-8", path, line, column)


def decode_source(data: bytes, path: str) -> str:
    """The text of a file's bytes (a UTF-8 byte-order mark is dropped)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        start = error.start + (len(_BOM) if data.startswith(_BOM) else 0)  # an offset into the file's bytes
        before = data[:start]
        line = before.count(b"\n") + 1
        prefix = before[before.rfind(b"\n") + 1:].removeprefix(_BOM)
        column = len(prefix.decode("utf-8", errors="replace")) + 1
        raise SourceEncodingError(path, start, data[start], line, column) from None


def read_source(path: str) -> str:
    """A model file's text; an unreadable file raises OSError, a file not in UTF-8 SourceEncodingError."""
    with open(path, "rb") as handle:
        return decode_source(handle.read(), path)
