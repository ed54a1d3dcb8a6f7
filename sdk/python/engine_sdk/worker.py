"""The public worker API: :func:`register_worker` and :class:`Worker`.

A worker owns an asyncio event loop running in a daemon thread. The methods
here may be called from any thread; they hand work to that loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from typing import Any, Callable, Mapping

from . import _live, frames
from ._signals import wait_until_stopped
from ._ws_handshake import build_request, parse_url
from .channels import Channel, make_channel
from .context import current_scope
from .errors import EngineError
from .handler_pool import HandlerPool, blocking
from .ids import check_function_id
from .metadata import worker_metadata
from .options import InitOptions, resolve_name, resolve_url, to_options, upgrade_headers
from .providers import make_provided_type
from .refs import FunctionRef, Trigger, TriggerTypeRef
from .registry import Registry, make_entry
from .call_requests import check_request, create_request
from .session import Session

def default_worker() -> Worker | None:
    """The most recently started worker that is still running, if any."""
    for worker in _live.newest_first():
        if worker.running:
            return worker
    return None


def register_worker(
    url: str | None = None, options: InitOptions | Mapping[str, Any] | None = None
) -> Worker:
    """Connects a worker to the engine and returns it at once (the connection
    opens in the background and reopens whenever it drops).

    ``url`` defaults to ``$ENGINE_URL`` (empty counts as unset), else ``ws://localhost:49134``;
    spaces and control characters around it are trimmed. Raises ``ValueError`` for a URL that is
    not ``ws://`` or ``wss://``, for bad options, and for a header or token the upgrade request
    cannot carry, naming the value and where it came from (``ENGINE_URL``, ``ENGINE_TOKEN``).

    Example::

        from engine_sdk import register_worker, InitOptions

        worker = register_worker(options=InitOptions(worker_name="math-worker"))
        worker.register_function("math::add", lambda p: {"c": p["a"] + p["b"]})
        worker.run_forever()
    """
    resolved = resolve_url(url)
    checked = to_options(options)
    # A malformed URL or header (a token with a line break, say) fails here rather than on every reconnect.
    build_request(parse_url(resolved), "", upgrade_headers(checked))
    return Worker(resolved, checked)


class Worker:
    """A connection to the engine that registers functions and triggers and calls functions.

    Create it with :func:`register_worker`.
    """

    def __init__(self, url: str, options: InitOptions) -> None:
        self.url = url
        """The engine URL this worker connects to."""
        self.options = options
        """The resolved options."""
        self.name = resolve_name(options)
        """The worker name reported to the engine."""
        self._registry = Registry()
        self._executor = HandlerPool(options.max_handler_threads)
        self._loop = asyncio.new_event_loop()
        self._stopped = threading.Event()
        self._closing = False
        self._close_lock = threading.Lock()
        self._closer: asyncio.Task[None] | None = None
        metadata = worker_metadata(self.name, options.worker_description)
        self._session = Session(self, url, options, self._registry, self._executor, metadata)
        self._thread = threading.Thread(target=self._run_loop, name="engine-sdk-loop", daemon=True)
        self._thread.start()
        self._loop.call_soon_threadsafe(self._session.start)
        _live.add(self)  # shut down at exit, unless shutdown() comes first

    # Properties --------------------------------------------------------------

    @property
    def running(self) -> bool:
        """False once :meth:`shutdown` has begun."""
        return not self._closing and not self._stopped.is_set()

    @property
    def connected(self) -> bool:
        """Whether the WebSocket to the engine is open right now."""
        return self._session.conn.is_open

    def wait_connected(self, timeout: float | None = None) -> bool:
        """Blocks until the worker is connected (its registrations sent), at most ``timeout``
        seconds; returns whether it is. Calls made before need no wait: they are sent on the open.

        Example::

            worker = register_worker()
            if not worker.wait_connected(10):
                raise SystemExit("no engine at " + worker.url)
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.running:
            left = 0.25 if deadline is None else min(0.25, deadline - time.monotonic())
            if self._session.open_now.wait(max(left, 0)) and self.connected:
                return True
            if deadline is not None and time.monotonic() >= deadline:
                break
        return self.running and self.connected

    async def wait_connected_async(self, timeout: float | None = None) -> bool:
        """The ``async`` form of :meth:`wait_connected` (TypeScript: ``await worker.ready()``); it does
        not block the calling event loop."""
        return await asyncio.to_thread(self.wait_connected, timeout)

    @property
    def worker_id(self) -> str | None:
        """The id the engine gave this connection (``None`` until it says so)."""
        return self._session.worker_id

    # Registration -----------------------------------------------------------

    def register_function(
        self,
        function_id: str,
        handler: Callable[..., Any],
        *,
        description: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        request_format: Any = None,
        response_format: Any = None,
    ) -> FunctionRef:
        """Registers ``handler`` under ``function_id`` (``<namespace>::<name>``).

        ``description``, ``metadata`` (a dict), ``request_format`` and ``response_format`` (a JSON
        Schema, say) go with the registration; ``engine::functions::list`` and the console show
        them.

        The handler takes the payload (and, if it accepts a second positional
        argument, the invocation metadata) and returns a JSON-serializable
        result. It may be sync (run in a thread pool, so it may block) or
        ``async`` (run on the worker's event loop). Raising an exception answers
        the caller with ``invocation_failed``, or with the exception's ``code``
        attribute when it has one.

        Raises ``ValueError`` for an invalid or duplicate id, and for a detail JSON cannot encode.

        Example::

            def add(payload):
                return {"c": payload["a"] + payload["b"]}

            worker.register_function("math::add", add, description="Adds two numbers",
                                     request_format={"type": "object", "required": ["a", "b"]})
        """
        check_function_id(function_id)
        details = {"metadata": metadata, "request_format": request_format, "response_format": response_format}
        entry = make_entry(function_id, handler, description, details)
        self._ensure_running(f'Cannot register function "{function_id}"')
        self._registry.add_function(entry)
        self._post(self._session.send_registration, entry.frame())

        def unregister() -> None:
            if self._registry.remove_function(function_id) and self.running:
                self._post(self._session.send_registration, frames.unregister_function(function_id))

        return FunctionRef(function_id, unregister)

    def register_trigger(self, trigger: Mapping[str, Any]) -> Trigger:
        """Binds a function to an event source: ``{"type", "function_id", "config", "metadata"?}``.

        Raises ``ValueError`` when a field is missing or invalid, or holds a value JSON cannot
        encode (a ``datetime``, a ``set``, NaN, a cycle): it would be kept for every replay.

        Example::

            worker.register_trigger({
                "type": "http",
                "function_id": "math::add",
                "config": {"api_path": "/math/add", "http_method": "POST"},
            })
        """
        frame = frames.register_trigger(trigger)
        self._ensure_running(f'Cannot register a trigger for "{frame["function_id"]}"')
        self._registry.add_trigger(frame)
        self._post(self._session.send_registration, frame)

        def unregister() -> None:
            removed = self._registry.remove_trigger(frame["id"])
            if removed is not None and self.running:
                self._post(self._session.send_queued, frames.unregister_trigger(removed))

        return Trigger(frame["id"], unregister)

    def register_trigger_type(self, trigger_type: Mapping[str, Any], handler: Any) -> TriggerTypeRef:
        """Provides a trigger type ``{"id", "description"}``: the engine hands this
        worker every trigger bound to it, and the worker fires them by calling
        :meth:`trigger` (or :meth:`trigger_async`) with the trigger's ``function_id``.

        ``handler`` has two methods (sync, run in the thread pool, or ``async``),
        each taking a :class:`~engine_sdk.TriggerConfig` (``id``, ``type``,
        ``function_id``, ``config``, ``metadata``): ``register_trigger(trigger)``
        starts serving a trigger, and raising an exception there refuses it (the
        worker that registered the trigger gets the error, code
        ``trigger_registration_failed`` or the exception's ``code``);
        ``unregister_trigger(trigger)`` stops serving it. A dict with those two
        keys works too.

        Raises ``ValueError`` for an invalid or duplicate type id and ``TypeError``
        for a handler without the two methods.

        Example::

            import threading

            timers = {}

            class Ticker:
                def register_trigger(self, trigger):
                    every = trigger.config.get("every_s")
                    if not isinstance(every, (int, float)) or every <= 0:
                        raise ValueError(f'"every_s" must be a positive number, got {every!r}')
                    stop = timers[trigger.id] = threading.Event()

                    def tick():
                        while not stop.wait(every):
                            try:
                                worker.trigger({"function_id": trigger.function_id, "payload": {},
                                                "action": TriggerAction.void()})
                            except EngineError:  # shutting down
                                return

                    threading.Thread(target=tick, daemon=True).start()

                def unregister_trigger(self, trigger):
                    timers.pop(trigger.id).set()

            worker.register_trigger_type({"id": "ticker", "description": "Fires every N seconds"}, Ticker())
        """
        provided = make_provided_type(trigger_type, handler)
        self._ensure_running(f'Cannot register trigger type "{provided.id}"')
        self._registry.add_trigger_type(provided)
        self._post(self._session.send_registration, provided.frame())

        def unregister() -> None:
            if self._registry.remove_trigger_type(provided) and self.running:
                self._post(self._session.drop_trigger_type, provided)

        return TriggerTypeRef(provided.id, unregister)

    # Calls -------------------------------------------------------------------

    def trigger(self, request: Mapping[str, Any]) -> Any:
        """Calls a function through the engine and blocks until its result.

        ``request`` is ``{"function_id", "payload", "timeout_ms"?, "action"?,
        "metadata"?}``. Raises :class:`EngineError` when the call fails (code
        ``function_not_found``, ``invocation_failed``, ``TIMEOUT``, ...). With
        ``"action": TriggerAction.void()`` it returns ``None`` without waiting.

        Use it from plain code and sync handlers. Inside ``async`` handlers use
        ``await worker.trigger_async(...)`` instead (this method refuses to block
        the worker's event loop).

        Example::

            total = worker.trigger({"function_id": "state::get", "payload": {"scope": "math", "key": "total"}})
        """
        if threading.current_thread() is self._thread:
            raise RuntimeError(
                "Worker.trigger() cannot block the worker's event loop: "
                'use "await worker.trigger_async(...)" inside async handlers'
            )
        call = self._prepare_call(request)
        try:
            future = asyncio.run_coroutine_threadsafe(call, self._loop)
        except RuntimeError:
            call.close()
            raise EngineError("shutdown", "Worker is shut down") from None
        try:
            # A handler thread waiting here may wait on another handler of this worker: let the
            # pool start one more thread meanwhile, or such calls could take every thread.
            with blocking():
                return self._wait(future)
        except BaseException:
            future.cancel()
            raise

    def _wait(self, future: concurrent.futures.Future[Any]) -> Any:
        while True:
            try:
                return future.result(timeout=0.25)
            except concurrent.futures.TimeoutError:
                if self._stopped.is_set() and not future.done():
                    raise EngineError("shutdown", "Worker is shut down") from None
            except concurrent.futures.CancelledError:
                raise EngineError("shutdown", "Worker is shut down") from None

    async def trigger_async(self, request: Mapping[str, Any]) -> Any:
        """The ``async`` form of :meth:`trigger`, for async handlers and asyncio programs.

        Example::

            async def handler(payload):
                return await worker.trigger_async({"function_id": "math::add", "payload": payload})
        """
        call = self._prepare_call(request)
        if asyncio.get_running_loop() is self._loop:
            return await call
        try:
            future = asyncio.run_coroutine_threadsafe(call, self._loop)
        except RuntimeError:
            call.close()
            raise EngineError("shutdown", "Worker is shut down") from None
        return await asyncio.wrap_future(future)

    def create_channel(self, buffer_size: int | None = None) -> Channel:
        """Makes a data channel (``engine::channels::create``) and blocks until the engine answers.

        Returns a :class:`~engine_sdk.Channel`: ``reader`` and ``writer`` (each opens on first use,
        once) and ``reader_ref`` / ``writer_ref``, which hand an end to another worker in a payload.
        At most ``buffer_size`` frames (the engine's default 64, at most 1024) wait for the reader
        before the writer is held back. Raises :class:`EngineError` when the engine refuses.

        Example::

            def send_file(payload):  # a sync handler
                channel = worker.create_channel()
                worker.trigger({"function_id": "files::store", "payload": {"body": channel.reader_ref},
                                "action": TriggerAction.void()})  # the reader opens it over there
                channel.writer.write_sync(b"the file's bytes")
                channel.writer.close_sync()
        """
        result = self.trigger(create_request(buffer_size))
        return make_channel(result, self.url, self.options, self._loop, self._session.ends)

    async def create_channel_async(self, buffer_size: int | None = None) -> Channel:
        """The ``async`` form of :meth:`create_channel`.

        Example::

            async def send_report(payload):
                channel = await worker.create_channel_async()
                stored = asyncio.ensure_future(worker.trigger_async(
                    {"function_id": "files::store", "payload": {"body": channel.reader_ref}}))
                async with channel.writer as out:
                    await out.write(b"the report")
                return await stored
        """
        result = await self.trigger_async(create_request(buffer_size))
        return make_channel(result, self.url, self.options, self._loop, self._session.ends)

    def _prepare_call(self, request: Mapping[str, Any]) -> Any:
        function_id, timeout_ms, action = check_request(request, self.options.invocation_timeout_ms)
        # While the worker drains, handlers finishing still make calls; after it, none goes out.
        if self._stopped.is_set():
            raise EngineError("shutdown", "Worker is shut down", function_id=function_id)
        return self._session.call(
            function_id,
            request.get("payload"),
            timeout_ms=timeout_ms,
            action=action,
            metadata=request.get("metadata"),
            scope=current_scope(),
        )

    def _log(self, level: str, payload: dict[str, Any]) -> None:
        """Sends a log record as a void call to ``engine::log::<level>`` (used by ``Logger``)."""
        frame = frames.invoke(None, f"engine::log::{level}", payload, frames.VOID, None, current_scope())
        self._post(self._session.send_queued, frame)

    # Lifecycle -----------------------------------------------------------------

    def run_forever(self, *, drain_timeout: float = 5.0) -> None:
        """Blocks until SIGINT (Ctrl-C) or SIGTERM, or until :meth:`shutdown`, then shuts
        down: handlers already running get up to ``drain_timeout`` seconds to answer.

        The usual last line of a worker script.
        """
        wait_until_stopped(self._stopped)
        self.shutdown(drain_timeout=drain_timeout)

    def shutdown(self, timeout: float = 5.0, *, drain_timeout: float = 5.0) -> None:
        """Stops the worker: the engine is told first to route no new calls here
        (``unregisterfunction`` for each function, so other replicas take them);
        handlers already running get up to ``drain_timeout`` seconds to finish and
        answer their callers (their own calls still go out; calls arriving meanwhile
        are answered with code ``shutdown``, and the engine sends them on to another
        replica); channel ends still open get what is left of that time to close, and
        the rest are broken off (their peers see an error, not a clean end); then calls
        it is still waiting for fail with ``EngineError`` code ``shutdown`` and the
        connection closes (code 1000). Blocks up to ``drain_timeout + timeout`` seconds.
        Safe to call twice."""
        with self._close_lock:
            if self._closing:
                first = False
            else:
                self._closing = first = True
        if first:
            _live.remove(self)
        if threading.current_thread() is self._thread:
            if first:
                self._closer = self._loop.create_task(self._close_on_loop(drain_timeout))  # keep a reference
            return
        if first:
            try:
                asyncio.run_coroutine_threadsafe(self._close_on_loop(drain_timeout), self._loop)
            except RuntimeError:
                pass
        scope = current_scope()
        if scope is not None and scope.worker is self:
            return  # a handler stopping its own worker: the drain waits for it, so it must not wait here
        self._thread.join(drain_timeout + timeout)

    async def shutdown_async(self, timeout: float = 5.0, *, drain_timeout: float = 5.0) -> None:
        """The ``async`` form of :meth:`shutdown`, for asyncio programs (a FastAPI lifespan, say):
        it waits in another thread, so the calling event loop goes on meanwhile, and the worker's
        handlers that await work of that loop can finish and answer within ``drain_timeout``.

        Example::

            @contextlib.asynccontextmanager
            async def lifespan(app):
                worker = register_worker()
                yield
                await worker.shutdown_async()
        """
        if asyncio.get_running_loop() is self._loop:
            self.shutdown(timeout, drain_timeout=drain_timeout)  # on the worker's own loop: begins it, never waits
            return
        await asyncio.to_thread(self.shutdown, timeout, drain_timeout=drain_timeout)

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    async def _close_on_loop(self, drain_s: float) -> None:
        try:
            await self._session.close(drain_s)
        finally:
            self._loop.stop()

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
            # Run what other threads posted just before the stop, then cancel the rest.
            self._loop.run_until_complete(asyncio.sleep(0))
            tasks = [t for t in asyncio.all_tasks(self._loop) if not t.done()]
            for task in tasks:
                task.cancel()
            if tasks:
                self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            # Transports closed by those tasks release their sockets on the next turn.
            self._loop.run_until_complete(asyncio.sleep(0))
        finally:
            self._closing = True
            _live.remove(self)
            self._loop.close()
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._stopped.set()

    def _ensure_running(self, what: str) -> None:
        if not self.running:
            raise RuntimeError(f"{what}: the worker is shut down")

    def _post(self, fn: Callable[..., Any], *args: Any) -> None:
        """Runs ``fn(*args)`` on the loop: at once from the loop's own thread (an async handler, a
        trigger type), so its frame keeps its place among the frames that thread sends directly
        (``trigger_async()``, its result); from another thread after what that thread posted
        before."""
        if threading.current_thread() is self._thread:
            try:
                fn(*args)
            except Exception as err:  # noqa: BLE001 - reported as the loop reports a posted one's
                self._loop.call_exception_handler({"message": f"Exception in {fn.__qualname__}", "exception": err})
            return
        try:
            self._loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:
            pass  # the loop is closed: the worker is shut down
