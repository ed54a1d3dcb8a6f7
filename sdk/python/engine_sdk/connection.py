"""The worker's control connection: one WebSocket at a time, reopened with
backoff whenever it drops, with a ping heartbeat and an idle deadline. It
offers ``engine.batch.v1`` (see :mod:`.batch`) unless told not to.

Everything here runs on the worker's event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from typing import Any, Callable

from .batch import BATCH_PROTOCOL, LARGEST_BATCH, FrameBatcher, split_batch
from .options import InitOptions, backoff_delay_ms
from .websocket import ConnectionClosed, HandshakeError, WebSocket, connect

log = logging.getLogger("engine_sdk")

MAX_QUEUED_FRAMES = 1000

MAX_FRAME_BYTES = 64 * 1024 * 1024 - 1
"""The largest message, in UTF-8 bytes, the engine's server takes. It ends the connection on a
larger one, failing every call in flight on it (below this the engine refuses a frame over its
``max_frame_bytes`` with ``frame_too_large`` for that call alone), so no larger frame is sent."""


class FrameTooLarge(ValueError):
    """A frame is over :data:`MAX_FRAME_BYTES` as JSON: it was not sent."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size} bytes, over the {MAX_FRAME_BYTES} bytes the engine takes in one message")
        self.size = size


def oversize_message(what: str, size: int) -> str:
    """Why a frame of ``size`` bytes was not sent: ``<what> is <size> bytes, over …: it was not sent``."""
    return f"{what} is {size} bytes, over the {MAX_FRAME_BYTES} bytes the engine takes in one message: it was not sent"


