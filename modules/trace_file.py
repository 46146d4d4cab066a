"""Opening a trace file: gzip or plain, checked to be text, a UTF-8 byte
order mark stepped over, and a damaged gzip told apart from a truncated one
(with the line its data stops after) -- so that a reader of any trace
format gets one clear line instead of a decoder's traceback."""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path
from typing import IO, Iterator

_GZIP_MAGIC = b"\x1f\x8b"
_GZIP_WBITS = zlib.MAX_WBITS | 16  # zlib's setting for a gzip header and trailer
_UTF8_BOM = b"\xef\xbb\xbf"
# Control bytes a text file does not hold (tab, newlines and form feeds aside);
# translate() deleting every other byte leaves them.
_NOT_CONTROL = bytes(b for b in range(256) if b >= 32 and b != 127 or b in b"\t\n\v\f\r")
_TEXT_PROBE = 1 << 16  # bytes looked at to tell text from binary
#: Magic bytes of what is often mistaken for a trace, and what to say about it.
_NOT_A_TRACE = {
    b"\xff\xfe": "UTF-16 text: save it as UTF-8 or ASCII",
    b"\xfe\xff": "UTF-16 text: save it as UTF-8 or ASCII",
    b"\xfd7zXZ\x00": "xz-compressed: decompress it first (gzip is read directly)",
    b"BZh": "bzip2-compressed: decompress it first (gzip is read directly)",
    b"\x28\xb5\x2f\xfd": "zstd-compressed: decompress it first (gzip is read directly)",
    b"PK\x03\x04": "a zip archive: extract the trace first",
}

class SWFError(ValueError):
    """A trace that cannot be read: malformed line or unknown machine size.

    The message starts with ``file:line:`` like a compiler's, so that an
    editor can jump to the culprit.
    """


def open_trace(path: Path) -> IO[bytes]:
    """Open ``path`` for reading bytes, decompressing if it is gzip."""
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == _GZIP_MAGIC:
        # GzipFile.readline is slow per call; a large buffer in front halves it
        return io.BufferedReader(gzip.open(path, "rb"), buffer_size=1 << 20)
    return open(path, "rb", buffering=1 << 20)


def check_text_and_skip_bom(stream: io.BufferedReader, path: Path) -> None:
    """Refuse a file that is empty or not text; step over a UTF-8 byte
    order mark, which some editors put at the start of a text file."""
    head = stream.peek(_TEXT_PROBE)[:_TEXT_PROBE]
    if not head:
        raise SWFError(f"{path}: the file is empty")
    for magic, what in _NOT_A_TRACE.items():
        if head.startswith(magic):
            raise SWFError(f"{path}: not an SWF trace but {what}")
    control = head.translate(None, _NOT_CONTROL)
    if control:
        offset = head.index(control[:1])
        line = head.count(b"\n", 0, offset) + 1
        raise SWFError(f"{path}:{line}: not a text file "
                       f"(byte 0x{control[0]:02x} at offset {offset:,}); an SWF trace is "
                       "text, one job per line")
    if head.startswith(_UTF8_BOM):
        stream.read(len(_UTF8_BOM))


def decoded_lines(stream: IO[bytes], path: Path,
                  error: type[ValueError] = ValueError) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of a UTF-8 file, without a byte order mark;
    bytes that are not UTF-8 are an ``error`` naming the line, not a
    decoder's traceback naming no file."""
    for number, raw in enumerate(stream, start=1):
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as failure:
            raise error(f"{path}:{number}: not UTF-8 text (byte 0x{raw[failure.start]:02x} "
                        f"at column {failure.start + 1})") from None
        yield number, text


def damaged_gzip(path: Path, error: Exception) -> SWFError:
    """Say that a gzip file is corrupt, or cut short and after how many
    lines: decompressing it again, chunk by chunk, counts what a buffered
    read of the failing chunk lost."""
    if not isinstance(error, EOFError):
        return SWFError(f"{path}: the gzip file is corrupt ({error})")
    lines = 0
    decompressor = zlib.decompressobj(wbits=_GZIP_WBITS)
    with open(path, "rb") as stream:
        while chunk := stream.read(1 << 16):
            lines += decompressor.decompress(chunk).count(b"\n")
            while decompressor.eof:  # a file of several gzip members: the next one
                rest = decompressor.unused_data
                decompressor = zlib.decompressobj(wbits=_GZIP_WBITS)
                lines += decompressor.decompress(rest).count(b"\n")
    return SWFError(f"{path}: the gzip file is truncated: its data stops after "
                    f"line {lines:,} (an interrupted download or copy?)")
