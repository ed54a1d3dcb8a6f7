"""RFC 6455 frame encoding and decoding (client side: outbound frames are masked)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

OP_CONTINUATION = 0x0
OP_TEXT = 0x1
OP_BINARY = 0x2
OP_CLOSE = 0x8
OP_PING = 0x9
OP_PONG = 0xA

_CONTROL_OPCODES = (OP_CLOSE, OP_PING, OP_PONG)
_DATA_OPCODES = (OP_CONTINUATION, OP_TEXT, OP_BINARY)


class ProtocolError(Exception):
    """The peer broke RFC 6455; ``close_code`` is the code to close with."""

    def __init__(self, message: str, close_code: int = 1002) -> None:
        super().__init__(message)
        self.close_code = close_code


@dataclass(frozen=True)
class Frame:
    """One decoded frame."""

    fin: bool
    opcode: int
    payload: bytes


def apply_mask(data: bytes, key: bytes) -> bytes:
    """XORs ``data`` with the 4-byte ``key`` repeated (masking and unmasking are the same)."""
    n = len(data)
    if n == 0:
        return b""
    stream = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(n, "big")


def encode_frame(opcode: int, payload: bytes, *, fin: bool = True, mask: bool = True) -> bytes:
    """The bytes of one frame, header and payload together so they go out in one write."""
    n = len(payload)
    head = bytearray([(0x80 if fin else 0) | opcode])
    mask_bit = 0x80 if mask else 0
    if n < 126:
        head.append(mask_bit | n)
    elif n < 1 << 16:
        head.append(mask_bit | 126)
        head += n.to_bytes(2, "big")
    else:
        head.append(mask_bit | 127)
        head += n.to_bytes(8, "big")
    if mask:
        key = os.urandom(4)
        head += key
        payload = apply_mask(payload, key)
    return bytes(head) + payload


def encode_close(code: int | None, reason: str = "") -> bytes:
    """The payload of a Close frame (empty when ``code`` is ``None``)."""
    if code is None:
        return b""
    return code.to_bytes(2, "big") + reason.encode("utf-8")[:123]


def decode_close(payload: bytes) -> tuple[int, str]:
    """``(code, reason)`` of a Close frame; 1005 when it carries no code."""
    if len(payload) == 0:
        return 1005, ""
    if len(payload) == 1:
        raise ProtocolError("Invalid close frame: a one-byte payload")
    code = int.from_bytes(payload[:2], "big")
    try:
        reason = payload[2:].decode("utf-8")
    except UnicodeDecodeError as err:
        raise ProtocolError(f"Invalid close frame: reason is not UTF-8: {err}", 1007) from None
    return code, reason


async def read_frame(reader: asyncio.StreamReader, max_size: int) -> Frame:
    """Reads one frame; raises ``asyncio.IncompleteReadError`` at end of stream."""
    b0, b1 = await reader.readexactly(2)
    if b0 & 0x70:
        raise ProtocolError("Invalid frame: reserved bits set without a negotiated extension")
    fin = bool(b0 & 0x80)
    opcode = b0 & 0x0F
    if opcode not in _CONTROL_OPCODES and opcode not in _DATA_OPCODES:
        raise ProtocolError(f"Invalid frame: unknown opcode {opcode:#x}")
    length = b1 & 0x7F
    if length == 126:
        length = int.from_bytes(await reader.readexactly(2), "big")
    elif length == 127:
        length = int.from_bytes(await reader.readexactly(8), "big")
    if opcode in _CONTROL_OPCODES and (length > 125 or not fin):
        raise ProtocolError("Invalid frame: control frames must be unfragmented and at most 125 bytes")
    if length > max_size:
        raise ProtocolError(f"Message too big: {length} bytes, the limit is {max_size}", 1009)
    # Servers must not mask; accept it anyway rather than fail on a lenient peer.
    key = await reader.readexactly(4) if b1 & 0x80 else None
    payload = await reader.readexactly(length) if length else b""
    if key is not None:
        payload = apply_mask(payload, key)
    return Frame(fin, opcode, payload)
