"""Streaming an HTTP response through engine-http: :class:`HttpStream`.

An HTTP handler may return its response as a value (``{"status_code",
"headers", "body"}``) or stream it on the ``response`` channel of its
request, which the SDK hands it as a :class:`ChannelWriter`. On that channel
engine-http reads text frames ``{"type": "set_status", "status_code": N}``
and ``{"type": "set_headers", "headers": {...}}``, then binary chunks: the
first chunk sends the status and headers, later ones follow as they come,
and closing the channel ends the body. ``HttpStream`` writes those frames.

Stream before returning (or return ``None`` right after starting): a handler
that returns ``None`` without having opened its ``response`` within a
second gets a 500 ``INVALID_RESPONSE``, and a value it returns before the
first chunk wins over the stream.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from .channels import ChannelWriter


class HttpStream:
    """Streams the response of an HTTP handler's request ``req`` (or of its ``req["response"]``).

    Example::

        async def download(req):
            async with HttpStream(req, status_code=200, headers={"content-type": "text/csv"}) as out:
                await out.write("id,name\\n")           # str is sent as UTF-8
                async for row in rows():
                    await out.write(row)
            # the body ended when the block did; return nothing

        def download_sync(req):                       # a sync handler blocks instead
            out = HttpStream(req, headers={"content-type": "text/plain"})
            out.write_sync(b"hello ")
            out.end_sync(b"world")

    The status (200 unless set) and headers go out with the first chunk, or at :meth:`end`;
    changing them after the first chunk raises ``RuntimeError`` (engine-http has sent them).
    A block that raises breaks the channel off, so the client's response is cut short rather
    than looking complete (or, before any chunk, the client gets a 502).
    """

    def __init__(
        self,
        req: Mapping[str, Any] | ChannelWriter,
        *,
        status_code: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        writer = req.get("response") if isinstance(req, Mapping) else req
        if not isinstance(writer, ChannelWriter):
            raise TypeError(
                "HttpStream() takes an HTTP handler's request (whose \"response\" is a ChannelWriter) "
                f"or that writer, got {type(writer).__name__}"
            )
        self.writer = writer
        """The ``response`` channel's writer."""
        self._pending: list[str] = []
        self._committed = False
        if status_code is not None:
            self.set_status(status_code)
        if headers is not None:
            self.set_headers(headers)

    def set_status(self, status_code: int) -> None:
        """Sets the status (an integer from 200 to 599, as engine-http takes); sent with the first chunk."""
        if not isinstance(status_code, int) or isinstance(status_code, bool) or not 200 <= status_code <= 599:
            raise ValueError(f"Invalid HTTP status_code {status_code!r}: expected an integer from 200 to 599")
        self._queue({"type": "set_status", "status_code": status_code})

    def set_headers(self, headers: Mapping[str, str]) -> None:
        """Sets headers ``{"name": "value"}``; sent with the first chunk. Calls add up (a name set
        again takes the later value)."""
        for name, value in headers.items():
            if not isinstance(name, str) or not isinstance(value, str):
                raise ValueError(f"Invalid HTTP header {name!r}: names and values must be strings, got {value!r}")
        self._queue({"type": "set_headers", "headers": dict(headers)})

    async def write(self, chunk: bytes | bytearray | memoryview | str) -> None:
        """Sends the status and headers if not sent yet, then ``chunk`` (``str`` as UTF-8)."""
        await self._flush()
        self._committed = True
        await self.writer.write(_as_bytes(chunk))

    async def end(self, chunk: bytes | bytearray | memoryview | str | None = None) -> None:
        """Writes ``chunk`` if given, then ends the body. With nothing written, the client gets the
        status and headers and an empty body."""
        if chunk is not None:
            await self.write(chunk)
        await self._flush()
        await self.writer.close()

    def write_sync(self, chunk: bytes | bytearray | memoryview | str) -> None:
        """:meth:`write` for sync handlers: blocks the calling thread."""
        self._flush_sync()
        self._committed = True
        self.writer.write_sync(_as_bytes(chunk))

    def end_sync(self, chunk: bytes | bytearray | memoryview | str | None = None) -> None:
        """:meth:`end` for sync handlers."""
        if chunk is not None:
            self.write_sync(chunk)
        self._flush_sync()
        self.writer.close_sync()

    async def __aenter__(self) -> HttpStream:
        await self.writer.open()  # engine-http now knows a stream is coming
        await self._flush()
        return self

    async def __aexit__(self, kind: Any, *exc: Any) -> None:
        if kind is None:
            await self.end()
        else:
            await self.writer.abort()

    def _queue(self, frame: dict[str, Any]) -> None:
        if self._committed:
            raise RuntimeError(
                f'Cannot send "{frame["type"]}" on the HTTP response of channel "{self.writer.channel_id}": '
                "its status and headers went out with the first chunk"
            )
        self._pending.append(json.dumps(frame, separators=(",", ":"), ensure_ascii=False))

    async def _flush(self) -> None:
        while self._pending:
            await self.writer.send_message(self._pending.pop(0))

    def _flush_sync(self) -> None:
        while self._pending:
            self.writer.send_message_sync(self._pending.pop(0))


def _as_bytes(chunk: Any) -> bytes | bytearray | memoryview:
    if isinstance(chunk, str):
        return chunk.encode("utf-8")
    if isinstance(chunk, (bytes, bytearray, memoryview)):
        return chunk
    raise TypeError(f"HttpStream.write() takes bytes or str, got {type(chunk).__name__}")
