"""The protocol side of a worker: what goes out on each open, what each inbound
frame means, and outbound calls. Runs on the worker's event loop only."""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import Executor
from typing import Any

from . import frames
from .calls import PendingCalls
from .channel_refs import replace_channel_refs
from .channels import open_end
from .connection import Connection, FrameTooLarge, oversize_message
from .context import InvocationScope
from .dispatch import NOT_FOUND, error_body, result_frame, run_handler
from .errors import EngineError
from .open_ends import OpenEnds
from .options import InitOptions, upgrade_headers
from .providers import ProvidedType, Provider
from .registry import Registry

log = logging.getLogger("engine_sdk")

RELEASE_AT_SHUTDOWN_S = 2.0


class Session:
    """One worker's protocol state over a reconnecting :class:`Connection`."""

    def __init__(
        self,
        worker: Any,
        url: str,
        options: InitOptions,
        registry: Registry,
        executor: Executor,
        metadata: dict[str, Any],
    ) -> None:
        self._worker = worker
        self._registry = registry
        self._executor = executor
        self._metadata = metadata
        self._calls = PendingCalls()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._handling: set[asyncio.Task[Any]] = set()  # inbound calls being answered
        self._draining = False  # shutting down: running calls finish, new ones are refused
        self._closed = False
        self.worker_id: str | None = None
        self.reattach_token: str | None = None
        self._replayed: set[tuple[str, str]] = set()
        self._provider = Provider(registry, executor)
        self.ends = OpenEnds()
        """The channel ends of this worker with an open socket, broken off at shutdown."""
        self._opened = 0  # counts opens: an answer decided on an earlier connection is not sent
        self._pongs: list[asyncio.Future[None]] = []  # waiting for the engine's JSON pong (close)
        self.open_now = threading.Event()
        """Set while the connection is open (after the open burst was sent), for ``wait_connected``."""
        self._url = url
        self._options = options
        self.conn = Connection(
            url, upgrade_headers(options), options, self._on_open, self._on_message, self._on_close
        )

    def start(self) -> None:
        """Starts connecting."""
        self.conn.start()

    # Outbound ------------------------------------------------------------

    def send_registration(self, frame: dict[str, Any]) -> None:
        """Sends a (un)registration now; while disconnected the replay on open covers it.

        A registration the open burst already carried on this connection is not
        sent twice (it was added just before the open, while its own send waited).
        """
        if self._closed:
            return
        key = (frame["type"].removeprefix("un"), frame["id"])
        if frame["type"].startswith("un"):
            self._replayed.discard(key)
        elif key in self._replayed:
            return
        self.conn.send(frame)

    def send_queued(self, frame: dict[str, Any]) -> None:
        """Sends ``frame`` now, or on the next open if disconnected."""
        if not self._closed:
            self.conn.send(frame, queue=True)

    def drop_trigger_type(self, provided: ProvidedType) -> None:
        """Tells the engine this worker no longer provides ``provided``, and lets go of its triggers."""
        self.send_registration({"type": "unregistertriggertype", "id": provided.id, "description": provided.description})
        if not self._closed:
            self._spawn(self._provider.release(provided.id))

    async def call(
        self,
        function_id: str,
        payload: Any,
        *,
        timeout_ms: float,
        action: dict[str, Any] | None,
        metadata: Any,
        scope: InvocationScope | None,
    ) -> Any:
        """Calls a function through the engine and waits for its result.

        A ``void`` action returns ``None`` at once without waiting.
        """
        if self._closed:
            raise EngineError("shutdown", "Worker is shut down", function_id=function_id)
        if action is not None and action.get("type") == "void":
            frame = frames.invoke(None, function_id, payload, action, metadata, scope)
            _send_call(self.conn, frame, None)
            return None
        invocation_id, future = self._calls.open(function_id, timeout_ms)
        frame = frames.invoke(invocation_id, function_id, payload, action, metadata, scope)
        try:
            # Sent now, or at the flush of the next open if the call still waits then.
            if _send_call(self.conn, frame, lambda: self._calls.mark_sent(invocation_id)):
                self._calls.mark_sent(invocation_id)
        except (ValueError, EngineError):
            self._calls.settle({"invocation_id": invocation_id})
            raise
        try:
            return await future
        except asyncio.CancelledError:
            self._calls.forget(invocation_id)  # its caller gave up (asyncio.wait_for, a cancelled task)
            raise

    # Lifecycle -------------------------------------------------------------

    def _on_open(self) -> None:
        if self.worker_id is not None:
            self.conn.send(frames.reattach(self.worker_id, self.reattach_token))
        self._opened += 1
        self._replayed = set()
        for provided in self._registry.trigger_types():
            self.conn.send(provided.frame())
            self._replayed.add(("registertriggertype", provided.id))
        # Draining, the worker takes no new calls: a reconnect must not offer its functions again
        # (the engine would route calls here, and the drain's pong covers the old connection only).
        for entry in [] if self._draining else self._registry.functions():
            self.conn.send(entry.frame())
            self._replayed.add(("registerfunction", entry.id))
        for trigger in self._registry.triggers():
            self.conn.send(trigger)
            self._replayed.add(("registertrigger", trigger["id"]))
        self.conn.flush_queue()
        self.conn.send(frames.invoke(None, "engine::workers::register", self._metadata, frames.VOID, None, None))
        self.open_now.set()

    def _on_close(self, code: int, reason: str) -> None:
        self.open_now.clear()
        for pong in self._pongs:  # none comes on this connection any more
            if not pong.done():
                pong.set_result(None)
        self._pongs.clear()
        # The engine forgets the triggers of this worker's trigger types with the connection and
        # hands them over again once the types are replayed: let go of them until then.
        if not self._closed:
            self._spawn(self._provider.release())
        # Calls sent on the closed connection can get no result: fail them now
        # rather than at their time-out.
        why = f"{code}: {reason}" if reason else str(code)
        self._calls.fail_sent(
            "invocation_stopped",
            lambda function_id: (
                f'Invocation stopped: the connection to the engine at {self._url} closed (code {why}) '
                f'before "{function_id}" answered; it may have run'
            ),
        )

    async def close(self, drain_s: float = 0.0) -> None:
        """Tells the engine to route no new calls here (``unregisterfunction`` for each
        function: other replicas take them), gives running handlers up to ``drain_s``
        seconds to answer (their own calls still go out; calls arriving meanwhile are
        refused with code ``shutdown``, which the engine sends on to another replica),
        then fails outstanding calls, stops the rest and closes the socket."""
        self._draining = True
        for entry in self._registry.functions():
            self.conn.send(frames.unregister_function(entry.id))  # dropped while disconnected
        loop = asyncio.get_running_loop()
        deadline = loop.time() + drain_s
        waits: set[asyncio.Future[Any]] = set(self._handling)
        if self.conn.is_open:
            # The engine handles a connection's frames in order: at its pong it has read the
            # unregisterfunction frames, and the calls it sent before are here (refused with code
            # shutdown, they go to another replica). Closing sooner would leave them unanswered.
            pong: asyncio.Future[None] = loop.create_future()
            self._pongs.append(pong)
            self.conn.send({"type": "ping"})
            waits.add(pong)
        if waits and drain_s > 0:
            await asyncio.wait(waits, timeout=drain_s)
        # A handler may return before the stream it writes ends: open channel ends get the rest of
        # the time, then are broken off (their peers see an error, not a clean end).
        await self.ends.close(deadline - loop.time(), "the worker shut down")
        self._calls.fail_all("shutdown", lambda fn: f"Invocation of {fn} stopped: the worker is shutting down")
        self._closed = True
        # Triggers being served stop with the worker (their timers, threads, ...).
        try:
            await asyncio.wait_for(self._provider.release(), RELEASE_AT_SHUTDOWN_S)
        except asyncio.TimeoutError:
            log.warning("unregister_trigger handlers did not finish within %ss of shutdown", RELEASE_AT_SHUTDOWN_S)
        for task in list(self._tasks):
            task.cancel()
        await self.conn.stop()

    # Inbound ---------------------------------------------------------------

    def _on_message(self, frame: Any) -> None:
        if not isinstance(frame, dict):
            return
        kind = frame.get("type")
        if kind == "invocationresult":
            self._calls.settle(frame)
        elif kind == "invokefunction":
            if self._draining:
                self._refuse(frame)
            else:
                self._handling.add(self._spawn(self._invoke(frame)))
        elif kind == "registertrigger" and isinstance(frame.get("id"), str):
            self._spawn(self._answer_trigger(frame, self._opened))
        elif kind == "unregistertrigger" and isinstance(frame.get("id"), str):
            self._spawn(self._provider.unregister(frame))
        elif kind == "workerregistered":
            worker_id = frame.get("worker_id")
            token = frame.get("reattach_token")
            self.worker_id = worker_id if isinstance(worker_id, str) else None
            self.reattach_token = token if isinstance(token, str) else None
            log.debug("Worker registered with ID: %s", self.worker_id)
        elif kind == "triggerregistrationresult" and isinstance(frame.get("error"), dict):
            error = frame["error"]
            log.error(
                'Trigger registration failed for "%s" (%s): %s',
                frame.get("id"),
                frame.get("trigger_type") or frame.get("type"),
                error.get("message"),
            )
        elif kind == "error" and isinstance(frame.get("error"), dict):
            error = frame["error"]
            # A refused connection (AUTH_ERROR) or a refused frame (frame_too_large, whose call
            # the engine fails on its own): word it for either, as the TypeScript SDK does.
            log.error("Engine error %s: %s", error.get("code"), error.get("message"))
        elif kind == "ping":
            self.conn.send({"type": "pong"})
        elif kind == "pong" and self._pongs:
            pong = self._pongs.pop(0)
            if not pong.done():
                pong.set_result(None)

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._handling.discard)
        return task

    def _refuse(self, frame: dict[str, Any]) -> None:
        """Answers a call that arrives while the worker shuts down."""
        invocation_id, function_id = frame.get("invocation_id"), frame.get("function_id")
        if isinstance(invocation_id, str) and isinstance(function_id, str):
            body = {"code": "shutdown", "message": "Worker is shutting down"}
            self.send_queued(result_frame(invocation_id, function_id, None, error=body))

    async def _answer_trigger(self, frame: dict[str, Any], opened: int) -> None:
        answer = await self._provider.register(frame)
        if opened == self._opened:  # the engine that asked is still there
            self.conn.send(answer)

    async def _invoke(self, frame: dict[str, Any]) -> None:
        function_id = frame.get("function_id")
        invocation_id = frame.get("invocation_id")
        if not isinstance(invocation_id, str):
            invocation_id = None
        if not isinstance(function_id, str):
            return
        scope = InvocationScope(
            self._worker,
            function_id,
            invocation_id,
            _text(frame.get("traceparent")),
            _text(frame.get("baggage")),
        )
        entry = self._registry.function(function_id)
        if entry is None:
            if invocation_id is not None:
                self.send_queued(result_frame(invocation_id, function_id, scope, error=dict(NOT_FOUND)))
            return
        loop = asyncio.get_running_loop()
        # Channel refs in the input reach the handler as a ChannelReader or ChannelWriter.
        data = replace_channel_refs(
            frame.get("data"), lambda ref: open_end(self._url, ref, self._options, loop, self.ends)
        )
        try:
            result = await run_handler(entry, data, frame.get("metadata"), scope, self._executor)
        except asyncio.CancelledError as err:
            # The worker shutting down cancels this task; a handler may also raise it (it awaited
            # a cancelled task or future): then it is the handler's failure, told to its caller.
            task = asyncio.current_task()
            if self._closed or (task is not None and getattr(task, "cancelling", lambda: 0)()):
                raise
            self._answer_failure(function_id, invocation_id, scope, err)
            return
        except BaseException as err:  # noqa: BLE001 - any failure is the caller's answer
            self._answer_failure(function_id, invocation_id, scope, err)
            return
        if invocation_id is None:
            return
        try:
            self.send_queued(result_frame(invocation_id, function_id, scope, result=result))
        except FrameTooLarge as err:
            # Sent, it would end the connection and fail every call in flight on it.
            body = {"code": "frame_too_large", "message": oversize_message(f'Result of "{function_id}"', err.size)}
            self.send_queued(result_frame(invocation_id, function_id, scope, error=body))
        except (TypeError, ValueError) as err:
            body = {
                "code": "invocation_failed",
                "message": f'Cannot send the result of "{function_id}": not JSON-serializable: {err}',
            }
            self.send_queued(result_frame(invocation_id, function_id, scope, error=body))


    def _answer_failure(
        self, function_id: str, invocation_id: str | None, scope: InvocationScope, err: BaseException
    ) -> None:
        body = error_body(err)
        if invocation_id is None:
            log.error('Error invoking function "%s": %s', function_id, body["message"])
        else:
            self.send_queued(result_frame(invocation_id, function_id, scope, error=body))


def _send_call(conn: Connection, frame: dict[str, Any], wanted: Any) -> bool:
    function_id = frame["function_id"]
    try:
        return conn.send(frame, queue=True, wanted=wanted)
    except FrameTooLarge as err:
        message = oversize_message(f'Call to "{function_id}"', err.size)
        raise EngineError("frame_too_large", message, function_id=function_id) from None
    except (TypeError, ValueError) as err:
        raise ValueError(
            f'Cannot call "{frame["function_id"]}": the payload is not JSON-serializable: {err}'
        ) from None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
