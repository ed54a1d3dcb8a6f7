"""Calls this worker made and is waiting on: ids, futures and time-outs.

Runs on the worker's event loop.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from .errors import EngineError, error_from_body


@dataclass
class _Pending:
    function_id: str
    future: asyncio.Future[Any]
    timer: asyncio.TimerHandle
    sent: bool = False
    """Whether the call went out on a connection (else it is still queued)."""


class PendingCalls:
    """The table of outstanding ``invokefunction`` calls, keyed by ``invocation_id``."""

    def __init__(self) -> None:
        self._calls: dict[str, _Pending] = {}

    def __len__(self) -> int:
        return len(self._calls)

    def open(self, function_id: str, timeout_ms: float) -> tuple[str, asyncio.Future[Any]]:
        """Starts a call: a fresh UUID and a future settled by :meth:`settle` or the time-out."""
        loop = asyncio.get_running_loop()
        invocation_id = str(uuid.uuid4())
        future: asyncio.Future[Any] = loop.create_future()
        timer = loop.call_later(timeout_ms / 1000, self._expire, invocation_id, timeout_ms)
        self._calls[invocation_id] = _Pending(function_id, future, timer)
        return invocation_id, future

    def mark_sent(self, invocation_id: str) -> bool:
        """Notes that the call goes out on the current connection; False if it no longer waits."""
        pending = self._calls.get(invocation_id)
        if pending is None:
            return False
        pending.sent = True
        return True

    def fail_sent(self, code: str, message: Callable[[str], str]) -> None:
        """Fails the calls that went out on a connection that has closed.

        No result can reach them any more (the engine drops the answer to a gone
        connection). Calls still queued for the next connection keep waiting.
        """
        for invocation_id, pending in list(self._calls.items()):
            if not pending.sent:
                continue
            del self._calls[invocation_id]
            pending.timer.cancel()
            if not pending.future.done():
                pending.future.set_exception(
                    EngineError(code, message(pending.function_id), function_id=pending.function_id)
                )

    def forget(self, invocation_id: str) -> None:
        """Drops a call its caller stopped waiting for (cancelled): a call still queued for the
        next connection is then not sent, and a late result is ignored."""
        pending = self._calls.pop(invocation_id, None)
        if pending is not None:
            pending.timer.cancel()

    def settle(self, frame: dict[str, Any]) -> bool:
        """Settles the call an ``invocationresult`` answers; False for an unknown id."""
        invocation_id = frame.get("invocation_id")
        pending = self._calls.pop(invocation_id, None) if isinstance(invocation_id, str) else None
        if pending is None:
            return False
        pending.timer.cancel()
        if pending.future.done():
            return True
        error = frame.get("error")
        if error:
            pending.future.set_exception(error_from_body(error, pending.function_id))
        else:
            pending.future.set_result(frame.get("result"))
        return True

    def fail_all(self, code: str, message: Callable[[str], str]) -> None:
        """Fails every outstanding call with ``code`` and the ``message`` for its function (used at shutdown)."""
        calls, self._calls = self._calls, {}
        for pending in calls.values():
            pending.timer.cancel()
            if not pending.future.done():
                pending.future.set_exception(
                    EngineError(code, message(pending.function_id), function_id=pending.function_id)
                )

    def _expire(self, invocation_id: str, timeout_ms: float) -> None:
        pending = self._calls.pop(invocation_id, None)
        if pending is not None and not pending.future.done():
            # A call that never left the queue timed out for want of a connection,
            # not because the function was slow: say so.
            why = "" if pending.sent else ": not connected to the engine, so the call was never sent"
            pending.future.set_exception(
                EngineError(
                    "TIMEOUT",
                    f"Invocation of {pending.function_id} timed out after {timeout_ms:g}ms{why}",
                    function_id=pending.function_id,
                )
            )
