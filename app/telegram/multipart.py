"""multipart/form-data bodies for uploads, streamed from the file so memory stays bounded."""
from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from typing import Any, BinaryIO, NamedTuple

# An upload is streamed in blocks this size: memory stays flat whatever the file's size.
CHUNK = 64 * 1024


class Upload(NamedTuple):
    """A file to upload: its name, content type and a seekable binary stream."""

    filename: str
    stream: BinaryIO
    content_type: str = "application/octet-stream"


def field_text(value: Any) -> str:
    """Return a parameter as a form field: text as is, anything else as JSON (markup, booleans, numbers)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, allow_nan=False)


def encode(payload: dict[str, Any], files: dict[str, Upload]) -> tuple[str, int, Iterator[bytes]]:
    """Return (content type, content length, body chunks); the files are read from their start, chunk by chunk."""
    boundary = uuid.uuid4().hex
    heads: list[bytes] = []
    for name, value in payload.items():
        heads.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
                     + field_text(value).encode() + b"\r\n")
    parts: list[tuple[bytes, Upload, int]] = []
    for name, upload in files.items():
        head = (f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{upload.filename}"\r\n'
                f"Content-Type: {upload.content_type}\r\n\r\n").encode()
        size = upload.stream.seek(0, os.SEEK_END)
        parts.append((head, upload, size))
    tail = f"--{boundary}--\r\n".encode()
    length = sum(map(len, heads)) + sum(len(h) + size + 2 for h, _, size in parts) + len(tail)

    def chunks() -> Iterator[bytes]:
        yield b"".join(heads)
        for head, upload, _ in parts:
            yield head
            upload.stream.seek(0)
            while block := upload.stream.read(CHUNK):
                yield block
            yield b"\r\n"
        yield tail

    return f"multipart/form-data; boundary={boundary}", length, chunks()
