"""Several protocol frames in one WebSocket message: the ``engine.batch.v1``
subprotocol, offered in the opening handshake by the SDKs and chosen by the
engine. With it, a text message holds one or more frames separated by a line
feed; without it (the reference's SDK, a hand-written client) every message is
one frame, as the protocol says.

The frames sent in one iteration of the event loop travel together, up to
:data:`BATCH_BYTES` a message: under load that is many calls per message and
far less work per call for both ends of the socket; a single frame goes out
alone, as before, one iteration later.

A frame never holds a raw line feed: JSON has one only as whitespace between
tokens (inside a string it is escaped as ``\\n``), so a frame is made safe by
turning its line feeds into spaces (:func:`line_safe`), which keeps its meaning.
In UTF-8 the byte 0x0A is never part of another character, so this works on
encoded frames.

Example::

    sent = []
    batcher = FrameBatcher(sent.append, asyncio.get_running_loop())
    batcher.push(b'{"type":"ping"}')
    batcher.push(b'{"type":"ping"}')
    await asyncio.sleep(0)
    print(sent)  # [b'{"type":"ping"}\\n{"type":"ping"}']
"""

from __future__ import annotations

import asyncio
from typing import Callable, TypeVar

__all__ = ["BATCH_BYTES", "BATCH_PROTOCOL", "LARGEST_BATCH", "FrameBatcher", "line_safe", "offers_protocol", "split_batch"]

BATCH_PROTOCOL = "engine.batch.v1"
"""The subprotocol name."""

BATCH_BYTES = 64 * 1024
"""A message collects frames up to this many bytes of UTF-8 (so at most as many characters); a
larger frame travels alone."""

LARGEST_BATCH = 3 * BATCH_BYTES
"""The largest message of several frames the engine sends: :data:`BATCH_BYTES` UTF-16 units,
each at most 3 bytes of UTF-8. A worker whose ``max_message_bytes`` is smaller does not offer
the subprotocol."""

_Text = TypeVar("_Text", str, bytes)


def offers_protocol(value: str | None, name: str) -> bool:
    """Whether the ``Sec-WebSocket-Protocol`` header ``value`` offers ``name`` (exact match:
    subprotocol names are case-sensitive).

    Example::

        offers_protocol("chat, engine.batch.v1", "engine.batch.v1")  # True
        offers_protocol(None, "engine.batch.v1")  # False
    """
    return value is not None and any(token.strip() == name for token in value.split(","))


def line_safe(data: bytes) -> bytes:
    """``data`` (a JSON frame in UTF-8) with its line feeds turned into spaces; the same object
    when it has none (the usual case, and a single scan).

    Example::

        line_safe(b'{"a":\\n1}')  # b'{"a": 1}'
    """
    return data.replace(b"\n", b" ") if b"\n" in data else data


def split_batch(message: _Text) -> list[_Text]:
    """The frames of one batched message, in order; lines that are empty or hold only JSON
    whitespace (a ``\\r`` of CRLF-joined frames, spaces, tabs) are skipped; a frame, which starts
    with ``{``, is not scanned for it.

    Example::

        split_batch('{"type":"ping"}\\n{"type":"pong"}')  # ['{"type":"ping"}', '{"type":"pong"}']
    """
    if isinstance(message, str):
        separator, brace, blank = "\n", "{", " \t\r"
    else:
        separator, brace, blank = b"\n", b"{", b" \t\r"
    if separator not in message:
        return [message] if message.startswith(brace) or message.strip(blank) else []  # type: ignore[arg-type]
    return [
        line
        for line in message.split(separator)  # type: ignore[arg-type]
        if line.startswith(brace) or line.strip(blank)  # type: ignore[arg-type]
    ]


class FrameBatcher:
    """Collects the frames sent during one iteration of ``loop`` and sends them, from a callback
    the first frame schedules with ``loop.call_soon``, in as few messages as :data:`BATCH_BYTES`
    allows, in the order they were pushed.

    Not thread-safe: call it on ``loop``'s thread only (the SDK's connection does; handler threads
    reach it through ``call_soon_threadsafe``, which keeps their order).
    """

    def __init__(self, send: Callable[[bytes], object], loop: asyncio.AbstractEventLoop) -> None:
        """``send`` writes one message; it is not called for an empty batch."""
        self._send = send
        self._loop = loop
        self._frames: list[bytes] = []
        self._bytes = 0
        self._scheduled = False

    @property
    def pending_bytes(self) -> int:
        """Bytes queued and not yet handed to ``send``."""
        return self._bytes

    def push(self, data: bytes) -> None:
        """Queues one frame, encoded as UTF-8."""
        safe = line_safe(data)
        self._frames.append(safe)
        self._bytes += len(safe)
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self.flush)

    def flush(self) -> None:
        """Sends everything queued now (before a close frame, say)."""
        self._scheduled = False
        frames = self._frames
        if not frames:
            return
        self._frames = []
        self._bytes = 0
        start = 0
        size = len(frames[0])
        for i in range(1, len(frames)):
            following = len(frames[i])
            if size + 1 + following > BATCH_BYTES:
                self._send(_joined(frames, start, i))
                start = i
                size = following
            else:
                size += 1 + following
        self._send(_joined(frames, start, len(frames)))

    def clear(self) -> None:
        """Drops what is queued (the connection is gone)."""
        self._frames = []
        self._bytes = 0


def _joined(frames: list[bytes], start: int, end: int) -> bytes:
    return frames[start] if end - start == 1 else b"\n".join(frames[start:end])
