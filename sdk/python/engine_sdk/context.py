"""The invocation a piece of code runs in, and its W3C trace context.

Set around every handler with :mod:`contextvars`, so it follows ``await``s in
async handlers and is copied into the thread that runs a sync handler.
"""

from __future__ import annotations

import contextvars
import re
from dataclasses import dataclass
from typing import Any

_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})")


@dataclass(frozen=True)
class TraceParent:
    """The parts of a W3C ``traceparent`` header."""

    version: str
    trace_id: str
    span_id: str
    flags: str


def parse_traceparent(value: Any) -> TraceParent | None:
    """Parses ``00-<32 hex trace id>-<16 hex span id>-<2 hex flags>``; ``None``
    for anything else, including all-zero ids. Like the engine, it accepts
    upper-case hex and surrounding space, and returns the parts in lower case.

    Example::

        tp = parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        assert tp is not None and tp.span_id == "b7ad6b7169203331"
    """
    if not isinstance(value, str):
        return None
    m = _TRACEPARENT.fullmatch(value.strip().lower())
    if not m:
        return None
    version, trace_id, span_id, flags = m.groups()
    if version == "ff" or not trace_id.strip("0") or not span_id.strip("0"):
        return None
    return TraceParent(version, trace_id, span_id, flags)


@dataclass(frozen=True)
class InvocationScope:
    """What the SDK knows about the invocation a handler runs in."""

    worker: Any
    """The :class:`~engine_sdk.worker.Worker` that received the invocation."""
    function_id: str
    invocation_id: str | None
    traceparent: str | None
    baggage: str | None


_scope: contextvars.ContextVar[InvocationScope | None] = contextvars.ContextVar(
    "engine_sdk_invocation", default=None
)


def current_scope() -> InvocationScope | None:
    """The invocation the calling code runs in, or ``None`` outside a handler."""
    return _scope.get()


def enter_scope(scope: InvocationScope) -> None:
    """Makes ``scope`` current in the running context (a task or a copied context)."""
    _scope.set(scope)
