"""Reading an operator's CSV file as rows, streamed: UTF-8 with or without BOM, bounded lines, clear refusals.

Only UTF-8 is read. A UTF-16 file (Excel's "Unicode text") or a cp1256 one
(Windows Arabic) would otherwise come out as garbage names and ids, so either
is refused naming the line, before anything is written.
"""
from __future__ import annotations

import codecs
import csv
import io
import unicodedata
from collections.abc import Iterator

MAX_LINE_BYTES = 64 * 1024  # a longer line is no user's row: a wrong file, or a binary one
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# Header spellings of the user id column, after lower-casing.
ID_HEADERS = frozenset({"user_id", "id", "شناسه", "userid"})


class BadFile(ValueError):
    """The file cannot be read as our CSV; the message is one line naming the file's problem."""


def _lines(raw: io.BufferedIOBase) -> Iterator[str]:
    """Yield the file's lines decoded from UTF-8 (a BOM dropped), refusing UTF-16, other encodings and long lines."""
    first = raw.peek(4)[:4] if hasattr(raw, "peek") else b""
    if first.startswith(UTF16_BOMS) or b"\x00" in first:
        raise BadFile("the file is UTF-16, not UTF-8: save it as \"CSV UTF-8\"")
    if first.startswith(codecs.BOM_UTF8):
        raw.read(len(codecs.BOM_UTF8))
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    line_no = 0
    # readline's limit bounds memory: a line longer than that is refused, never read whole.
    while line := raw.readline(MAX_LINE_BYTES + 1):
        line_no += 1
        yield _decode(decoder, line, line_no, final=not line.endswith(b"\n"))


def _decode(decoder, line: bytes, line_no: int, final: bool = False) -> str:
    """Decode one line, or refuse the file naming the line and the byte that is not UTF-8."""
    if len(line) > MAX_LINE_BYTES:
        raise BadFile(f"line {line_no} is longer than {MAX_LINE_BYTES // 1024} KiB: not a CSV of users")
    if b"\x00" in line:
        raise BadFile(f"line {line_no} contains a NUL byte: a binary or UTF-16 file, not UTF-8 CSV")
    try:
        return decoder.decode(line, final=final)
    except UnicodeDecodeError as exc:
        raise BadFile(f"line {line_no} is not UTF-8 (byte 0x{line[exc.start]:02x}); the file may be "
                      f"cp1256/Windows-1256: save it as \"CSV UTF-8\"") from None


def rows(raw: io.BufferedIOBase) -> Iterator[tuple[int, list[str]]]:
    """Yield (line number, cells) of each non-empty row; a quoted cell may span lines (its first line's number)."""
    lines = _lines(raw)
    reader = csv.reader(lines, strict=True)
    line_no = 0
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise BadFile(f"line {reader.line_num}: {exc}") from None
        first, line_no = line_no + 1, reader.line_num
        if any(cell.strip() for cell in cells):
            yield first, cells


def header_key(cell: str) -> str:
    """Return a header cell as compared: trimmed, NFC, lower-cased (a BOM or ZWNJ at the edges dropped)."""
    return unicodedata.normalize("NFC", cell.strip().strip("\ufeff\u200c")).strip().lower()


def is_id_header(cell: str) -> bool:
    """Tell whether a header cell names the user id column."""
    return header_key(cell) in ID_HEADERS
