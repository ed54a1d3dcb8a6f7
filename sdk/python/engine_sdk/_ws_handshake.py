"""The client side of the RFC 6455 opening handshake."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import re
from dataclasses import dataclass
from typing import Sequence
from urllib.parse import urlsplit

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_MAX_HEADER_BYTES = 64 * 1024
_MAX_REFUSAL_BYTES = 8 * 1024
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


class HandshakeError(Exception):
    """The WebSocket upgrade failed; ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, status: int | None = None, body: bytes = b"") -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        """The refusal's body (at most :data:`_MAX_REFUSAL_BYTES`), when it came within a second."""


@dataclass(frozen=True)
class Target:
    """Where a ``ws:``/``wss:`` URL points."""

    secure: bool
    host: str
    port: int
    resource: str
    host_header: str


def parse_url(url: str, *, given: str | None = None, source: str = "") -> Target:
    """Splits a WebSocket URL; raises ``ValueError`` naming the URL when it is not one: as ``given``
    (the text it was trimmed from, if any), followed by ``source`` (such as ``" (from ENGINE_URL)"``)."""
    shown = f'"{url if given is None else given}"{source}'
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("ws", "wss"):
        raise ValueError(f"Invalid engine URL {shown}: expected a ws:// or wss:// URL")
    if not parts.hostname:
        raise ValueError(f"Invalid engine URL {shown}: no host")
    secure = scheme == "wss"
    default_port = 443 if secure else 80
    try:
        port = parts.port or default_port
    except ValueError as err:
        raise ValueError(f"Invalid engine URL {shown}: {err}") from None
    host = parts.hostname
    shown = f"[{host}]" if ":" in host else host
    host_header = shown if port == default_port else f"{shown}:{port}"
    resource = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(secure, host, port, resource, host_header)


def new_key() -> str:
    """A fresh ``Sec-WebSocket-Key``."""
    return base64.b64encode(os.urandom(16)).decode("ascii")


def accept_for(key: str) -> str:
    """The ``Sec-WebSocket-Accept`` a server must answer ``key`` with."""
    digest = hashlib.sha1((key + _GUID).encode("ascii")).digest()
    return base64.b64encode(digest).decode("ascii")


def build_request(target: Target, key: str, headers: dict[str, str], protocols: Sequence[str] = ()) -> bytes:
    """The upgrade request; ``headers`` are added after the standard ones, and ``protocols`` (the
    subprotocols offered, most preferred first) as ``Sec-WebSocket-Protocol``.

    Raises ``ValueError`` for a subprotocol name that is not an HTTP token, or a
    ``Sec-WebSocket-Protocol`` header in ``headers`` (offer subprotocols with ``protocols``).
    """
    lines = [
        f"GET {target.resource} HTTP/1.1",
        f"Host: {target.host_header}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
    ]
    for protocol in protocols:
        if not isinstance(protocol, str) or not _TOKEN.fullmatch(protocol):
            raise ValueError(f'Invalid subprotocol name "{protocol}": expected an HTTP token')
    if protocols:
        lines.append(f"Sec-WebSocket-Protocol: {', '.join(protocols)}")
    standard = len(lines)
    for name, value in headers.items():
        if name.strip().lower() == "sec-websocket-protocol":
            raise ValueError(f'Invalid header "{name}": set by the WebSocket client from the subprotocols offered')
        if "\r" in name or "\n" in name or "\r" in str(value) or "\n" in str(value):
            raise ValueError(f'Invalid header "{name}": line breaks are not allowed')
        lines.append(f"{name}: {value}")
    for line in lines[standard:]:
        try:
            line.encode("latin-1")
        except UnicodeEncodeError:
            name = line.split(":", 1)[0]
            # Not the value: it may be a token.
            raise ValueError(f'Invalid header "{name}": HTTP headers hold Latin-1 text only') from None
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def read_response(reader: asyncio.StreamReader, url: str, key: str, protocols: Sequence[str] = ()) -> str:
    """Reads the server's answer and checks it; returns the subprotocol the server chose (``""``
    for none). Raises :class:`HandshakeError` on refusal, and when the server chose a subprotocol
    that is not one of ``protocols``."""
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        raise HandshakeError(f'WebSocket upgrade to "{url}" failed: the server closed the connection') from None
    except asyncio.LimitOverrunError:
        raise HandshakeError(f'WebSocket upgrade to "{url}" failed: response headers too large') from None
    if len(raw) > _MAX_HEADER_BYTES:
        raise HandshakeError(f'WebSocket upgrade to "{url}" failed: response headers too large')
    lines = raw.decode("latin-1").split("\r\n")
    status_parts = lines[0].split(" ", 2)
    if len(status_parts) < 2 or not status_parts[0].startswith("HTTP/") or not status_parts[1].isdigit():
        raise HandshakeError(f'WebSocket upgrade to "{url}" failed: not an HTTP response: {lines[0]!r}')
    status = int(status_parts[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    if status != 101:
        reason = status_parts[2] if len(status_parts) > 2 else ""
        body = await _refusal_body(reader, headers.get("content-length", ""))
        raise HandshakeError(f'WebSocket upgrade to "{url}" failed: HTTP {status} {reason}'.rstrip(), status, body)
    if headers.get("upgrade", "").lower() != "websocket":
        raise HandshakeError(f'WebSocket upgrade to "{url}" failed: missing "Upgrade: websocket"', status)
    if "upgrade" not in [t.strip().lower() for t in headers.get("connection", "").split(",")]:
        raise HandshakeError(f'WebSocket upgrade to "{url}" failed: missing "Connection: Upgrade"', status)
    if headers.get("sec-websocket-accept") != accept_for(key):
        raise HandshakeError(f'WebSocket upgrade to "{url}" failed: wrong Sec-WebSocket-Accept', status)
    if headers.get("sec-websocket-extensions"):
        raise HandshakeError(f'WebSocket upgrade to "{url}" failed: the server chose an extension not offered', status)
    chosen = headers.get("sec-websocket-protocol", "")
    if chosen and chosen not in protocols:
        raise HandshakeError(
            f'WebSocket upgrade to "{url}" failed: the server chose a subprotocol that was not offered: "{chosen}"',
            status,
        )
    return chosen


async def _refusal_body(reader: asyncio.StreamReader, length: str) -> bytes:
    """The body of a refused upgrade when it is small and comes within a second (else empty):
    the engine says there why (an unknown channel, a wrong key)."""
    if not length.isdigit() or int(length) > _MAX_REFUSAL_BYTES:
        return b""
    try:
        return await asyncio.wait_for(reader.readexactly(int(length)), 1.0)
    except (asyncio.TimeoutError, asyncio.IncompleteReadError, ConnectionError, OSError):
        return b""
