"""Worker options and how the engine URL, token and worker name are resolved."""

from __future__ import annotations

import dataclasses
import math
import os
import random
import socket
import ssl
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ._ws_handshake import parse_url

DEFAULT_ENGINE_URL = "ws://localhost:49134"


@dataclass
class InitOptions:
    """Options of :func:`register_worker`. A plain ``dict`` with the same keys works too.

    Example::

        worker = register_worker(options=InitOptions(worker_name="math-worker"))
        worker = register_worker(options={"worker_name": "math-worker"})
    """

    worker_name: str | None = None
    """Shown in the engine's worker list. Default: ``$ENGINE_WORKER_NAME``, else ``<hostname>:<pid>``."""
    worker_description: str | None = None
    """Optional description sent with the worker's metadata."""
    token: str | None = None
    """Sent as ``Authorization: Bearer <token>`` on the upgrade, unless ``headers`` hold an
    ``Authorization`` header. Default: ``$ENGINE_TOKEN``."""
    headers: dict[str, str] = field(default_factory=dict)
    """Extra headers of the WebSocket upgrade request."""
    invocation_timeout_ms: int = 30_000
    """Default time-out of :meth:`Worker.trigger`."""
    reconnect_initial_delay_ms: int = 1_000
    """First delay before reconnecting."""
    reconnect_max_delay_ms: int = 30_000
    """Largest delay between reconnect attempts."""
    reconnect_backoff_multiplier: float = 2.0
    """Growth of the delay per failed attempt."""
    reconnect_jitter: float = 0.3
    """Random spread of each delay, as a fraction (0.3 = ±30 %)."""
    heartbeat_interval_ms: int = 20_000
    """How often a WebSocket Ping is sent."""
    idle_timeout_ms: int = 60_000
    """With nothing received for this long, the connection is dropped and reopened."""
    handshake_timeout_ms: int = 10_000
    """Deadline of one connection attempt (TCP, TLS and upgrade)."""
    max_handler_threads: int = 64
    """How many sync handlers run at once (threads waiting in :meth:`Worker.trigger` do not count)."""
    max_message_bytes: int = 64 * 1024 * 1024
    """Largest inbound message accepted. Below 192 KiB (the most a message of several frames
    can take) ``batch_frames`` is off: every message then holds one frame."""
    ssl_context: ssl.SSLContext | None = None
    """TLS settings for ``wss:`` URLs. Default: the system's trust store."""
    batch_frames: bool = True
    """Offer the engine several frames per WebSocket message (the ``engine.batch.v1``
    subprotocol): much less work per call under load. An engine that does not choose it is
    talked to one frame per message."""


_FIELDS = {f.name for f in dataclasses.fields(InitOptions)}
_POSITIVE = (
    "invocation_timeout_ms",
    "reconnect_max_delay_ms",
    "heartbeat_interval_ms",
    "idle_timeout_ms",
    "handshake_timeout_ms",
    "max_handler_threads",
    "max_message_bytes",
)


def to_options(options: InitOptions | Mapping[str, Any] | None) -> InitOptions:
    """Checks ``options`` and returns them as :class:`InitOptions`.

    Raises ``ValueError`` naming the option for an unknown key or a bad value.
    """
    if options is None:
        result = InitOptions()
    elif isinstance(options, InitOptions):
        result = dataclasses.replace(options, headers=dict(options.headers))
    elif isinstance(options, Mapping):
        unknown = sorted(set(options) - _FIELDS)
        if unknown:
            raise ValueError(
                f'Unknown worker option "{unknown[0]}": expected one of {", ".join(sorted(_FIELDS))}'
            )
        result = InitOptions(**options)
        result.headers = dict(result.headers or {})
    else:
        raise ValueError(
            f"Invalid worker options: expected InitOptions or a dict, got {type(options).__name__}"
        )
    for name in _POSITIVE:
        _check_number(result, name, "a positive number", lambda value: value > 0)
    if not isinstance(result.max_handler_threads, int):
        _check_number(result, "max_handler_threads", "a positive integer", lambda value: False)
    _check_number(result, "reconnect_initial_delay_ms", "0 or more", lambda value: value >= 0)
    # Checked here, not at the first failed connection attempt, whose TypeError stopped reconnecting.
    _check_number(result, "reconnect_backoff_multiplier", "a number of 1 or more", lambda value: value >= 1)
    _check_number(result, "reconnect_jitter", "a fraction from 0 to 1", lambda value: 0 <= value <= 1)
    if not isinstance(result.batch_frames, bool):
        raise ValueError(f'Invalid worker option "batch_frames": expected True or False, got {result.batch_frames!r}')
    return result


