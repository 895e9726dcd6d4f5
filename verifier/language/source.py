"""Reading ``.pinf`` source files.

``read_source`` is the only way the tools read program text: it turns every way a file can
be unusable into a diagnostic (``U001`` unreadable, ``P001`` not UTF-8 text) and hands the
lexer text with ``\\n`` line ends only.
"""
from __future__ import annotations

import os
import re

from verifier.errors import PrivInferError, error
from verifier.language.ast import Span

_BOM = b"\xef\xbb\xbf"

#: Control characters that no text file contains (tab, line feed, vertical tab, form feed
#: and carriage return are allowed here; the lexer decides what to make of them).
_BINARY = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


def read_source(path: str | os.PathLike) -> str:
    """The text of the file at ``path``.

    A leading UTF-8 byte order mark is dropped and CRLF (and lone CR) line ends become LF.
    Raises ``PrivInferError`` with ``U001`` when the file is missing or unreadable, and
    ``P001`` (at the line and column of the first bad byte) when the bytes are not UTF-8 or
    hold a NUL or another control character that marks a binary file.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise error("U001", f"cannot read {name}: {reason}") from None
    except ValueError:  # a path with a NUL character
        raise error("U001", f"cannot read {name!r}: a path cannot contain a NUL character") from None
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _position(data, exc.start)
        raise _p001(name, data, line, col,
                    f"the file is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot start "
                    f"or continue a UTF-8 character",
                    "save the file as UTF-8")
    bad = _BINARY.search(text)
    if bad is not None:
        offset = bad.start()
        line = text.count("\n", 0, offset) + 1
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        char = bad.group()
        what = "a NUL byte" if char == "\x00" else f"the control character U+{ord(char):04X}"
        raise _p001(name, data, line, col, f"the file contains {what}: is it a binary file?", None)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte ``offset`` of UTF-8 ``data``."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    col = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return line, col


def _p001(name: str, data: bytes, line: int, col: int, message: str,
          hint: str | None) -> PrivInferError:
    exc = error("P001", message, Span(name, line, col, line, col + 1), hint)
    # Shown with a caret; undecodable bytes and control characters become U+FFFD.
    exc.source = _BINARY.sub("\ufffd", data.decode("utf-8", "replace"))
    return exc
