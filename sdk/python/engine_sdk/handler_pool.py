"""The threads that run sync handlers (and sync trigger-type methods).

Two things set it apart from :class:`concurrent.futures.ThreadPoolExecutor`:

* A thread blocked in :meth:`Worker.trigger` does not count against the
  limit. A sync handler that calls another function of the same worker waits
  for a handler that needs a thread of its own; with every thread waiting like
  that, no thread would be left to answer, and every call would end in its
  time-out. While a thread waits in ``trigger()`` the pool may start another.
* Its threads are daemon threads, so a process that shuts its worker down
  (Ctrl-C, SIGTERM from the engine's supervisor) exits at once, even while a
  handler still runs (its caller was already told the call stopped), instead
  of waiting at exit for the handler to return.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import threading
from typing import Any, Callable, Iterator

_this_thread = threading.local()
"""``pool``: the :class:`HandlerPool` the current thread belongs to, if any."""

_Work = tuple[concurrent.futures.Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class HandlerPool(concurrent.futures.Executor):
    """Runs submitted calls on daemon threads, at most ``size`` at once not
    counting threads inside :meth:`blocking`."""

    def __init__(self, size: int, name: str = "engine-handler") -> None:
        self._size = size
        self._name = name
        self._cond = threading.Condition()
        self._work: collections.deque[_Work] = collections.deque()
        self._threads = 0
        self._idle = 0
        self._blocked = 0
        self._started = 0
        self._closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        """Queues ``fn(*args, **kwargs)``; raises ``RuntimeError`` after :meth:`shutdown`."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._cond:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            self._work.append((future, fn, args, kwargs))
            self._cond.notify()
            self._grow()
        return future

    @contextlib.contextmanager
    def _blocking(self) -> Iterator[None]:
        with self._cond:
            self._blocked += 1
            self._grow()
        try:
            yield
        finally:
            with self._cond:
                self._blocked -= 1

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Takes no more work; queued work is cancelled with ``cancel_futures``.

        Running calls are not interrupted; ``wait`` waits for them.
        """
        with self._cond:
            self._closed = True
            if cancel_futures:
                while self._work:
                    self._work.popleft()[0].cancel()
            self._cond.notify_all()
            if wait:
                while self._threads:
                    self._cond.wait()

    def _grow(self) -> None:
        # Called with the lock held: a thread for queued work no idle thread will take.
        if len(self._work) > self._idle and self._threads - self._blocked < self._size:
            self._threads += 1
            self._started += 1
            thread = threading.Thread(target=self._serve, name=f"{self._name}_{self._started}", daemon=True)
            thread.start()

    def _serve(self) -> None:
        _this_thread.pool = self
        try:
            while True:
                with self._cond:
                    while True:
                        # More threads than the limit once the blocked ones came back: this one goes.
                        if self._threads - self._blocked > self._size:
                            return
                        if self._work:
                            break
                        if self._closed:
                            return
                        self._idle += 1
                        self._cond.wait()
                        self._idle -= 1
                    future, fn, args, kwargs = self._work.popleft()
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    result = fn(*args, **kwargs)
                except BaseException as err:  # noqa: BLE001 - the caller of submit() gets it
                    future.set_exception(err)
                else:
                    future.set_result(result)
                del future, fn, args, kwargs
        finally:
            with self._cond:
                self._threads -= 1
                self._cond.notify_all()


def blocking() -> contextlib.AbstractContextManager[None]:
    """Marks the calling thread, if a :class:`HandlerPool` runs it, as waiting
    on something other handlers may have to do (a call through the engine), so
    its pool may start another thread meanwhile.

    Example::

        with blocking():
            result = future.result()
    """
    pool: HandlerPool | None = getattr(_this_thread, "pool", None)
    return pool._blocking() if pool is not None else contextlib.nullcontext()
