"""Server side of RFC 6455 for the tests, written independently of the SDK's
client code (it shares nothing with ``engine_sdk.websocket``) so the two can
check each other."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import struct
from dataclasses import dataclass, field
from typing import Callable

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

TEXT, BINARY, CLOSE, PING, PONG, CONT = 1, 2, 8, 9, 10, 0


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    raw: bytes


@dataclass
class ServerConn:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    request: Request
    auto_pong: bool = True
    pings: list[bytes] = field(default_factory=list)
    pongs: list[bytes] = field(default_factory=list)
    unmasked_frames: int = 0
    on_ping: Callable[[bytes], None] | None = None
    protocol: str = ""
    """The subprotocol the upgrade answer named ("" for none)."""

    async def recv_frame(self) -> tuple[bool, int, bytes]:
        head = await self.reader.readexactly(2)
        fin = bool(head[0] & 0x80)
        opcode = head[0] & 0x0F
        masked = bool(head[1] & 0x80)
        n = head[1] & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", await self.reader.readexactly(8))
        if not masked:
            self.unmasked_frames += 1
        key = await self.reader.readexactly(4) if masked else b"\0\0\0\0"
        data = bytearray(await self.reader.readexactly(n))
        for i in range(n):
            data[i] ^= key[i % 4]
        return fin, opcode, bytes(data)

    async def recv_message(self) -> tuple[int, bytes]:
        """Next data or close message; pings are recorded (and answered if ``auto_pong``)."""
        kind = None
        parts: list[bytes] = []
        while True:
            fin, opcode, data = await self.recv_frame()
            if opcode == PING:
                self.pings.append(data)
                if self.on_ping is not None:
                    self.on_ping(data)
                if self.auto_pong:
                    self.send_frame(PONG, data)
                continue
            if opcode == PONG:
                self.pongs.append(data)
                continue
            if opcode == CLOSE:
                return CLOSE, data
            if opcode != CONT:
                kind = opcode
            parts.append(data)
            if fin:
                return kind or TEXT, b"".join(parts)

    def send_frame(self, opcode: int, data: bytes, fin: bool = True) -> None:
        head = bytes([(0x80 if fin else 0) | opcode])
        n = len(data)
        if n < 126:
            head += bytes([n])
        elif n < 65536:
            head += bytes([126]) + struct.pack("!H", n)
        else:
            head += bytes([127]) + struct.pack("!Q", n)
        self.writer.write(head + data)

    def send_text(self, text: str) -> None:
        self.send_frame(TEXT, text.encode())

    def send_close(self, code: int = 1000, reason: str = "") -> None:
        self.send_frame(CLOSE, struct.pack("!H", code) + reason.encode())

    def abort(self) -> None:
        self.writer.transport.abort()


def accept_value(key: str) -> str:
    return base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()


async def read_request(reader: asyncio.StreamReader) -> Request:
    raw = await reader.readuntil(b"\r\n\r\n")
    lines = raw.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    return Request(method, path, headers, raw)


async def accept(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    *,
    refuse_status: int | None = None,
    bad_accept: bool = False,
    choose: Callable[[str | None], str | None] | None = None,
) -> ServerConn | None:
    """Answers the upgrade; returns None (after answering) when told to refuse. ``choose`` gets
    the ``Sec-WebSocket-Protocol`` header offered (``None`` when absent) and returns the
    subprotocol to answer with (``None`` for none), offered or not."""
    request = await read_request(reader)
    if refuse_status is not None:
        writer.write(f"HTTP/1.1 {refuse_status} Refused\r\nContent-Length: 0\r\n\r\n".encode())
        await writer.drain()
        writer.close()
        return None
    key = request.headers["sec-websocket-key"]
    assert request.headers["upgrade"].lower() == "websocket"
    assert request.headers["sec-websocket-version"] == "13"
    accept_header = "d3Jvbmc=" if bad_accept else accept_value(key)
    chosen = choose(request.headers.get("sec-websocket-protocol")) if choose is not None else None
    protocol_header = f"Sec-WebSocket-Protocol: {chosen}\r\n" if chosen else ""
    writer.write(
        (
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {accept_header}\r\n{protocol_header}\r\n"
        ).encode()
    )
    return ServerConn(reader, writer, request, protocol=chosen or "")
