"""Running a handler for an inbound ``invokefunction`` and building its answer.

Async handlers run on the worker's event loop; sync handlers run in a thread
pool so they can block (and call ``worker.trigger`` synchronously) without
stalling the loop. Either way the invocation scope is current while they run.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import traceback
from concurrent.futures import Executor
from typing import Any

from .context import InvocationScope, enter_scope
from .registry import FunctionEntry

log = logging.getLogger("engine_sdk")


async def run_handler(
    entry: FunctionEntry,
    data: Any,
    metadata: Any,
    scope: InvocationScope,
    executor: Executor,
) -> Any:
    """Calls ``entry``'s handler inside ``scope`` and returns its result.

    Must run in its own task: the scope is set in the task's context.
    """
    enter_scope(scope)
    args = (data, metadata) if entry.wants_metadata else (data,)
    if entry.is_async:
        result = entry.handler(*args)
    else:
        context = contextvars.copy_context()
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(executor, context.run, entry.handler, *args)
    if inspect.isawaitable(result):
        result = await result
    return result


def result_frame(
    invocation_id: str,
    function_id: str,
    scope: InvocationScope | None,
    *,
    result: Any = None,
    error: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An ``invocationresult`` frame, echoing the trace context of ``scope``."""
    frame: dict[str, Any] = {
        "type": "invocationresult",
        "invocation_id": invocation_id,
        "function_id": function_id,
    }
    if error is not None:
        frame["error"] = error
    elif result is not None:
        frame["result"] = result
    if scope is not None and scope.traceparent:
        frame["traceparent"] = scope.traceparent
    if scope is not None and scope.baggage:
        frame["baggage"] = scope.baggage
    return frame


def error_body(err: BaseException) -> dict[str, Any]:
    """The ``ErrorBody`` for an exception a handler raised.

    An exception with a string ``code`` attribute (such as
    :class:`~engine_sdk.errors.EngineError`) keeps that code; anything else is
    ``invocation_failed``. The message is ``str(err)`` (an ``EngineError``'s own
    message, without its code).
    """
    code = exception_code(err) or "invocation_failed"
    message = _attribute(err, "message")
    if not isinstance(message, str):
        message = exception_text(err)
    try:
        stack = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    except Exception:  # noqa: BLE001 - an exception this broken still answers its caller
        stack = ""
    return {"code": code, "message": message, "stacktrace": stack}


def _attribute(err: BaseException, name: str) -> Any:
    """``err.<name>``, or ``None`` when reading it raises (a property of the user's)."""
    try:
        return getattr(err, name, None)
    except Exception:  # noqa: BLE001
        return None


def exception_code(err: BaseException) -> str | None:
    """The string ``code`` attribute of ``err``, if it has a non-empty one that reads without raising."""
    code = _attribute(err, "code")
    return code if isinstance(code, str) and code else None


def exception_text(err: BaseException) -> str:
    """``str(err)``; its type's name when that is empty or raises."""
    name = type(err).__name__
    try:
        return str(err) or name
    except Exception as failure:  # noqa: BLE001
        return f"{name} (str() of the exception raised {type(failure).__name__})"


NOT_FOUND = {"code": "function_not_found", "message": "Function not found"}
