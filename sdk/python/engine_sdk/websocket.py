"""A minimal RFC 6455 WebSocket client on asyncio streams.

It does what a worker needs and no more: the opening handshake with extra
headers, masked client frames, 7/16/64-bit lengths, fragmented messages,
automatic pongs, the close handshake, ``TCP_NODELAY``, and ``wss:`` through
:mod:`ssl`. No extensions; subprotocols are offered with ``protocols`` and
the server's choice is :attr:`WebSocket.protocol`.

Example::

    ws = await connect("ws://localhost:49134", headers={"x-team": "blue"})
    ws.send_text('{"type":"ping"}')
    print(await ws.recv())
    await ws.close()
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from typing import Mapping, NoReturn, Sequence

from ._ws_frame import (
    OP_BINARY,
    OP_CLOSE,
    OP_CONTINUATION,
    OP_PING,
    OP_PONG,
    OP_TEXT,
    Frame,
    ProtocolError,
    decode_close,
    encode_close,
    encode_frame,
    read_frame,
)
from ._ws_handshake import HandshakeError, build_request, new_key, parse_url, read_response

__all__ = ["ConnectionClosed", "HandshakeError", "ProtocolError", "WebSocket", "connect"]

DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024


class ConnectionClosed(Exception):
    """The connection is closed; ``code`` is the close code (1006 when it just dropped)."""

    def __init__(self, code: int, reason: str = "") -> None:
        super().__init__(f"WebSocket closed: code {code}" + (f": {reason}" if reason else ""))
        self.code = code
        self.reason = reason


async def connect(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    ssl_context: ssl.SSLContext | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    protocols: Sequence[str] = (),
) -> WebSocket:
    """Opens a WebSocket to ``url`` (``ws://`` or ``wss://``), offering the subprotocols
    ``protocols`` (most preferred first; the server's choice is :attr:`WebSocket.protocol`).

    Raises ``OSError`` when the TCP connection fails, :class:`HandshakeError`
    when the server refuses the upgrade or chooses a subprotocol that was not
    offered, and ``ValueError`` for a bad header or subprotocol name. Wrap it in
    ``asyncio.wait_for`` for a deadline.
    """
    offered = (protocols,) if isinstance(protocols, str) else tuple(protocols)
    target = parse_url(url)
    key = new_key()
    request = build_request(target, key, dict(headers or {}), offered)
    context = None
    if target.secure:
        context = ssl_context or ssl.create_default_context()
    reader, writer = await asyncio.open_connection(
        target.host,
        target.port,
        ssl=context,
        server_hostname=target.host if context else None,
    )
    try:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        writer.write(request)
        chosen = await read_response(reader, url, key, offered)
    except BaseException:
        writer.transport.abort()
        raise
    return WebSocket(reader, writer, max_message_bytes, chosen)


class WebSocket:
    """An open client WebSocket. Use :func:`connect` to make one.

    Only one task may call :meth:`recv` at a time. Sending is synchronous: a
    frame is written to the transport in one ``write`` call.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        protocol: str = "",
    ) -> None:
        self.protocol = protocol
        """The subprotocol the server chose (``""`` when none)."""
        self._reader = reader
        self._writer = writer
        self._max = max_message_bytes
        self._loop = asyncio.get_running_loop()
        self._close_sent = False
        self._closed = asyncio.Event()
        self._close_code = 1006
        self._close_reason = ""
        self._reading = False
        self.last_activity = self._loop.time()
        """Loop time of the last frame received (data, ping, pong or close)."""

    @property
    def open(self) -> bool:
        """True until a Close frame has been sent or the connection dropped."""
        return not self._close_sent and not self._closed.is_set()

    @property
    def close_code(self) -> int | None:
        """The close code once closed, else ``None``."""
        return self._close_code if self._closed.is_set() else None

    def send_text(self, text: str) -> None:
        """Sends one text message."""
        self._send(OP_TEXT, text.encode("utf-8"))

    def send_utf8(self, data: bytes) -> None:
        """Sends one text message already encoded as UTF-8."""
        self._send(OP_TEXT, data)

    def send_bytes(self, data: bytes) -> None:
        """Sends one binary message."""
        self._send(OP_BINARY, bytes(data))

    async def drain(self) -> None:
        """Waits until the transport's write buffer is below its high-water mark
        (the peer, or TCP, is keeping up). Raises :class:`ConnectionClosed` when
        the connection is gone."""
        try:
            await self._writer.drain()
        except (ConnectionError, OSError):
            self._finish(1006, "")
            raise ConnectionClosed(self._close_code, self._close_reason) from None

    def ping(self, payload: bytes = b"") -> None:
        """Sends a Ping; the peer's Pong only updates :attr:`last_activity`."""
        self._send(OP_PING, payload[:125])

    def _send(self, opcode: int, payload: bytes) -> None:
        if not self.open:
            raise ConnectionClosed(self._close_code, self._close_reason)
        self._writer.write(encode_frame(opcode, payload))

    async def recv(self) -> str | bytes:
        """The next message: ``str`` for text, ``bytes`` for binary.

        Answers pings on the way. Raises :class:`ConnectionClosed` once the
        connection is closed, whichever side closed it.
        """
        if self._closed.is_set():
            raise ConnectionClosed(self._close_code, self._close_reason)
        self._reading = True
        try:
            return await self._read_message()
        finally:
            self._reading = False

    async def _read_message(self) -> str | bytes:
        opcode: int | None = None
        parts: list[bytes] = []
        size = 0
        while True:
            frame = await self._next_frame()
            if frame.opcode == OP_PING:
                if not self._close_sent:
                    self._writer.write(encode_frame(OP_PONG, frame.payload))
                continue
            if frame.opcode == OP_PONG:
                continue
            if frame.opcode == OP_CLOSE:
                code, reason = self._decode_close(frame.payload)
                if not self._close_sent:
                    self._close_sent = True
                    echo = None if code == 1005 else code
                    self._writer.write(encode_frame(OP_CLOSE, encode_close(echo)))
                self._finish(code, reason)
                raise ConnectionClosed(code, reason)
            if frame.opcode == OP_CONTINUATION:
                if opcode is None:
                    self._fail(ProtocolError("Invalid frame: continuation without a message to continue"))
            elif opcode is not None:
                self._fail(ProtocolError("Invalid frame: new message before the last one finished"))
            else:
                opcode = frame.opcode
            size += len(frame.payload)
            if size > self._max:
                self._fail(ProtocolError(f"Message too big: over {self._max} bytes", 1009))
            parts.append(frame.payload)
            if not frame.fin:
                continue
            data = b"".join(parts)
            if opcode == OP_BINARY:
                return data
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError:
                self._fail(ProtocolError("Invalid text message: not UTF-8", 1007))

    async def _next_frame(self) -> Frame:
        try:
            frame = await read_frame(self._reader, self._max)
        except ProtocolError as err:
            self._fail(err)
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            self._finish(1006, "")
            raise ConnectionClosed(1006) from None
        self.last_activity = self._loop.time()
        return frame

    def _decode_close(self, payload: bytes) -> tuple[int, str]:
        try:
            return decode_close(payload)
        except ProtocolError as err:
            self._fail(err)

    def _fail(self, err: ProtocolError) -> NoReturn:
        if not self._close_sent:
            self._close_sent = True
            self._writer.write(encode_frame(OP_CLOSE, encode_close(err.close_code, str(err))))
        self._finish(err.close_code, str(err))
        raise ConnectionClosed(err.close_code, str(err)) from err

    def _finish(self, code: int, reason: str) -> None:
        if self._closed.is_set():
            return
        self._close_code = code
        self._close_reason = reason
        self._closed.set()
        self._writer.close()

    def send_close(self, code: int | None = 1000, reason: str = "") -> None:
        """Sends a Close frame (once) without waiting: for a socket another task reads, whose
        :meth:`recv` then ends with the peer's Close (see :meth:`wait_closed`)."""
        if not self._close_sent and not self._closed.is_set():
            self._close_sent = True
            self._writer.write(encode_frame(OP_CLOSE, encode_close(code, reason)))

    async def close(self, code: int | None = 1000, reason: str = "", timeout: float = 2.0) -> None:
        """Runs the close handshake: sends Close, waits up to ``timeout`` seconds
        for the peer's Close, then closes the TCP connection.

        ``code=None`` sends a Close frame without a code (the peer sees 1005).
        """
        if self._closed.is_set():
            return
        if not self._close_sent:
            self._close_sent = True
            self._writer.write(encode_frame(OP_CLOSE, encode_close(code, reason)))
        try:
            if self._reading:
                await asyncio.wait_for(self._closed.wait(), timeout)
            else:
                await asyncio.wait_for(self._drain_until_closed(), timeout)
        except asyncio.TimeoutError:
            self.abort()
        try:
            await asyncio.wait_for(self._writer.wait_closed(), timeout)
        except (asyncio.TimeoutError, ConnectionError, OSError):
            pass

    async def _drain_until_closed(self) -> None:
        while not self._closed.is_set():
            try:
                await self._read_message()
            except ConnectionClosed:
                return

    def abort(self) -> None:
        """Drops the TCP connection at once, without a close handshake (code 1006)."""
        self._close_sent = True
        self._writer.transport.abort()
        if not self._closed.is_set():
            self._close_code = 1006
            self._closed.set()

    async def wait_closed(self) -> None:
        """Waits until the connection is closed."""
        await self._closed.wait()
