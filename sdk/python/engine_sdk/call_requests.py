"""The request dicts a worker's calls take: ``trigger()``'s, checked before anything is sent,
and the one ``create_channel()`` makes."""

from __future__ import annotations

from typing import Any, Mapping

from . import frames
from .ids import check_target_id
from .options import is_number

REQUEST_KEYS = ("function_id", "payload", "timeout_ms", "action", "metadata")


def check_request(request: Any, default_timeout_ms: float) -> tuple[str, float, Any]:
    """The function id, time-out (ms) and action of a ``trigger()`` request; raises ``ValueError``
    naming the function and the key for a request that is not a dict, an unknown key, a bad id,
    time-out or action."""
    if not isinstance(request, Mapping):
        raise ValueError(f"Invalid trigger request: expected a dict, got {type(request).__name__}")
    function_id = request.get("function_id")
    check_target_id(function_id, "function_id")
    unknown = [key for key in request if key not in REQUEST_KEYS]
    if unknown:
        # A misspelt key ("data", "timeoutMs") would silently call with no payload or the default time-out.
        raise ValueError(
            f"Invalid trigger request for \"{function_id}\": unknown key {unknown[0]!r} "
            f"(the keys are {', '.join(REQUEST_KEYS)})"
        )
    timeout_ms = request.get("timeout_ms", default_timeout_ms)
    if not is_number(timeout_ms) or timeout_ms <= 0:
        raise ValueError(f'Invalid "timeout_ms" for "{function_id}": expected a positive number, got {timeout_ms!r}')
    action = frames.check_action(request.get("action"), function_id)
    return function_id, timeout_ms, action


def create_request(buffer_size: int | None) -> dict[str, Any]:
    """The ``engine::channels::create`` request of ``create_channel(buffer_size)``."""
    if buffer_size is None:
        return {"function_id": "engine::channels::create", "payload": {}}
    if not isinstance(buffer_size, int) or isinstance(buffer_size, bool) or buffer_size < 1:
        raise ValueError(f"Invalid buffer_size {buffer_size!r} for create_channel(): expected a positive integer")
    return {"function_id": "engine::channels::create", "payload": {"buffer_size": buffer_size}}