def encode_frame(frame: dict[str, Any]) -> bytes:
    """``frame`` as compact JSON in UTF-8, as ``JSON.stringify`` writes it: text as it is (not
    ``\\u00e9``, which would make non-ASCII text up to six times bigger on the wire, against the
    engine's frame limit), lone surrogates escaped. Raises ``TypeError``/``ValueError`` when the
    frame is not JSON-serializable (NaN and infinities included, and a value nested too deeply for
    the encoder, whose ``RecursionError`` becomes a ``ValueError``), and :class:`FrameTooLarge`
    when it is over :data:`MAX_FRAME_BYTES`."""
    try:
        text = json.dumps(frame, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    except RecursionError:
        raise ValueError("the value is nested too deeply to encode as JSON") from None
    # Surrogates, which UTF-8 cannot hold, can only stand inside JSON strings: "backslashreplace"
    # writes them as the JSON escape "\\udXXX".
    data = text.encode("utf-8", "backslashreplace")
    if len(data) > MAX_FRAME_BYTES:
        raise FrameTooLarge(len(data))
    return data


def decode_frame(message: str | bytes) -> Any:
    """An inbound frame's JSON. An integer longer than ``int()`` converts
    (``sys.get_int_max_str_digits()``, 4300 digits by default; engine-http passes a request body's
    digits on as they came) becomes the nearest float, an infinity, as ``JSON.parse`` reads it and
    as ``json`` reads ``1e5000``, instead of making the whole frame, and so its call, undecodable.
    Raises ``ValueError`` for text that is not JSON."""
    try:
        return json.loads(message)
    except ValueError:
        # Only then the slower parse with a hook for every integer: most frames hold no such number.
        return json.loads(message, parse_int=_parse_int)


def _parse_int(digits: str) -> int | float:
    try:
        return int(digits)
    except ValueError:
        return float(digits)


class Connection:
    """A self-healing WebSocket connection to the engine.

    ``on_open`` runs synchronously right after each successful upgrade, so
    whatever it sends goes out before anything else. ``on_message`` gets each
    inbound frame decoded as JSON (several per message once the engine chose
    ``engine.batch.v1``, whose outbound frames then leave together once per
    loop iteration). ``on_close`` gets the close code and reason
    of each connection that had opened, once it is gone.
    """

    def __init__(
        self,
        url: str,
        headers: dict[str, str],
        options: InitOptions,
        on_open: Callable[[], None],
        on_message: Callable[[Any], None],
        on_close: Callable[[int, str], None],
    ) -> None:
        self._url = url
        self._headers = headers
        self._options = options
        self._on_open = on_open
        self._on_message = on_message
        self._on_close = on_close
        self._ws: WebSocket | None = None
        self._batcher: FrameBatcher | None = None
        """Set while the open connection speaks ``engine.batch.v1``."""
        self._queue: deque[tuple[dict[str, Any], Callable[[], bool] | None]] = deque()
        self._stopping = False
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._last_error = ""
        self.connections = 0
        """How many times a connection has opened (for diagnostics and tests)."""

    @property
    def is_open(self) -> bool:
        """Whether a WebSocket is open right now."""
        return self._ws is not None and self._ws.open

    @property
    def protocol(self) -> str:
        """The subprotocol the open WebSocket speaks (``"engine.batch.v1"`` once the engine chose
        it); ``""`` when none, or when no WebSocket is open."""
        return self._ws.protocol if self._ws is not None and self._ws.open else ""

    def start(self) -> None:
        """Starts connecting in the background."""
        self._task = asyncio.get_running_loop().create_task(self._run())

    def send(
        self,
        frame: dict[str, Any],
        *,
        queue: bool = False,
        wanted: Callable[[], bool] | None = None,
    ) -> bool:
        """Sends ``frame`` now if the socket is open (with ``engine.batch.v1``: at the end of this
        loop iteration, with the other frames sent in it).

        When closed, the frame is dropped, or kept for the next open when
        ``queue`` is true (``wanted`` is asked again at flush time). Returns
        whether it was sent now. Raises ``TypeError``/``ValueError`` when the
        frame is not JSON-serializable, :class:`FrameTooLarge` when it is too large to send.
        """
        data = encode_frame(frame)
        if self.is_open:
            assert self._ws is not None
            if self._batcher is not None:
                self._batcher.push(data)
            else:
                self._ws.send_utf8(data)
            return True
        if queue:
            if len(self._queue) >= MAX_QUEUED_FRAMES:
                log.warning("Outbound queue full (%d frames), dropping the oldest", MAX_QUEUED_FRAMES)
                self._queue.popleft()
            self._queue.append((frame, wanted))
        return False

    def flush_queue(self) -> None:
        """Sends the frames queued while disconnected, oldest first."""
        while self._queue and self.is_open:
            frame, wanted = self._queue.popleft()
            if wanted is None or wanted():
                self.send(frame)

    async def stop(self, timeout: float = 2.0) -> None:
        """Closes for good (code 1000) and stops reconnecting."""
        self._stopping = True
        self._wake.set()
        ws = self._ws
        if ws is not None and ws.open:
            if self._batcher is not None:
                self._batcher.flush()
            await ws.close(1000, "", timeout)
        if self._task is not None and not self._task.done():
            # Mid-upgrade: let the attempt finish so _run can close it properly.
            await asyncio.wait({self._task}, timeout=timeout)
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    def drop(self) -> None:
        """Drops the current socket without a close handshake (it will reconnect)."""
        if self._ws is not None:
            self._ws.abort()

    async def _run(self) -> None:
        attempt = 0
        while not self._stopping:
            ws = await self._open()
            if ws is not None and self._stopping:
                # stop() ran while the upgrade finished (wait_for may swallow its cancel).
                await ws.close(1000, "", 1.0)
                break
            if ws is not None:
                attempt = 0
                await self._serve(ws)
            if self._stopping:
                break
            delay = backoff_delay_ms(attempt, self._options)
            attempt += 1
            log.debug("Reconnecting in %dms (attempt %d)...", delay, attempt)
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), delay / 1000)
            except asyncio.TimeoutError:
                pass

    async def _open(self) -> WebSocket | None:
        try:
            return await asyncio.wait_for(
                connect(
                    self._url,
                    headers=self._headers,
                    ssl_context=self._options.ssl_context,
                    max_message_bytes=self._options.max_message_bytes,
                    protocols=(BATCH_PROTOCOL,) if self._offers_batches() else (),
                ),
                self._options.handshake_timeout_ms / 1000,
            )
        except asyncio.TimeoutError:
            self._report(f'Cannot connect to "{self._url}": no upgrade within {self._options.handshake_timeout_ms}ms')
        except (OSError, HandshakeError, ValueError) as err:
            self._report(f'Cannot connect to "{self._url}": {err}')
        except Exception as err:  # noqa: BLE001 - whatever it is, keep retrying
            self._report(f'Cannot connect to "{self._url}": {type(err).__name__}: {err}')
        return None

    def _offers_batches(self) -> bool:
        # The engine's batches reach LARGEST_BATCH bytes: a smaller limit would fail the connection
        # (and every call in flight) on a message of frames that each fit.
        return self._options.batch_frames and self._options.max_message_bytes >= LARGEST_BATCH

    async def _serve(self, ws: WebSocket) -> None:
        self._ws = ws
        batched = ws.protocol == BATCH_PROTOCOL
        if batched:

            def send(data: bytes) -> None:
                if ws.open:
                    ws.send_utf8(data)

            self._batcher = FrameBatcher(send, asyncio.get_running_loop())
        self.connections += 1
        if self._last_error:
            # At the level of the failure it ends: whoever saw that warning sees this too.
            log.warning('Connected to "%s"', self._url)
        self._last_error = ""
        keepalive = asyncio.get_running_loop().create_task(self._keepalive(ws))
        code, reason = 1006, ""
        try:
            try:
                self._on_open()
            except Exception:  # noqa: BLE001 - a bug there must not kill the connection loop
                log.exception("Error while replaying registrations")
            while True:
                message = await ws.recv()
                if batched:
                    for frame in split_batch(message):
                        self._dispatch(frame)
                else:
                    self._dispatch(message)
        except ConnectionClosed as closed:
            code, reason = closed.code, closed.reason
            if not self._stopping:
                # The engine says why in the reason (a frame over its size limit, say): pass it on.
                why = f"{code}: {reason}" if reason else str(code)
                log.warning('Disconnected from "%s" (code %s)', self._url, why)
        except Exception:  # noqa: BLE001 - drop this socket and reconnect rather than stop for good
            log.exception('Unexpected error on the connection to "%s"', self._url)
        finally:
            keepalive.cancel()
            self._ws = None
            if self._batcher is not None:
                self._batcher.clear()
                self._batcher = None
            if ws.open:
                ws.abort()
            try:
                self._on_close(code, reason)
            except Exception:  # noqa: BLE001 - a bug there must not kill the connection loop
                log.exception('Error in the close handler of the connection to "%s"', self._url)

    def _dispatch(self, message: str | bytes) -> None:
        try:
            frame = decode_frame(message)
        except ValueError as err:
            log.warning("Ignoring an inbound frame that is not JSON: %s", err)
            return
        try:
            self._on_message(frame)
        except Exception:  # noqa: BLE001
            log.exception("Error while handling an inbound frame")

    async def _keepalive(self, ws: WebSocket) -> None:
        loop = asyncio.get_running_loop()
        idle = self._options.idle_timeout_ms / 1000
        # A ping must go out well before the idle deadline, or a quiet connection to a live engine
        # is dropped at every deadline (idle_timeout_ms set below the heartbeat's default).
        interval = min(self._options.heartbeat_interval_ms / 1000, idle / 2)
        next_ping = loop.time() + interval
        wake = next_ping
        seen = ws.last_activity
        stalled = 0.0
        while ws.open:
            now = loop.time()
            if ws.last_activity != seen:
                seen, stalled = ws.last_activity, 0.0
            # While the loop is held up (an async handler calling time.sleep, say) no ping goes out,
            # and the engine, which speaks only when asked, stays quiet: a wake-up that came late by
            # more than the usual jitter does not count as silence, or the worker would drop its own
            # live connection once the loop moves again.
            if now - wake > interval / 4:
                stalled += now - wake
            if now - seen - stalled >= idle:
                log.warning(
                    "No inbound data for %dms, terminating connection to force reconnect",
                    self._options.idle_timeout_ms,
                )
                ws.abort()
                return
            if now >= next_ping:
                ws.ping()
                next_ping = now + interval
            wake = max(now, min(next_ping, seen + stalled + idle))
            await asyncio.sleep(wake - now)

    def _report(self, message: str) -> None:
        if self._stopping:
            return
        # Say it once per distinct failure, not on every retry.
        if message != self._last_error:
            log.warning("%s", message)
        self._last_error = message
