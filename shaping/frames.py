"""Both ends of a scoring worker's pipe in ``multiprocessing.Connection``'s frames (a 4-byte big-endian length,
or -1 and an 8-byte one, then the pickle), so either end may still be a ``Connection`` (the facade's pool reads
its workers with ``recv``).

A frame is written in one ``writev`` (``Connection.send_bytes`` makes two for one over 16 KiB), and what arrived
is read at once, every whole frame in it taken (``recv`` reads a header, then its body, a call each, one frame a
wake-up): the event loop's side of ``serve.pool`` and the workers' loop (``scoring_pool.worker_main``).
"""

from __future__ import annotations

import os
import pickle
import struct
from typing import Any

SHORT = struct.Struct("!i")
LONG = struct.Struct("!Q")
READ_BYTES = 1 << 16


def send_frame(fd: int, payload: bytes) -> None:
    """``payload`` framed, written whole to the blocking ``fd`` (``OSError`` when the reader is gone)."""
    size = len(payload)
    header = SHORT.pack(size) if size <= 0x7FFFFFFF else SHORT.pack(-1) + LONG.pack(size)
    sent = os.writev(fd, (header, payload))
    if sent < len(header) + size:  # a signal cut the write short: the rest, as Connection would
        rest = memoryview(header + payload)[sent:]
        while rest:
            rest = rest[os.write(fd, rest):]


class FrameReader:
    """The whole frames of a stream read in pieces: ``feed`` what arrived, then ``messages`` unpickles each whole
    one, keeping a partial one for the next piece."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def want(self) -> int:
        """How much to read now: the rest of a long frame at once, else a pipe's worth."""
        if len(self.buffer) >= SHORT.size:
            size = SHORT.unpack_from(self.buffer)[0]
            if size > READ_BYTES:
                return size + SHORT.size - len(self.buffer)
        return READ_BYTES

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def messages(self) -> list[Any]:
        out, start, buffer = [], 0, self.buffer
        view = memoryview(buffer)
        try:
            while len(buffer) - start >= SHORT.size:
                size, head = SHORT.unpack_from(buffer, start)[0], SHORT.size
                if size == -1:
                    if len(buffer) - start < SHORT.size + LONG.size:
                        break
                    size, head = LONG.unpack_from(buffer, start + SHORT.size)[0], SHORT.size + LONG.size
                if len(buffer) - start - head < size:
                    break
                out.append(pickle.loads(view[start + head:start + head + size]))
                start += head + size
        finally:
            view.release()
        if start:
            del buffer[:start]
        return out
