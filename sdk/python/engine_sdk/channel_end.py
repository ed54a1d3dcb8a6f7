"""What both ends of a data channel share: the lazy WebSocket, its errors, and
running on the worker's event loop from anywhere.

A channel end belongs to the event loop it was made on (the worker's). Its
``async`` methods may be awaited on any loop (they run on the owner's), and
its ``*_sync`` methods block the calling thread, for sync handlers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import ssl
from typing import Any, Coroutine, TypeVar

from .channel_refs import ChannelRef, channel_url
from .handler_pool import blocking
from .open_ends import OpenEnds
from .websocket import DEFAULT_MAX_MESSAGE_BYTES, HandshakeError, WebSocket, connect

T = TypeVar("T")

HANDSHAKE_TIMEOUT_S = 10.0
"""How long opening a channel end may take, as in the npm SDK."""


class ChannelError(Exception):
    """A data channel failed. ``code`` says how:

    * ``CHANNEL_NOT_FOUND`` / ``CHANNEL_CLAIMED`` (or another code of the engine's refusal): the
      engine refused to open the end (an unknown or expired channel, a wrong key, an end opened
      before);
    * ``channel_unreachable``: the engine could not be reached, or did not answer in time;
    * ``channel_broken``: the writer's connection dropped before it closed the channel, so the data
      is cut short;
    * ``channel_closed``: writing to an end that is closed (by this side, or by the engine because
      the reader went away or did not keep up);
    * ``shutdown``: the worker that owns the end has shut down.

    A handler that lets it propagate answers its caller with that code.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class ChannelEnd:
    """The part of :class:`ChannelReader` and :class:`ChannelWriter` that is the same."""

    direction = ""

    def __init__(
        self,
        engine_url: str,
        ref: ChannelRef,
        *,
        loop: asyncio.AbstractEventLoop | None = None,
        ssl_context: ssl.SSLContext | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        open_ends: OpenEnds | None = None,
    ) -> None:
        if ref.get("direction") != self.direction:
            raise ValueError(
                f'Cannot make a {type(self).__name__} of channel "{ref.get("channel_id")}": '
                f'its ref is for the {ref.get("direction")!r} end'
            )
        self.ref: ChannelRef = ref
        """The ref this end was made from: pass it in a payload to hand the end to another worker
        (before opening it here: each end opens once)."""
        self.url = channel_url(engine_url, ref)
        """The WebSocket URL the end opens."""
        self._loop = loop or asyncio.get_running_loop()
        self._ssl = ssl_context
        self._max = max_message_bytes
        self._ws: WebSocket | None = None
        self._open_ends = open_ends  # the worker's, which breaks the end off at its shutdown
        self._tracker: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()  # one operation at a time (binds to the loop on first use)

    @property
    def channel_id(self) -> str:
        """The channel's id."""
        return self.ref["channel_id"]

    @property
    def opened(self) -> bool:
        """Whether the end's WebSocket has been opened (it opens on first use)."""
        return self._ws is not None

    async def open(self) -> None:
        """Opens the end now rather than on first use (raises :class:`ChannelError` when refused)."""
        await self._on_loop(self._open_locked())

    async def _open_locked(self) -> None:
        async with self._lock:
            await self._open()

    async def _open(self) -> WebSocket:
        """The end's WebSocket, opened on first use. Runs on the owner loop."""
        if self._ws is not None:
            return self._ws
        ends = self._open_ends
        if ends is not None and ends.refusal is not None:
            raise self._refused(ends.refusal)
        try:
            ws = await asyncio.wait_for(
                connect(self.url, ssl_context=self._ssl, max_message_bytes=self._max), HANDSHAKE_TIMEOUT_S
            )
        except HandshakeError as err:
            raise refusal(self.channel_id, self.direction, err) from None
        except asyncio.TimeoutError:
            raise ChannelError(
                "channel_unreachable",
                f'Cannot open the {self.direction} end of channel "{self.channel_id}": '
                f"no answer from the engine within {HANDSHAKE_TIMEOUT_S:g} s",
            ) from None
        except OSError as err:
            raise ChannelError(
                "channel_unreachable",
                f'Cannot open the {self.direction} end of channel "{self.channel_id}": {err}',
            ) from None
        if ends is not None:
            if not ends.add(self):  # the worker began shutting down while this end connected
                ws.abort()
                raise self._refused(ends.refusal or "")
            self._tracker = self._loop.create_task(self._forget_when_closed(ws, ends))
        self._ws = ws
        self._opened()
        return ws

    async def _forget_when_closed(self, ws: WebSocket, ends: OpenEnds) -> None:
        try:
            await ws.wait_closed()
        finally:
            ends.discard(self)

    async def _break_off(self, why: str) -> None:
        """Called at the worker's shutdown on an end still open: fails its use with ``why`` and
        closes the socket with code 1001, so the peer sees an error, not a clean end."""

    def _opened(self) -> None:
        """Called once the WebSocket is open (the writer starts watching it)."""

    async def _on_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        """Awaits ``coro`` on the owner loop, from whichever loop awaits this."""
        if asyncio.get_running_loop() is self._loop:
            return await coro
        future = self._submit(coro)
        try:
            return await asyncio.wrap_future(future)
        except concurrent.futures.CancelledError:
            raise self._shut_down() from None

    def _block(self, coro: Coroutine[Any, Any, T], name: str) -> T:
        """Runs ``coro`` on the owner loop and blocks the calling thread until it is done."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            coro.close()
            raise RuntimeError(
                f"{type(self).__name__}.{name}_sync() cannot block the worker's event loop: "
                f'use "await ....{name}(...)" inside async handlers'
            )
        future = self._submit(coro)
        try:
            # Waiting for data another handler of this worker may be writing: free a pool thread.
            with blocking():
                return future.result()
        except concurrent.futures.CancelledError:
            raise self._shut_down() from None

    def _submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedules ``coro`` on the owner loop; a loop that is closed means the worker shut down."""
        try:
            return asyncio.run_coroutine_threadsafe(coro, self._loop)
        except RuntimeError:
            coro.close()
            raise self._shut_down() from None

    def _refused(self, why: str) -> ChannelError:
        return ChannelError("shutdown", f'Cannot open the {self.direction} end of channel "{self.channel_id}": {why}')

    def _shut_down(self) -> ChannelError:
        return ChannelError(
            "shutdown", f'Cannot use channel "{self.channel_id}": the worker that owns it is shut down'
        )

    def __repr__(self) -> str:
        state = "open" if self._ws is not None and self._ws.open else "opened" if self._ws else "not opened"
        return f"<{type(self).__name__} {self.channel_id} {state}>"


def refusal(channel_id: str, direction: str, err: HandshakeError) -> ChannelError:
    """The :class:`ChannelError` for an upgrade the engine refused, with the engine's own code and
    message when its body has them (``{"error": {"code", "message"}}``)."""
    code, detail = "channel_refused", str(err)
    try:
        body = json.loads(err.body.decode("utf-8")) if err.body else None
    except (UnicodeDecodeError, ValueError):
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("code"), str) and isinstance(error.get("message"), str):
        code, detail = error["code"], f'HTTP {err.status}: {error["message"]}'
    return ChannelError(code, f'Cannot open the {direction} end of channel "{channel_id}": {detail}')
