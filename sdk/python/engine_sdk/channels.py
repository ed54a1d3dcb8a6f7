"""The two ends of a data channel: :class:`ChannelReader` and :class:`ChannelWriter`.

A data channel carries bytes (and text messages) from one writer to one
reader through the engine, outside the call that handed them over: a file
upload, a streamed HTTP response, a large result. A worker gets its ends
from :meth:`Worker.create_channel`, or as objects in a handler's input
wherever the payload held a ref (engine-http's ``request_body`` and
``response``, a ref another worker passed). Each end opens its own WebSocket
to the engine, lazily, the first time it is used; each end opens once.

Example::

    channel = await worker.create_channel_async()
    result = worker.trigger_async({"function_id": "files::store", "payload": {"body": channel.reader_ref}})
    await channel.writer.write(b"first part")
    await channel.writer.close()
    print(await result)
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Iterator

from .channel_end import ChannelEnd, ChannelError
from .channel_refs import ChannelRef, is_channel_ref
from .open_ends import OpenEnds
from .options import InitOptions
from .websocket import ConnectionClosed, WebSocket

log = logging.getLogger("engine_sdk")

FRAME_SIZE = 64 * 1024
"""The largest binary frame a writer sends; longer writes are split."""
CLOSE_TIMEOUT_S = 5.0
"""How long a writer's close waits for the engine's answer before dropping the connection."""


class ChannelReader(ChannelEnd):
    """The read end of a channel: binary data as ``bytes`` chunks, text messages to callbacks.

    It connects on the first read. The data ends when the writer closes the channel; if the
    writer's connection dropped first, reading raises :class:`ChannelError` (code
    ``channel_broken``) instead, so a cut-short body is never taken for a whole one.

    Example::

        async def upload(req):
            body = await req["request_body"].read_all()       # the raw request bytes
            return {"status_code": 200, "body": {"size": len(body)}}

        async def consume(payload):
            reader = payload["reader"]
            reader.on_message(lambda text: print("message:", text))
            async for chunk in reader:                          # until the writer closes
                handle(chunk)

        def consume_sync(payload):                              # a sync handler blocks instead
            return {"size": len(payload["reader"].read_all_sync())}
    """

    direction = "read"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._callbacks: list[Callable[[str], Any]] = []
        self._ended = False
        self._error: ChannelError | None = None

    def on_message(self, callback: Callable[[str], Any]) -> None:
        """Calls ``callback(text)`` for each text message, in order with the data, while the
        channel is read (registering alone does not connect). ``callback`` may be ``async``; an
        exception it raises is logged."""
        self._callbacks.append(callback)

    async def read(self) -> bytes | None:
        """The next chunk of data, or ``None`` at the end."""
        return await self._on_loop(self._read())

    async def read_all(self) -> bytes:
        """Everything until the end, as one ``bytes``."""
        return await self._on_loop(self._read_all())

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[bytes]:
        while (chunk := await self.read()) is not None:
            yield chunk

    def read_sync(self) -> bytes | None:
        """:meth:`read` for sync handlers: blocks the calling thread."""
        return self._block(self._read(), "read")

    def read_all_sync(self) -> bytes:
        """:meth:`read_all` for sync handlers: blocks the calling thread."""
        return self._block(self._read_all(), "read_all")

    def __iter__(self) -> Iterator[bytes]:
        """``for chunk in reader`` in sync handlers (each step blocks)."""
        while (chunk := self.read_sync()) is not None:
            yield chunk

    async def close(self) -> None:
        """Stops reading: the engine then closes the writer's end too. Reading to the end closes
        the socket on its own; call this to stop early."""
        await self._on_loop(self._close())

    def close_sync(self) -> None:
        """:meth:`close` for sync handlers."""
        self._block(self._close(), "close")

    async def _read_all(self) -> bytes:
        parts = []
        while (chunk := await self._read()) is not None:
            parts.append(chunk)
        return b"".join(parts)

    async def _read(self) -> bytes | None:
        async with self._lock:
            while True:
                if self._error is not None:
                    raise self._error
                if self._ended:
                    return None
                ws = await self._open()
                try:
                    message = await ws.recv()
                except ConnectionClosed as closed:
                    self._end(closed)
                    continue
                if self._error is not None:
                    # Broken off at the worker's shutdown while this read waited: the close sent
                    # then is answered after what the engine had queued; read on to it.
                    await _watch(ws)
                    continue
                if isinstance(message, bytes):
                    return message
                await self._deliver(message)

    def _end(self, closed: ConnectionClosed) -> None:
        self._ended = True
        if self._error is not None:  # broken off at the worker's shutdown
            return
        if closed.code in (1000, 1005):
            return
        why = f"code {closed.code}" + (f": {closed.reason}" if closed.reason else "")
        self._error = ChannelError(
            "channel_broken",
            f'Channel "{self.channel_id}" broke off before its writer closed it ({why}): the data is incomplete',
        )

    async def _deliver(self, text: str) -> None:
        for callback in list(self._callbacks):
            try:
                result = callback(text)
                if inspect.isawaitable(result):
                    await result
            except Exception:  # noqa: BLE001 - a callback's failure does not end the reading
                log.exception('on_message callback of channel "%s" failed', self.channel_id)

    async def _close(self) -> None:
        self._ended = True
        if self._ws is not None:
            await self._ws.close(1000, "channel_close")

    async def _break_off(self, why: str) -> None:
        if not self._ended:
            self._error = ChannelError("channel_broken", f'Channel "{self.channel_id}" broke off: {why}')
            self._ended = True
        if self._ws is not None:
            await self._ws.close(1001, "worker shut down")


class ChannelWriter(ChannelEnd):
    """The write end of a channel: binary data in chunks of at most 64 KiB, and text messages.

    It connects on the first write. :meth:`write` waits while the engine holds the writer back
    (a reader that is not keeping up), so writing in a loop never piles data up in memory.
    :meth:`close` ends the data; ``async with writer:`` closes it on the way out, or, when the
    block raises, breaks the channel off so the reader gets an error instead of a short body.

    Example::

        async def export(payload):
            async with payload["writer"] as out:
                await out.send_message('{"rows": 2}')
                await out.write(b"row 1\\n")
                await out.write(b"row 2\\n")

        def export_sync(payload):                               # a sync handler blocks instead
            payload["writer"].write_sync(b"all of it")
            payload["writer"].close_sync()
    """

    direction = "write"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._done = False
        self._broken: str | None = None  # why the worker's shutdown broke it off
        self._watcher: asyncio.Task[None] | None = None

    async def write(self, data: bytes | bytearray | memoryview) -> None:
        """Sends ``data`` as binary frames of at most 64 KiB, waiting while the engine holds the
        writer back. Raises :class:`ChannelError` (``channel_closed``) when the channel is closed."""
        view = _bytes_view(data)
        await self._on_loop(self._send(view, None))

    async def send_message(self, text: str) -> None:
        """Sends ``text`` as one text message (the reader's ``on_message`` callbacks get it)."""
        if not isinstance(text, str):
            raise TypeError(f"ChannelWriter.send_message() takes a str, got {type(text).__name__}")
        await self._on_loop(self._send(None, text))

    async def close(self) -> None:
        """Ends the data (close code 1000): the reader gets what was written, then the end. A writer
        never used connects first, so its reader sees the end. Closing twice does nothing."""
        await self._on_loop(self._close())

    async def abort(self) -> None:
        """Drops the connection without closing the channel: the reader gets a ``channel_broken``
        error instead of an end."""
        await self._on_loop(self._abort())

    def write_sync(self, data: bytes | bytearray | memoryview) -> None:
        """:meth:`write` for sync handlers: blocks the calling thread."""
        self._block(self._send(_bytes_view(data), None), "write")

    def send_message_sync(self, text: str) -> None:
        """:meth:`send_message` for sync handlers."""
        if not isinstance(text, str):
            raise TypeError(f"ChannelWriter.send_message_sync() takes a str, got {type(text).__name__}")
        self._block(self._send(None, text), "send_message")

    def close_sync(self) -> None:
        """:meth:`close` for sync handlers."""
        self._block(self._close(), "close")

    async def __aenter__(self) -> ChannelWriter:
        return self

    async def __aexit__(self, kind: Any, *exc: Any) -> None:
        if kind is None:
            await self.close()
        else:
            await self.abort()

    def _opened(self) -> None:
        assert self._ws is not None
        self._watcher = asyncio.get_running_loop().create_task(_watch(self._ws))

    async def _send(self, view: memoryview | None, text: str | None) -> None:
        async with self._lock:
            if self._done:
                raise self._closed_error(None)
            ws = await self._open()
            try:
                if text is not None:
                    ws.send_text(text)
                    await ws.drain()
                    return
                assert view is not None
                for start in range(0, len(view), FRAME_SIZE):
                    ws.send_bytes(view[start : start + FRAME_SIZE])
                    await ws.drain()
            except ConnectionClosed as closed:
                raise self._closed_error(closed) from None

    async def _close(self) -> None:
        async with self._lock:
            if self._done:
                return
            self._done = True
            ws = await self._open()
            # The watcher reads the socket: it gets the engine's answering Close.
            ws.send_close(1000, "stream_complete")
            try:
                await asyncio.wait_for(ws.wait_closed(), CLOSE_TIMEOUT_S)
            except asyncio.TimeoutError:
                ws.abort()

    async def _abort(self) -> None:
        self._done = True
        if self._ws is not None:
            self._ws.abort()

    async def _break_off(self, why: str) -> None:
        self._done = True
        self._broken = why
        if self._ws is not None:
            await self._ws.close(1001, "worker shut down")  # not 1000: the reader must not see an end

    def _closed_error(self, closed: ConnectionClosed | None) -> ChannelError:
        if closed is None:
            why = self._broken or "it was closed"
        elif closed.code == 1006:
            why = "the connection to the engine dropped"
        else:
            why = f"the engine closed it (code {closed.code}" + (f": {closed.reason})" if closed.reason else ")")
        return ChannelError("channel_closed", f'Cannot write to channel "{self.channel_id}": {why}')


async def _watch(ws: WebSocket) -> None:
    """Reads ``ws`` to its close, dropping what comes. A writer's socket carries nothing but pings
    and the engine's close: both are answered, and a write after the close fails. A reader broken
    off at shutdown reads on to the answer to its close."""
    try:
        while True:
            await ws.recv()
    except ConnectionClosed:
        return


def _bytes_view(data: Any) -> memoryview:
    if isinstance(data, str) or not isinstance(data, (bytes, bytearray, memoryview)):
        hint = ': encode text first (text.encode("utf-8")), or use send_message() for a message'
        shown = type(data).__name__
        raise TypeError(f"ChannelWriter.write() takes bytes, got {shown}" + (hint if isinstance(data, str) else ""))
    return memoryview(data).cast("B")


@dataclass(frozen=True)
class Channel:
    """A new channel from :meth:`Worker.create_channel`: both ends, and the refs that hand them on."""

    reader: ChannelReader
    writer: ChannelWriter
    reader_ref: ChannelRef
    writer_ref: ChannelRef


def open_end(
    engine_url: str, ref: ChannelRef, options: InitOptions, loop: asyncio.AbstractEventLoop, ends: OpenEnds | None
) -> ChannelEnd:
    """A :class:`ChannelReader` or :class:`ChannelWriter` for ``ref``, owned by ``loop``, whose open
    socket ``ends`` (its worker's) tracks."""
    kind = ChannelReader if ref["direction"] == "read" else ChannelWriter
    return kind(
        engine_url,
        ref,
        loop=loop,
        ssl_context=options.ssl_context,
        max_message_bytes=options.max_message_bytes,
        open_ends=ends,
    )


def make_channel(
    result: Any, engine_url: str, options: InitOptions, loop: asyncio.AbstractEventLoop, ends: OpenEnds | None
) -> Channel:
    """The :class:`Channel` of an ``engine::channels::create`` result ``{reader, writer}``."""
    reader_ref = result.get("reader") if isinstance(result, dict) else None
    writer_ref = result.get("writer") if isinstance(result, dict) else None
    if not is_channel_ref(reader_ref) or not is_channel_ref(writer_ref):
        shown = repr(result)[:200]
        raise ChannelError("channel_refused", f"engine::channels::create answered no channel refs: {shown}")
    reader = open_end(engine_url, reader_ref, options, loop, ends)
    writer = open_end(engine_url, writer_ref, options, loop, ends)
    assert isinstance(reader, ChannelReader) and isinstance(writer, ChannelWriter)
    return Channel(reader, writer, reader.ref, writer.ref)