def _check_number(options: InitOptions, name: str, expected: str, valid: Callable[[float], bool]) -> None:
    """Raises ``ValueError`` naming option ``name`` unless it is a number (not a bool, not NaN)
    for which ``valid`` holds."""
    value = getattr(options, name)
    if not is_number(value) or not valid(value):
        raise ValueError(f'Invalid worker option "{name}": expected {expected}, got {value!r}')


def is_number(value: Any) -> bool:
    """Whether ``value`` is an ``int`` or ``float`` usable as one: not a bool, not NaN, not an
    integer too large for a float (its time-out or delay would raise ``OverflowError``)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return not math.isnan(value)
    except OverflowError:
        return False


# What a WHATWG URL parser (the TypeScript SDK's) trims around a URL: U+0000 to U+0020.
_AROUND_URL = "".join(chr(code) for code in range(0x21))


def resolve_url(url: str | None) -> str:
    """The engine URL: the argument, else ``$ENGINE_URL`` (empty counts as unset), else
    ``ws://localhost:49134``, without the spaces and control characters around it.

    Raises ``ValueError`` unless it is a ``ws://`` or ``wss://`` URL, naming the URL as given and,
    when it came from there, ``ENGINE_URL``.
    """
    if url is not None:
        given, source = url, ""
    else:
        given, source = os.environ.get("ENGINE_URL") or DEFAULT_ENGINE_URL, " (from ENGINE_URL)"
    trimmed = given.strip(_AROUND_URL)
    parse_url(trimmed, given=given, source=source)
    return trimmed


def resolve_name(options: InitOptions) -> str:
    """The worker name: the option, else ``$ENGINE_WORKER_NAME``, else ``<hostname>:<pid>``."""
    return options.worker_name or os.environ.get("ENGINE_WORKER_NAME") or f"{socket.gethostname()}:{os.getpid()}"


def upgrade_headers(options: InitOptions) -> dict[str, str]:
    """Headers of the upgrade request: ``options.headers``, plus ``Authorization: Bearer <token>``
    when there is a token (the option, else ``$ENGINE_TOKEN``) and no ``Authorization`` header.

    Raises ``ValueError`` naming where the token came from when no request could carry it.
    """
    headers = dict(options.headers)
    token = options.token if options.token is not None else os.environ.get("ENGINE_TOKEN")
    if not token or any(name.lower() == "authorization" for name in headers):
        return headers
    source = "ENGINE_TOKEN" if options.token is None else 'Option "token"'
    if any(char in token for char in "\r\n\0"):
        raise ValueError(
            f"{source} cannot be sent as a bearer token: it holds a line break or NUL (a trailing newline from a file?)"
        )
    try:
        token.encode("latin-1")
    except UnicodeEncodeError:
        raise ValueError(f"{source} cannot be sent as a bearer token: HTTP headers hold Latin-1 text only") from None
    headers["Authorization"] = f"Bearer {token}"
    return headers


def backoff_delay_ms(
    attempt: int, options: InitOptions, rand: Callable[[], float] = random.random
) -> float:
    """Delay before reconnect attempt ``attempt`` (0 for the first):
    ``min(initial * multiplier^attempt, max) ± jitter``."""
    try:
        grown = options.reconnect_initial_delay_ms * options.reconnect_backoff_multiplier**attempt
    except OverflowError:
        grown = float("inf")
    capped = min(grown, options.reconnect_max_delay_ms)
    jitter = capped * options.reconnect_jitter * (2 * rand() - 1)
    return max(0.0, capped + jitter)
