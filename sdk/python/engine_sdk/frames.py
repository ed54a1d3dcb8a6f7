"""Builders of the worker → engine frames (see protocol.md §6-§9)."""

from __future__ import annotations

import json
import uuid
from typing import Any, Mapping

from .context import InvocationScope
from .ids import check_target_id

VOID: dict[str, Any] = {"type": "void"}


class TriggerAction:
    """Values for the ``action`` of :meth:`Worker.trigger`.

    Example::

        worker.trigger({"function_id": "audit::record", "payload": {}, "action": TriggerAction.void()})
    """

    @staticmethod
    def void() -> dict[str, Any]:
        """Fire and forget: no ``invocation_id`` is sent and the call returns ``None`` at once."""
        return dict(VOID)

    @staticmethod
    def enqueue(queue: str) -> dict[str, Any]:
        """Hand the call to the named queue; the result is ``{"messageReceiptId": ...}``."""
        return {"type": "enqueue", "queue": queue}


def invoke(
    invocation_id: str | None,
    function_id: str,
    data: Any,
    action: Mapping[str, Any] | None,
    metadata: Any,
    scope: InvocationScope | None,
) -> dict[str, Any]:
    """An ``invokefunction`` frame; the trace context of ``scope`` travels with it."""
    frame: dict[str, Any] = {"type": "invokefunction"}
    if invocation_id is not None:
        frame["invocation_id"] = invocation_id
    frame["function_id"] = function_id
    frame["data"] = data
    if metadata is not None:
        frame["metadata"] = metadata
    if action is not None:
        frame["action"] = dict(action)
    if scope is not None and scope.traceparent:
        frame["traceparent"] = scope.traceparent
    if scope is not None and scope.baggage:
        frame["baggage"] = scope.baggage
    return frame


def reattach(previous_worker_id: str, reattach_token: str | None) -> dict[str, Any]:
    """The ``reattach`` frame sent first after a reconnect."""
    frame: dict[str, Any] = {"type": "reattach", "previous_worker_id": previous_worker_id}
    if reattach_token is not None:
        frame["reattach_token"] = reattach_token
    return frame


def register_trigger(trigger: Mapping[str, Any]) -> dict[str, Any]:
    """The ``registertrigger`` frame for ``{type, function_id, config, metadata?}``,
    with a fresh trigger id. Raises ``ValueError`` naming the bad field."""
    if not isinstance(trigger, Mapping):
        raise ValueError(f"Invalid trigger: expected a dict, got {type(trigger).__name__}")
    trigger_type = trigger.get("type", trigger.get("trigger_type"))
    if not isinstance(trigger_type, str) or not trigger_type:
        raise ValueError(f'Invalid trigger "type" {trigger_type!r}: expected a non-empty string such as "http"')
    function_id = trigger.get("function_id")
    check_target_id(function_id, "function_id")
    if "config" not in trigger:
        raise ValueError(f'Invalid trigger for "{function_id}": "config" is required')
    frame: dict[str, Any] = {
        "type": "registertrigger",
        "id": str(uuid.uuid4()),
        "trigger_type": trigger_type,
        "function_id": function_id,
        "config": trigger["config"],
    }
    if trigger.get("metadata") is not None:
        frame["metadata"] = trigger["metadata"]
    # Kept for every reconnect's replay: a value JSON cannot hold must be refused now, not logged
    # at each replay.
    for field in ("config", "metadata"):
        if field in frame:
            _check_json(frame[field], f'Invalid trigger "{trigger_type}" for "{function_id}": "{field}"')
    return frame


def _check_json(value: Any, place: str) -> None:
    """Raises ``ValueError`` naming ``place`` when ``value`` cannot be encoded as a frame's JSON."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as err:
        raise ValueError(f"{place} is not JSON-serializable: {err}") from None


def unregister_trigger(frame: Mapping[str, Any]) -> dict[str, Any]:
    """The ``unregistertrigger`` frame for a registered trigger."""
    return {"type": "unregistertrigger", "id": frame["id"], "trigger_type": frame["trigger_type"]}


def unregister_function(function_id: str) -> dict[str, Any]:
    """The ``unregisterfunction`` frame."""
    return {"type": "unregisterfunction", "id": function_id}


def check_action(action: Any, function_id: str) -> dict[str, Any] | None:
    """Validates the ``action`` of a call; raises ``ValueError`` naming the function."""
    if action is None:
        return None
    kind = action.get("type") if isinstance(action, Mapping) else None
    if kind == "void":
        return dict(action)
    if kind == "enqueue" and isinstance(action.get("queue"), str) and action["queue"]:
        return dict(action)
    raise ValueError(
        f'Invalid "action" for "{function_id}": expected {{"type": "void"}} or '
        f'{{"type": "enqueue", "queue": "<name>"}}, got {action!r}'
    )
